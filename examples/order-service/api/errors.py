"""Exception hierarchy of the order service; HTTP handlers map these to status codes."""

from __future__ import annotations


class OrderServiceError(Exception):
    """Base class for every error the service raises on purpose."""

    status_code = 500
    code = "internal_error"

    def to_dict(self) -> dict[str, str]:
        """Serialize the error for an HTTP response body."""
        return {"error": self.code, "message": str(self)}


class ConfigError(OrderServiceError):
    """The service is misconfigured and cannot start."""

    code = "config_error"


class ValidationError(OrderServiceError):
    """A request body or parameter is malformed."""

    status_code = 400
    code = "validation_error"


class OrderNotFound(OrderServiceError):
    """No order exists with the given id."""

    status_code = 404
    code = "order_not_found"

    def __init__(self, order_id: str) -> None:
        super().__init__(f"order {order_id} not found")
        self.order_id = order_id


class InvalidTransition(OrderServiceError):
    """The order state machine does not allow moving between two states."""

    status_code = 409
    code = "invalid_transition"

    def __init__(self, order_id: str, from_state: str, to_state: str) -> None:
        super().__init__(f"order {order_id}: cannot go from {from_state} to {to_state}")
        self.order_id = order_id
        self.from_state = from_state
        self.to_state = to_state


class SignatureMismatch(OrderServiceError):
    """A payment callback carries a missing, stale or wrong signature."""

    status_code = 401
    code = "bad_signature"


class PaymentMismatch(OrderServiceError):
    """A payment callback does not match the order (amount, currency, payment id)."""

    status_code = 422
    code = "payment_mismatch"


class InsufficientStock(OrderServiceError):
    """Not enough units are available to reserve an order's line items."""

    status_code = 409
    code = "insufficient_stock"

    def __init__(self, sku: str, requested: int, available: int) -> None:
        super().__init__(f"sku {sku}: requested {requested}, only {available} available")
        self.sku = sku
        self.requested = requested
        self.available = available


class ReservationNotFound(OrderServiceError):
    """No stock reservation exists with the given id."""

    status_code = 404
    code = "reservation_not_found"
