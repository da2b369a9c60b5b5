/** The checkout button and the message under it, driven by the checkout step. */

import { h } from "./jsx";
import type { CheckoutStep } from "../checkout/flow";
import { stateLabel } from "../orders/status";

function buttonText(step: CheckoutStep): string {
  switch (step.kind) {
    case "placing":
      return "Placing order…";
    case "redirecting":
      return "Redirecting to payment…";
    case "awaiting_payment":
      return "Confirming payment…";
    default:
      return "Pay now";
  }
}

export function CheckoutButton(props: { step: CheckoutStep; totalLabel: string }) {
  const { step } = props;
  const busy = step.kind === "placing" || step.kind === "redirecting" || step.kind === "awaiting_payment";
  return (
    <div className="checkout">
      <button type="submit" disabled={busy} aria-busy={busy}>
        {buttonText(step)} · {props.totalLabel}
      </button>
      {step.kind === "failed" && (
        <p className="error" role="alert">
          {step.message}
        </p>
      )}
      {step.kind === "done" && <p className="result">{stateLabel(step.status.state)}</p>}
    </div>
  );
}
