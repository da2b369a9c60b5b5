"""HTTP handlers as plain functions from a ``Request`` to a ``Response``.

Handlers know nothing about sockets; ``api.server.httpd`` adapts them to
``http.server`` and the tests call them directly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from api.app import Services
from api.errors import OrderServiceError, ValidationError
from api.orders import service as order_service
from api.payments.callbacks import handle_payment_callback

JSON_TYPE = "application/json"


@dataclass(frozen=True)
class Request:
    """The parts of an HTTP request the handlers use."""

    method: str
    path: str
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)

    def json(self) -> dict[str, Any]:
        """Decode the body as a JSON object or raise ``ValidationError``."""
        try:
            data = json.loads(self.body or b"{}")
        except ValueError as exc:
            raise ValidationError(f"invalid JSON body: {exc}") from exc
        if not isinstance(data, dict):
            raise ValidationError("JSON body must be an object")
        return data


@dataclass(frozen=True)
class Response:
    """Status, JSON-serializable body and extra headers."""

    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        """Serialize the body as UTF-8 JSON."""
        return json.dumps(self.body, sort_keys=True).encode("utf-8")


def error_response(error: OrderServiceError) -> Response:
    """Map a service error to its HTTP status and JSON body."""
    return Response(error.status_code, error.to_dict())


def create_order(services: Services, request: Request) -> Response:
    """POST /orders — place an order and reserve stock."""
    data = request.json()
    items = order_service.parse_items(data.get("items"))
    order = order_service.place_order(services, str(data.get("customer_id", "")), items)
    return Response(201, order.to_dict(), {"Location": f"/orders/{order.id}"})


def get_order(services: Services, request: Request) -> Response:
    """GET /orders/{order_id} — the full order."""
    order = services.orders.get(request.params["order_id"])
    return Response(200, order.to_dict())


def get_order_status(services: Services, request: Request) -> Response:
    """GET /orders/{order_id}/status — a cheap payload for front-end polling."""
    order = services.orders.get(request.params["order_id"])
    body = {"id": order.id, "state": order.state.value, "updated_at": order.updated_at,
            "terminal": order.state.is_terminal}
    return Response(200, body, {"Cache-Control": "no-store"})


def cancel_order(services: Services, request: Request) -> Response:
    """POST /orders/{order_id}/cancel — cancel and release stock."""
    reason = str(request.json().get("reason") or "customer request")
    order = order_service.cancel_order(services, request.params["order_id"], reason)
    return Response(200, order.to_dict())


def retry_payment(services: Services, request: Request) -> Response:
    """POST /orders/{order_id}/retry — reopen an order after a failed payment."""
    order = order_service.retry_payment(services, request.params["order_id"])
    return Response(200, order.to_dict())


def ship_order(services: Services, request: Request) -> Response:
    """POST /orders/{order_id}/ship — record the shipment."""
    tracking = str(request.json().get("tracking_code", ""))
    order = order_service.mark_shipped(services, request.params["order_id"], tracking)
    return Response(200, order.to_dict())


def payment_callback(services: Services, request: Request) -> Response:
    """POST /payments/callback — the provider's webhook."""
    result = handle_payment_callback(services, request.body, request.headers)
    return Response(200, result.to_dict())


def health(services: Services, request: Request) -> Response:
    """GET /healthz — liveness probe."""
    return Response(200, {"status": "ok", "time": services.clock.now()})
