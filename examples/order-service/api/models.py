"""Domain dataclasses: orders, line items, payment callbacks and reservations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.errors import ValidationError
from api.orders.state_machine import OrderState, StateChange

MAX_QUANTITY_PER_LINE = 99


@dataclass(frozen=True)
class LineItem:
    """One product line of an order; prices are in minor units (cents)."""

    sku: str
    quantity: int
    unit_price_cents: int

    def __post_init__(self) -> None:
        if not self.sku:
            raise ValidationError("line item without sku")
        if not 0 < self.quantity <= MAX_QUANTITY_PER_LINE:
            raise ValidationError(f"sku {self.sku}: quantity must be 1..{MAX_QUANTITY_PER_LINE}")
        if self.unit_price_cents < 0:
            raise ValidationError(f"sku {self.sku}: negative price")

    @property
    def total_cents(self) -> int:
        """Quantity times unit price."""
        return self.quantity * self.unit_price_cents

    def to_dict(self) -> dict[str, Any]:
        """Serialize for storage and API responses."""
        return {"sku": self.sku, "quantity": self.quantity,
                "unit_price_cents": self.unit_price_cents}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LineItem":
        """Build a line item from a request or storage dict."""
        try:
            return cls(str(data["sku"]), int(data["quantity"]), int(data["unit_price_cents"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(f"malformed line item: {data!r}") from exc


@dataclass
class Order:
    """An order and everything the service knows about it."""

    id: str
    customer_id: str
    items: list[LineItem]
    currency: str
    subtotal_cents: int
    tax_cents: int
    created_at: float
    state: OrderState = OrderState.PENDING_PAYMENT
    updated_at: float = 0.0
    paid_at: float | None = None
    closed_at: float | None = None
    payment_id: str | None = None
    reservation_id: str | None = None
    history: list[StateChange] = field(default_factory=list)

    @property
    def total_cents(self) -> int:
        """Amount the customer has to pay."""
        return self.subtotal_cents + self.tax_cents

    @property
    def awaiting_payment(self) -> bool:
        """True while a payment callback can still settle the order."""
        return self.state in (OrderState.PENDING_PAYMENT, OrderState.PAYMENT_FAILED)

    def to_dict(self) -> dict[str, Any]:
        """Serialize the full order, history included."""
        return {
            "id": self.id,
            "customer_id": self.customer_id,
            "items": [item.to_dict() for item in self.items],
            "currency": self.currency,
            "subtotal_cents": self.subtotal_cents,
            "tax_cents": self.tax_cents,
            "total_cents": self.total_cents,
            "state": self.state.value,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "paid_at": self.paid_at,
            "closed_at": self.closed_at,
            "payment_id": self.payment_id,
            "reservation_id": self.reservation_id,
            "history": [change.to_dict() for change in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Order":
        """Inverse of ``to_dict`` (``total_cents`` is derived, not read)."""
        return cls(
            id=data["id"],
            customer_id=data["customer_id"],
            items=[LineItem.from_dict(item) for item in data["items"]],
            currency=data["currency"],
            subtotal_cents=int(data["subtotal_cents"]),
            tax_cents=int(data["tax_cents"]),
            created_at=float(data["created_at"]),
            state=OrderState(data["state"]),
            updated_at=float(data.get("updated_at") or data["created_at"]),
            paid_at=data.get("paid_at"),
            closed_at=data.get("closed_at"),
            payment_id=data.get("payment_id"),
            reservation_id=data.get("reservation_id"),
            history=[StateChange.from_dict(c) for c in data.get("history", [])],
        )


@dataclass(frozen=True)
class PaymentCallback:
    """A parsed, signature-checked notification from the payment provider."""

    event_id: str
    order_id: str
    payment_id: str
    status: str  # "succeeded" | "failed" | "cancelled" | "refunded"
    amount_cents: int
    currency: str
    created_at: float
    failure_reason: str = ""


@dataclass
class Reservation:
    """Stock held for an order until it is paid, cancelled or expired."""

    id: str
    order_id: str
    lines: dict[str, int]
    created_at: float
    released_at: float | None = None
    release_reason: str = ""

    @property
    def active(self) -> bool:
        """True until the reservation has been released."""
        return self.released_at is None
