import assert from "node:assert/strict";
import { test } from "node:test";

import { h, renderToString } from "./jsx";
import { OrderSummary } from "./OrderSummary";
import type { Order } from "../types/order";

const order: Order = {
  id: "ord_0001",
  customer_id: "cus_42",
  items: [{ sku: "MUG-01", quantity: 2, unit_price_cents: 1250 }],
  currency: "EUR",
  subtotal_cents: 2500,
  tax_cents: 500,
  total_cents: 3000,
  state: "payment_failed",
  created_at: 1_700_000_000,
  updated_at: 1_700_000_060,
  paid_at: null,
  closed_at: null,
  payment_id: null,
  reservation_id: null,
  history: [],
};

test("summary shows the state and the retry action after a failed payment", () => {
  const html = renderToString(<OrderSummary order={order} />);
  assert.match(html, /data-state="payment_failed"/);
  assert.match(html, /Try paying again/);
  assert.match(html, /Cancel order/);
});

test("text is escaped", () => {
  const html = renderToString(<OrderSummary order={{ ...order, id: "<script>" }} />);
  assert.ok(!html.includes("<script>"));
});
