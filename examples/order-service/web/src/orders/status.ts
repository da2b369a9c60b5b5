/** Human-readable order states and what the customer can do in each. */

import type { OrderState } from "../types/order";

export type Tone = "neutral" | "progress" | "success" | "danger";

interface StateInfo {
  label: string;
  tone: Tone;
  terminal: boolean;
}

const STATES: Record<OrderState, StateInfo> = {
  pending_payment: { label: "Waiting for payment", tone: "progress", terminal: false },
  payment_failed: { label: "Payment failed", tone: "danger", terminal: false },
  paid: { label: "Paid", tone: "success", terminal: false },
  fulfilling: { label: "Being packed", tone: "progress", terminal: false },
  shipped: { label: "Shipped", tone: "success", terminal: false },
  delivered: { label: "Delivered", tone: "success", terminal: false },
  cancelled: { label: "Cancelled", tone: "neutral", terminal: true },
  expired: { label: "Expired — not paid in time", tone: "neutral", terminal: true },
  refunded: { label: "Refunded", tone: "neutral", terminal: true },
};

export function stateLabel(state: OrderState): string {
  return STATES[state].label;
}

export function stateTone(state: OrderState): Tone {
  return STATES[state].tone;
}

export function isTerminal(state: OrderState): boolean {
  return STATES[state].terminal;
}

/** States in which checkout should stop polling and show a result. */
export function isSettled(state: OrderState): boolean {
  return state !== "pending_payment";
}

export function canCancel(state: OrderState): boolean {
  return state === "pending_payment" || state === "payment_failed" || state === "paid" || state === "fulfilling";
}

export function canRetryPayment(state: OrderState): boolean {
  return state === "payment_failed";
}
