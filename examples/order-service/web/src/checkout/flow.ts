/** The checkout flow: cart -> order -> payment page -> settled status. */

import type { OrdersApi } from "../api/client";
import { ApiError } from "../api/http";
import { pollOrderStatus, PollTimeout, type PollOptions } from "../orders/polling";
import type { Order, OrderStatus } from "../types/order";
import type { Cart } from "./cart";
import { paymentPageUrl, type PaymentPageConfig } from "./payment";

export type CheckoutStep =
  | { kind: "idle" }
  | { kind: "placing" }
  | { kind: "redirecting"; order: Order; url: string }
  | { kind: "awaiting_payment"; orderId: string }
  | { kind: "done"; status: OrderStatus }
  | { kind: "failed"; message: string; retryable: boolean };

export type StepListener = (step: CheckoutStep) => void;

/** Turn an error into the message shown under the checkout button. */
export function describeCheckoutError(error: unknown): CheckoutStep {
  if (error instanceof ApiError) {
    if (error.code === "insufficient_stock") {
      return { kind: "failed", message: "Some items just sold out. Please review your cart.", retryable: false };
    }
    return { kind: "failed", message: error.message, retryable: error.retryable };
  }
  if (error instanceof PollTimeout) {
    return { kind: "failed", message: "We are still waiting for your bank. Check your order page later.", retryable: false };
  }
  return { kind: "failed", message: "Something went wrong.", retryable: true };
}

export class CheckoutFlow {
  private step: CheckoutStep = { kind: "idle" };
  private readonly listeners: StepListener[] = [];

  constructor(
    private readonly api: OrdersApi,
    private readonly payment: PaymentPageConfig,
    private readonly navigate: (url: string) => void,
  ) {}

  get current(): CheckoutStep {
    return this.step;
  }

  subscribe(listener: StepListener): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);
  }

  private go(step: CheckoutStep): void {
    this.step = step;
    for (const listener of [...this.listeners]) listener(step);
  }

  /** Place the order for the cart and send the customer to the payment page. */
  async startCheckout(cart: Cart, customerId: string): Promise<Order | null> {
    if (cart.isEmpty) {
      this.go({ kind: "failed", message: "Your cart is empty.", retryable: false });
      return null;
    }
    this.go({ kind: "placing" });
    try {
      const order = await this.api.createOrder({ customer_id: customerId, items: cart.toLineItems() });
      const url = paymentPageUrl(order, this.payment);
      this.go({ kind: "redirecting", order, url });
      cart.clear();
      this.navigate(url);
      return order;
    } catch (error) {
      this.go(describeCheckoutError(error));
      return null;
    }
  }

  /** After the provider redirects back: wait until the payment settles. */
  async awaitPayment(orderId: string, options: PollOptions = {}): Promise<OrderStatus | null> {
    this.go({ kind: "awaiting_payment", orderId });
    try {
      const status = await pollOrderStatus(this.api, orderId, options);
      this.go({ kind: "done", status });
      return status;
    } catch (error) {
      this.go(describeCheckoutError(error));
      return null;
    }
  }

  /** Reopen an order after a failed payment and go back to the payment page. */
  async retry(orderId: string): Promise<void> {
    try {
      const order = await this.api.retryPayment(orderId);
      const url = paymentPageUrl(order, this.payment);
      this.go({ kind: "redirecting", order, url });
      this.navigate(url);
    } catch (error) {
      this.go(describeCheckoutError(error));
    }
  }
}
