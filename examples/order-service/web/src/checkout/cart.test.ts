import assert from "node:assert/strict";
import { test } from "node:test";

import { Cart, MAX_QUANTITY_PER_LINE } from "./cart";

const mug = { sku: "MUG-01", name: "Enamel mug", unitPriceCents: 1250 };
const tee = { sku: "TEE-M", name: "T-shirt (M)", unitPriceCents: 1900 };

test("totals match the API's pricing", () => {
  const cart = new Cart("EUR");
  cart.add(mug, 2);
  cart.add(tee);
  assert.equal(cart.subtotalCents, 4400);
  assert.equal(cart.estimatedTotalCents, 5280);
});

test("quantities merge and are capped", () => {
  const cart = new Cart("EUR");
  cart.add(mug, 60);
  cart.add(mug, 60);
  assert.deepEqual(cart.toLineItems(), [{ sku: "MUG-01", quantity: MAX_QUANTITY_PER_LINE, unit_price_cents: 1250 }]);
});

test("setting a quantity to zero removes the line", () => {
  const cart = new Cart("EUR");
  cart.add(tee);
  cart.setQuantity("TEE-M", 0);
  assert.ok(cart.isEmpty);
});

test("invalid quantities are rejected", () => {
  assert.throws(() => new Cart("EUR").add(mug, 0), RangeError);
  assert.throws(() => new Cart("EUR").add(mug, 1.5), RangeError);
});
