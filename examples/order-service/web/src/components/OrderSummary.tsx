/** Order summary shown after checkout and on the order page. */

import { h, Fragment } from "./jsx";
import { StatusBadge } from "./StatusBadge";
import { canCancel, canRetryPayment } from "../orders/status";
import type { LineItem, Order } from "../types/order";
import { formatMoney } from "../utils/money";

function ItemRow(props: { item: LineItem; currency: string }) {
  const { item, currency } = props;
  return (
    <tr>
      <td>{item.sku}</td>
      <td className="qty">{item.quantity}</td>
      <td className="amount">{formatMoney(item.unit_price_cents * item.quantity, currency)}</td>
    </tr>
  );
}

export function OrderSummary(props: { order: Order }) {
  const { order } = props;
  return (
    <section className="order-summary" data-order-id={order.id}>
      <header>
        <h2>Order {order.id}</h2>
        <StatusBadge state={order.state} />
      </header>
      <table>
        <tbody>
          {order.items.map((item) => (
            <ItemRow item={item} currency={order.currency} />
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td colspan="2">Tax</td>
            <td className="amount">{formatMoney(order.tax_cents, order.currency)}</td>
          </tr>
          <tr className="total">
            <td colspan="2">Total</td>
            <td className="amount">{formatMoney(order.total_cents, order.currency)}</td>
          </tr>
        </tfoot>
      </table>
      <>
        {canRetryPayment(order.state) && <button data-action="retry">Try paying again</button>}
        {canCancel(order.state) && <button data-action="cancel">Cancel order</button>}
      </>
    </section>
  );
}
