"""Transactional outbox: order events written as JSON lines for the Go worker."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from api.models import Order
from api.orders.state_machine import StateChange

EVENT_TYPES = {
    "paid": "order.paid",
    "payment_failed": "order.payment_failed",
    "cancelled": "order.cancelled",
    "expired": "order.expired",
    "refunded": "order.refunded",
    "shipped": "order.shipped",
}


@dataclass(frozen=True)
class OutboxEvent:
    """One message for the queue; ``key`` keeps an order's events in order."""

    type: str
    key: str
    payload: dict[str, Any]
    occurred_at: float

    def to_json(self) -> str:
        """Serialize as one compact JSON line."""
        return json.dumps({"type": self.type, "key": self.key, "payload": self.payload,
                           "occurred_at": self.occurred_at}, sort_keys=True, separators=(",", ":"))


@dataclass
class Outbox:
    """Collects events in memory and optionally appends them to a file."""

    path: str | None = None
    events: list[OutboxEvent] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def publish(self, event: OutboxEvent) -> None:
        """Record an event (and append it to the outbox file if configured)."""
        with self._lock:
            self.events.append(event)
            if self.path:
                os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(event.to_json() + "\n")

    def of_type(self, event_type: str) -> list[OutboxEvent]:
        """Events of one type, in publication order."""
        return [event for event in self.events if event.type == event_type]


def event_for_transition(order: Order, change: StateChange) -> OutboxEvent | None:
    """Map a state change to the outbox event the worker cares about, if any."""
    event_type = EVENT_TYPES.get(change.to_state.value)
    if event_type is None:
        return None
    payload = {
        "order_id": order.id,
        "customer_id": order.customer_id,
        "from": change.from_state.value,
        "to": change.to_state.value,
        "reason": change.reason,
        "total_cents": order.total_cents,
        "currency": order.currency,
        "reservation_id": order.reservation_id,
    }
    return OutboxEvent(event_type, order.id, payload, change.at)
