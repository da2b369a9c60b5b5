import assert from "node:assert/strict";
import { test } from "node:test";

import type { OrdersApi } from "../api/client";
import { ApiError } from "../api/http";
import { Cart } from "../checkout/cart";
import { CheckoutFlow } from "../checkout/flow";
import type { Order, OrderState, OrderStatus } from "../types/order";
import { nextDelay, pollOrderStatus, PollTimeout } from "./polling";

/** A fake API answering getOrderStatus from a script of states or errors. */
function scriptedApi(script: Array<OrderState | ApiError>): OrdersApi & { calls: number } {
  const api = {
    calls: 0,
    async getOrderStatus(orderId: string): Promise<OrderStatus> {
      const next = script[Math.min(api.calls, script.length - 1)];
      api.calls += 1;
      if (next instanceof ApiError) throw next;
      return { id: orderId, state: next, updated_at: api.calls, terminal: false };
    },
    createOrder: () => Promise.reject(new Error("not scripted")),
    getOrder: () => Promise.reject(new Error("not scripted")),
    cancelOrder: () => Promise.reject(new Error("not scripted")),
    retryPayment: () => Promise.reject(new Error("not scripted")),
  };
  return api;
}

/** Fake time: sleeping advances the clock instantly. */
function fakeTime() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

test("stops when the payment settles and reports each change once", async () => {
  const api = scriptedApi(["pending_payment", "pending_payment", "paid"]);
  const seen: OrderState[] = [];
  const status = await pollOrderStatus(api, "ord_1", { ...fakeTime(), onUpdate: (s) => seen.push(s.state) });
  assert.equal(status.state, "paid");
  assert.deepEqual(seen, ["pending_payment", "paid"]);
  assert.equal(api.calls, 3);
});

test("retries server errors but not client errors", async () => {
  const flaky = scriptedApi([new ApiError(503, "unavailable", "busy"), "payment_failed"]);
  assert.equal((await pollOrderStatus(flaky, "ord_1", fakeTime())).state, "payment_failed");

  const missing = scriptedApi([new ApiError(404, "order_not_found", "order ord_9 not found")]);
  await assert.rejects(pollOrderStatus(missing, "ord_9", fakeTime()), (error: unknown) => error instanceof ApiError);
});

test("gives up after the timeout with the last known status", async () => {
  const api = scriptedApi(["pending_payment"]);
  await assert.rejects(
    pollOrderStatus(api, "ord_1", { ...fakeTime(), timeoutMs: 5000 }),
    (error: unknown) => error instanceof PollTimeout && error.last?.state === "pending_payment",
  );
});

test("backoff grows and is capped", () => {
  assert.equal(nextDelay(1000, 10_000), 1500);
  assert.equal(nextDelay(8000, 10_000), 10_000);
});

test("checkout flow ends in done after polling", async () => {
  const api = scriptedApi(["pending_payment", "paid"]);
  const flow = new CheckoutFlow(api, { providerUrl: "https://pay.test", publishableKey: "pk", returnUrl: "https://shop.test/r" }, () => {});
  const kinds: string[] = [];
  flow.subscribe((step) => kinds.push(step.kind));
  await flow.awaitPayment("ord_1", fakeTime());
  assert.deepEqual(kinds, ["awaiting_payment", "done"]);
});

test("an empty cart never reaches the API", async () => {
  const api = scriptedApi(["paid"]);
  const flow = new CheckoutFlow(api, { providerUrl: "https://pay.test", publishableKey: "pk", returnUrl: "https://shop.test/r" }, () => {});
  const order: Order | null = await flow.startCheckout(new Cart("EUR"), "cus_1");
  assert.equal(order, null);
  assert.equal(flow.current.kind, "failed");
});
