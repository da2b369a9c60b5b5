/** Money helpers; amounts are integer minor units, like the API. */

const BASIS_POINTS = 10_000;

/** Format cents for display, e.g. formatMoney(5280, "EUR") -> "€52.80". */
export function formatMoney(cents: number, currency: string, locale = "en-IE"): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);
}

/** Tax on a subtotal, rounded half up exactly like api/orders/pricing.py. */
export function taxFor(subtotalCents: number, taxRateBp: number): number {
  return Math.floor((2 * subtotalCents * taxRateBp + BASIS_POINTS) / (2 * BASIS_POINTS));
}
