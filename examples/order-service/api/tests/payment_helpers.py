"""Helpers to build signed payment provider callbacks in tests."""

from __future__ import annotations

import json

from api.models import Order
from api.payments.signature import SIGNATURE_HEADER, sign_payload
from api.tests import WEBHOOK_SECRET


def callback_body(order: Order, status: str, *, event_id: str = "evt_1",
                  amount: int | None = None, currency: str | None = None,
                  created: float = 1_700_000_000.0, failure_reason: str = "") -> bytes:
    """Build a provider callback body for ``order``."""
    data = {
        "order_id": order.id,
        "payment_id": "pay_" + order.id,
        "status": status,
        "amount": order.total_cents if amount is None else amount,
        "currency": currency or order.currency,
    }
    if failure_reason:
        data["failure_reason"] = failure_reason
    return json.dumps({"id": event_id, "created": created, "data": data}).encode()


def signed_headers(body: bytes, timestamp: int = 1_700_000_000, secret: str = WEBHOOK_SECRET) -> dict[str, str]:
    """Headers carrying a valid signature for ``body``."""
    return {SIGNATURE_HEADER: sign_payload(secret, timestamp, body)}
