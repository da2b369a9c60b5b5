/** A coloured badge showing an order's state. */

import { h } from "./jsx";
import { stateLabel, stateTone } from "../orders/status";
import type { OrderState } from "../types/order";

export function StatusBadge(props: { state: OrderState }) {
  return (
    <span className={`badge badge-${stateTone(props.state)}`} data-state={props.state}>
      {stateLabel(props.state)}
    </span>
  );
}
