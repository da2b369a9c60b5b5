"""Order use cases: place, cancel, fulfil and ship orders."""

from __future__ import annotations

import logging
from typing import Any, Iterable

from api.app import Services
from api.errors import ValidationError
from api.inventory.rollback import rollback_for_order
from api.models import LineItem, Order
from api.orders.pricing import compute_totals
from api.orders.state_machine import OrderState

log = logging.getLogger(__name__)

MAX_LINES_PER_ORDER = 50


def parse_items(raw_items: Any) -> list[LineItem]:
    """Validate the ``items`` array of a create-order request."""
    if not isinstance(raw_items, list) or not raw_items:
        raise ValidationError("items must be a non-empty list")
    if len(raw_items) > MAX_LINES_PER_ORDER:
        raise ValidationError(f"at most {MAX_LINES_PER_ORDER} lines per order")
    return [LineItem.from_dict(raw) for raw in raw_items]


def place_order(services: Services, customer_id: str, items: Iterable[LineItem]) -> Order:
    """Create an order awaiting payment and reserve its stock."""
    items = list(items)
    if not customer_id:
        raise ValidationError("customer_id is required")
    totals = compute_totals(items, services.settings.tax_rate_bp)
    now = services.clock.now()
    order = Order(
        id=services.ids.new("ord"),
        customer_id=customer_id,
        items=items,
        currency=services.settings.currency,
        subtotal_cents=totals.subtotal_cents,
        tax_cents=totals.tax_cents,
        created_at=now,
        updated_at=now,
    )
    reservation = services.inventory.reserve(order.id, items)
    order.reservation_id = reservation.id
    services.orders.save(order)
    log.info("placed order %s for %s (%d lines)", order.id, customer_id, len(items))
    return order


def cancel_order(services: Services, order_id: str, reason: str = "customer request") -> Order:
    """Cancel an order that has not shipped and give its stock back."""
    order = services.orders.get(order_id)
    services.machine.transition(order, OrderState.CANCELLED, reason=reason)
    rollback_for_order(services.inventory, order, reason="cancelled")
    services.orders.save(order)
    return order


def start_fulfilment(services: Services, order_id: str) -> Order:
    """Hand a paid order to the warehouse."""
    order = services.orders.get(order_id)
    services.machine.transition(order, OrderState.FULFILLING, reason="picked")
    services.orders.save(order)
    return order


def mark_shipped(services: Services, order_id: str, tracking_code: str) -> Order:
    """Record the shipment and consume the reserved stock."""
    if not tracking_code:
        raise ValidationError("tracking_code is required")
    order = services.orders.get(order_id)
    services.machine.transition(order, OrderState.SHIPPED, reason=f"tracking {tracking_code}")
    if order.reservation_id:
        services.inventory.commit(order.reservation_id)
    services.orders.save(order)
    return order


def retry_payment(services: Services, order_id: str) -> Order:
    """Reopen an order whose payment failed: reserve its stock again."""
    order = services.orders.get(order_id)
    services.machine.ensure_state(order, OrderState.PAYMENT_FAILED)
    reservation = services.inventory.reserve(order.id, order.items)
    order.reservation_id = reservation.id
    services.machine.transition(order, OrderState.PENDING_PAYMENT, reason="payment retry")
    services.orders.save(order)
    return order
