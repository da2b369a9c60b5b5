/** Hand-off to the hosted payment page of the payment provider. */

import type { Order } from "../types/order";

export interface PaymentPageConfig {
  providerUrl: string;
  publishableKey: string;
  returnUrl: string;
}

/** Build the hosted payment page URL for an order awaiting payment. */
export function paymentPageUrl(order: Order, config: PaymentPageConfig): string {
  if (order.state !== "pending_payment") {
    throw new Error(`order ${order.id} is ${order.state}, not awaiting payment`);
  }
  const url = new URL("/pay", config.providerUrl);
  url.searchParams.set("key", config.publishableKey);
  url.searchParams.set("order_id", order.id);
  url.searchParams.set("amount", String(order.total_cents));
  url.searchParams.set("currency", order.currency);
  url.searchParams.set("return_url", `${config.returnUrl}?order=${encodeURIComponent(order.id)}`);
  return url.toString();
}

/** Read the order id the provider appends when sending the customer back. */
export function orderIdFromReturnUrl(href: string): string | null {
  return new URL(href).searchParams.get("order");
}
