"""The order lifecycle as an explicit state machine.

Every state change of an order goes through ``OrderStateMachine.transition``,
which checks the move against ``ALLOWED_TRANSITIONS``, records it in the
order history and notifies listeners (the outbox, metrics).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Callable

from api.clock import Clock, SystemClock
from api.errors import InvalidTransition

if TYPE_CHECKING:
    from api.models import Order


class OrderState(str, Enum):
    """Where an order is in its lifecycle."""

    PENDING_PAYMENT = "pending_payment"
    PAYMENT_FAILED = "payment_failed"
    PAID = "paid"
    FULFILLING = "fulfilling"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    REFUNDED = "refunded"

    @property
    def is_terminal(self) -> bool:
        """True when no further transition is possible."""
        return not ALLOWED_TRANSITIONS.get(self)

    @property
    def holds_stock(self) -> bool:
        """True while the order keeps a stock reservation."""
        return self in (OrderState.PENDING_PAYMENT, OrderState.PAID, OrderState.FULFILLING)


ALLOWED_TRANSITIONS: dict[OrderState, frozenset[OrderState]] = {
    OrderState.PENDING_PAYMENT: frozenset({
        OrderState.PAID, OrderState.PAYMENT_FAILED, OrderState.CANCELLED, OrderState.EXPIRED,
    }),
    # A failed payment releases the stock; the customer may retry until the order expires.
    OrderState.PAYMENT_FAILED: frozenset({
        OrderState.PENDING_PAYMENT, OrderState.CANCELLED, OrderState.EXPIRED,
    }),
    OrderState.PAID: frozenset({OrderState.FULFILLING, OrderState.CANCELLED, OrderState.REFUNDED}),
    OrderState.FULFILLING: frozenset({OrderState.SHIPPED, OrderState.CANCELLED}),
    OrderState.SHIPPED: frozenset({OrderState.DELIVERED}),
    OrderState.DELIVERED: frozenset({OrderState.REFUNDED}),
    OrderState.CANCELLED: frozenset(),
    OrderState.EXPIRED: frozenset(),
    OrderState.REFUNDED: frozenset(),
}


@dataclass(frozen=True)
class StateChange:
    """One recorded move of an order from one state to another."""

    from_state: OrderState
    to_state: OrderState
    at: float
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        """Serialize for storage and API responses."""
        return {"from": self.from_state.value, "to": self.to_state.value,
                "at": self.at, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict) -> "StateChange":
        """Inverse of ``to_dict``."""
        return cls(OrderState(data["from"]), OrderState(data["to"]),
                   float(data["at"]), data.get("reason", ""))


TransitionListener = Callable[["Order", StateChange], None]


class OrderStateMachine:
    """Applies and records order state transitions."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self._listeners: list[TransitionListener] = []

    def on_transition(self, listener: TransitionListener) -> None:
        """Register a callback invoked after every successful transition."""
        self._listeners.append(listener)

    @staticmethod
    def can_transition(from_state: OrderState, to_state: OrderState) -> bool:
        """Tell whether the lifecycle allows moving from ``from_state`` to ``to_state``."""
        return to_state in ALLOWED_TRANSITIONS.get(from_state, frozenset())

    def transition(self, order: "Order", to_state: OrderState, reason: str = "") -> StateChange:
        """Move ``order`` to ``to_state`` or raise ``InvalidTransition``.

        The order is mutated in place: its state, ``updated_at``, the
        timestamps tied to particular states and its history.
        """
        from_state = order.state
        if not self.can_transition(from_state, to_state):
            raise InvalidTransition(order.id, from_state.value, to_state.value)
        now = self._clock.now()
        change = StateChange(from_state, to_state, now, reason)
        order.state = to_state
        order.updated_at = now
        if to_state is OrderState.PAID:
            order.paid_at = now
        elif to_state.is_terminal:
            order.closed_at = now
        order.history.append(change)
        for listener in self._listeners:
            listener(order, change)
        return change

    def ensure_state(self, order: "Order", *expected: OrderState) -> None:
        """Raise ``InvalidTransition`` unless the order is in one of ``expected``."""
        if order.state not in expected:
            wanted = "|".join(s.value for s in expected)
            raise InvalidTransition(order.id, order.state.value, wanted)
