/** Order shapes returned by the order API (see api/models.py). */

export type OrderState =
  | "pending_payment"
  | "payment_failed"
  | "paid"
  | "fulfilling"
  | "shipped"
  | "delivered"
  | "cancelled"
  | "expired"
  | "refunded";

export interface LineItem {
  sku: string;
  quantity: number;
  unit_price_cents: number;
}

export interface StateChange {
  from: OrderState;
  to: OrderState;
  at: number;
  reason: string;
}

export interface Order {
  id: string;
  customer_id: string;
  items: LineItem[];
  currency: string;
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  state: OrderState;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  closed_at: number | null;
  payment_id: string | null;
  reservation_id: string | null;
  history: StateChange[];
}

/** The cheap payload of GET /orders/{id}/status used for polling. */
export interface OrderStatus {
  id: string;
  state: OrderState;
  updated_at: number;
  terminal: boolean;
}

export interface CreateOrderRequest {
  customer_id: string;
  items: LineItem[];
}

/** Error body produced by api/errors.py. */
export interface ApiErrorBody {
  error: string;
  message: string;
}
