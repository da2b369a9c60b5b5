/** Typed client for the order API's HTTP endpoints. */

import type { CreateOrderRequest, Order, OrderStatus } from "../types/order";
import { requestJson, type FetchLike } from "./http";

export interface OrdersApi {
  createOrder(request: CreateOrderRequest): Promise<Order>;
  getOrder(orderId: string): Promise<Order>;
  getOrderStatus(orderId: string, signal?: AbortSignal): Promise<OrderStatus>;
  cancelOrder(orderId: string, reason?: string): Promise<Order>;
  retryPayment(orderId: string): Promise<Order>;
}

export class OrdersClient implements OrdersApi {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchFn: FetchLike = (input, init) => fetch(input, init),
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/$/, "")}${path}`;
  }

  /** POST /orders: place an order; stock is reserved server-side. */
  createOrder(request: CreateOrderRequest): Promise<Order> {
    return requestJson<Order>(this.fetchFn, this.url("/orders"), { method: "POST", body: request });
  }

  /** GET /orders/{id}: the full order with its history. */
  getOrder(orderId: string): Promise<Order> {
    return requestJson<Order>(this.fetchFn, this.url(`/orders/${encodeURIComponent(orderId)}`));
  }

  /** GET /orders/{id}/status: the small payload used while polling. */
  getOrderStatus(orderId: string, signal?: AbortSignal): Promise<OrderStatus> {
    return requestJson<OrderStatus>(this.fetchFn, this.url(`/orders/${encodeURIComponent(orderId)}/status`), {
      signal,
      timeoutMs: 4000,
    });
  }

  /** POST /orders/{id}/cancel. */
  cancelOrder(orderId: string, reason = "customer request"): Promise<Order> {
    return requestJson<Order>(this.fetchFn, this.url(`/orders/${encodeURIComponent(orderId)}/cancel`), {
      method: "POST",
      body: { reason },
    });
  }

  /** POST /orders/{id}/retry: reopen an order after a failed payment. */
  retryPayment(orderId: string): Promise<Order> {
    return requestJson<Order>(this.fetchFn, this.url(`/orders/${encodeURIComponent(orderId)}/retry`), {
      method: "POST",
    });
  }
}
