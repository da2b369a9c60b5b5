"""Handling payment provider callbacks.

A callback is verified, parsed, de-duplicated by event id and then applied
to the order through the state machine. Failed and cancelled payments roll
back the stock reservation.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Mapping

from api.app import Services
from api.errors import PaymentMismatch, ValidationError
from api.inventory.rollback import rollback_reservation
from api.models import Order, PaymentCallback
from api.orders.state_machine import OrderState
from api.payments.signature import SIGNATURE_HEADER, verify_signature

log = logging.getLogger(__name__)

KNOWN_STATUSES = ("succeeded", "failed", "cancelled", "refunded")


@dataclass(frozen=True)
class CallbackResult:
    """Outcome reported back to the provider (and replayed for duplicates)."""

    event_id: str
    order_id: str
    outcome: str  # "applied" | "ignored" | "duplicate"
    order_state: str
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        """Serialize for the HTTP response and the idempotency store."""
        return {"event_id": self.event_id, "order_id": self.order_id, "outcome": self.outcome,
                "order_state": self.order_state, "detail": self.detail}


def parse_callback(body: bytes) -> PaymentCallback:
    """Decode a callback body into a ``PaymentCallback``."""
    try:
        data: dict[str, Any] = json.loads(body)
        callback = PaymentCallback(
            event_id=str(data["id"]),
            order_id=str(data["data"]["order_id"]),
            payment_id=str(data["data"]["payment_id"]),
            status=str(data["data"]["status"]),
            amount_cents=int(data["data"]["amount"]),
            currency=str(data["data"]["currency"]).upper(),
            created_at=float(data["created"]),
            failure_reason=str(data["data"].get("failure_reason", "")),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValidationError(f"malformed payment callback: {exc}") from exc
    if callback.status not in KNOWN_STATUSES:
        raise ValidationError(f"unknown payment status {callback.status!r}")
    return callback


def check_amount(order: Order, callback: PaymentCallback) -> None:
    """Reject a successful payment that does not cover the order exactly."""
    if callback.currency != order.currency or callback.amount_cents != order.total_cents:
        raise PaymentMismatch(
            f"order {order.id} expects {order.total_cents} {order.currency}, "
            f"payment {callback.payment_id} carries {callback.amount_cents} {callback.currency}"
        )


def _apply_succeeded(services: Services, order: Order, callback: PaymentCallback) -> str:
    if order.state is OrderState.PAID and order.payment_id == callback.payment_id:
        return "ignored"
    if order.state is not OrderState.PENDING_PAYMENT:
        # Paid after failure, expiry or cancellation: the stock is gone.
        log.error("payment %s for closed order %s (%s): refund needed",
                  callback.payment_id, order.id, order.state.value)
        return "ignored"
    check_amount(order, callback)
    order.payment_id = callback.payment_id
    services.machine.transition(order, OrderState.PAID, reason=f"payment {callback.payment_id}")
    return "applied"


def _apply_failed(services: Services, order: Order, callback: PaymentCallback) -> str:
    if order.state is not OrderState.PENDING_PAYMENT:
        return "ignored"
    reason = callback.failure_reason or "payment failed"
    services.machine.transition(order, OrderState.PAYMENT_FAILED, reason=reason)
    if order.reservation_id:
        rollback_reservation(services.inventory, order.reservation_id, reason="payment_failed")
    return "applied"


def _apply_cancelled(services: Services, order: Order, callback: PaymentCallback) -> str:
    if not order.awaiting_payment:
        return "ignored"
    services.machine.transition(order, OrderState.CANCELLED, reason="payment cancelled")
    if order.reservation_id:
        rollback_reservation(services.inventory, order.reservation_id, reason="cancelled")
    return "applied"


def _apply_refunded(services: Services, order: Order, callback: PaymentCallback) -> str:
    if order.state is OrderState.REFUNDED:
        return "ignored"
    services.machine.transition(order, OrderState.REFUNDED, reason=f"refund {callback.payment_id}")
    if order.reservation_id:
        rollback_reservation(services.inventory, order.reservation_id, reason="refunded")
    return "applied"


_APPLIERS = {
    "succeeded": _apply_succeeded,
    "failed": _apply_failed,
    "cancelled": _apply_cancelled,
    "refunded": _apply_refunded,
}


def handle_payment_callback(services: Services, body: bytes,
                            headers: Mapping[str, str]) -> CallbackResult:
    """Verify, de-duplicate and apply one payment provider callback.

    A repeated event id returns the stored result of the first delivery
    without touching the order again. If applying fails, the claim on the
    event id is released so the provider's retry is processed afresh.
    """
    settings = services.settings
    verify_signature(settings.payment_webhook_secret, body, headers.get(SIGNATURE_HEADER),
                     now=services.clock.now(),
                     tolerance_seconds=settings.callback_tolerance_seconds)
    callback = parse_callback(body)

    if not services.idempotency.claim(callback.event_id):
        previous = services.idempotency.result_for(callback.event_id) or {}
        return CallbackResult(callback.event_id, callback.order_id, "duplicate",
                              previous.get("order_state", ""), "already processed")
    try:
        order = services.orders.get(callback.order_id)
        outcome = _APPLIERS[callback.status](services, order, callback)
        if outcome == "applied":
            services.orders.save(order)
    except Exception:
        services.idempotency.release(callback.event_id)
        raise

    result = CallbackResult(callback.event_id, order.id, outcome, order.state.value)
    services.idempotency.complete(callback.event_id, result.to_dict())
    log.info("payment callback %s on order %s: %s -> %s",
             callback.event_id, order.id, callback.status, order.state.value)
    return result
