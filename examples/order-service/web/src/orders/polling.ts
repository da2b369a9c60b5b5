/** Polling an order's status until the payment settles. */

import type { OrdersApi } from "../api/client";
import { ApiError } from "../api/http";
import type { OrderStatus } from "../types/order";
import { isSettled } from "./status";

export interface PollOptions {
  intervalMs?: number;
  maxIntervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  onUpdate?: (status: OrderStatus) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export class PollTimeout extends Error {
  constructor(readonly last: OrderStatus | null) {
    super("order status did not settle in time");
    this.name = "PollTimeout";
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Next delay: grow by half each time, capped, so long waits cost few requests. */
export function nextDelay(current: number, max: number): number {
  return Math.min(Math.round(current * 1.5), max);
}

/**
 * Poll GET /orders/{id}/status until the order leaves pending_payment.
 * onUpdate fires only when the state changes. Transient errors (network,
 * 5xx) are retried; client errors such as 404 are thrown at once.
 */
export async function pollOrderStatus(api: OrdersApi, orderId: string, options: PollOptions = {}): Promise<OrderStatus> {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxInterval = options.maxIntervalMs ?? 10_000;
  const deadline = now() + (options.timeoutMs ?? 120_000);
  let delay = options.intervalMs ?? 1000;
  let last: OrderStatus | null = null;

  while (now() < deadline) {
    if (options.signal?.aborted) {
      throw new DOMException("polling aborted", "AbortError");
    }
    try {
      const status = await api.getOrderStatus(orderId, options.signal);
      if (last === null || status.state !== last.state) {
        options.onUpdate?.(status);
      }
      last = status;
      if (isSettled(status.state)) {
        return status;
      }
    } catch (error) {
      if (!(error instanceof ApiError) || !error.retryable) {
        throw error;
      }
    }
    await sleep(delay);
    delay = nextDelay(delay, maxInterval);
  }
  throw new PollTimeout(last);
}
