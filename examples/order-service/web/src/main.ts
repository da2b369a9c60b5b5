/** Browser entry point: wires the cart, the API client and the checkout flow. */

import { OrdersClient } from "./api/client";
import { Cart, type Product } from "./checkout/cart";
import { CheckoutFlow } from "./checkout/flow";
import { orderIdFromReturnUrl } from "./checkout/payment";
import { CheckoutButton } from "./components/CheckoutButton";
import { renderToString } from "./components/jsx";
import { formatMoney } from "./utils/money";

const CATALOG: Product[] = [
  { sku: "MUG-01", name: "Enamel mug", unitPriceCents: 1250 },
  { sku: "TEE-M", name: "T-shirt (M)", unitPriceCents: 1900 },
];

export function mount(root: HTMLElement, apiBase = "/api"): CheckoutFlow {
  const client = new OrdersClient(apiBase);
  const cart = new Cart("EUR");
  const flow = new CheckoutFlow(
    client,
    { providerUrl: "https://pay.example.com", publishableKey: "pk_test_demo", returnUrl: `${location.origin}/checkout/return` },
    (url) => location.assign(url),
  );

  const render = () => {
    const total = formatMoney(cart.estimatedTotalCents, cart.currency);
    root.innerHTML = renderToString(CheckoutButton({ step: flow.current, totalLabel: total }));
  };
  flow.subscribe(render);

  root.addEventListener("submit", (event) => {
    event.preventDefault();
    void flow.startCheckout(cart, root.dataset.customerId ?? "guest");
  });
  root.addEventListener("click", (event) => {
    const sku = (event.target as HTMLElement).dataset.addSku;
    const product = CATALOG.find((p) => p.sku === sku);
    if (product) {
      cart.add(product);
      render();
    }
  });

  const returning = orderIdFromReturnUrl(location.href);
  if (returning) {
    void flow.awaitPayment(returning);
  }
  render();
  return flow;
}
