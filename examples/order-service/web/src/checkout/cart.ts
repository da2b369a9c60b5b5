/** The shopping cart kept in the browser until checkout. */

import type { LineItem } from "../types/order";
import { taxFor } from "../utils/money";

export const MAX_QUANTITY_PER_LINE = 99;

export interface Product {
  sku: string;
  name: string;
  unitPriceCents: number;
}

interface CartLine {
  product: Product;
  quantity: number;
}

export class Cart {
  private readonly lines = new Map<string, CartLine>();

  constructor(readonly currency: string, readonly taxRateBp = 2000) {}

  /** Add units of a product; quantities are capped like the API does. */
  add(product: Product, quantity = 1): void {
    if (!Number.isInteger(quantity) || quantity <= 0) {
      throw new RangeError(`invalid quantity ${quantity}`);
    }
    const current = this.lines.get(product.sku)?.quantity ?? 0;
    this.lines.set(product.sku, { product, quantity: Math.min(current + quantity, MAX_QUANTITY_PER_LINE) });
  }

  setQuantity(sku: string, quantity: number): void {
    const line = this.lines.get(sku);
    if (!line) return;
    if (quantity <= 0) {
      this.lines.delete(sku);
    } else {
      line.quantity = Math.min(quantity, MAX_QUANTITY_PER_LINE);
    }
  }

  remove(sku: string): void {
    this.lines.delete(sku);
  }

  get isEmpty(): boolean {
    return this.lines.size === 0;
  }

  get subtotalCents(): number {
    let total = 0;
    for (const { product, quantity } of this.lines.values()) {
      total += product.unitPriceCents * quantity;
    }
    return total;
  }

  /** Estimated total; the server's figure in the created order is authoritative. */
  get estimatedTotalCents(): number {
    return this.subtotalCents + taxFor(this.subtotalCents, this.taxRateBp);
  }

  /** The cart as the line items of a create-order request. */
  toLineItems(): LineItem[] {
    return [...this.lines.values()].map(({ product, quantity }) => ({
      sku: product.sku,
      quantity,
      unit_price_cents: product.unitPriceCents,
    }));
  }

  clear(): void {
    this.lines.clear();
  }
}
