"""Rolling back stock reservations when an order will not be fulfilled.

Called on payment failure, on cancellation and when an unpaid order
expires. Rollback must be safe to repeat: callbacks are retried and the
timeout job may race a late cancellation.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from api.errors import ReservationNotFound
from api.inventory.stock import InventoryLedger
from api.models import Order

log = logging.getLogger(__name__)

ROLLBACK_REASONS = frozenset({"payment_failed", "cancelled", "expired", "refunded"})


@dataclass(frozen=True)
class RollbackResult:
    """What a rollback did: released units per SKU, or nothing."""

    reservation_id: str
    released: dict[str, int]
    already_released: bool = False
    missing: bool = False

    @property
    def changed_stock(self) -> bool:
        """True if this call actually returned units to stock."""
        return bool(self.released) and not self.already_released


def rollback_reservation(inventory: InventoryLedger, reservation_id: str, *,
                         reason: str) -> RollbackResult:
    """Release a reservation and report what was returned to stock.

    Unknown reservations are logged, not raised: the order must still be
    able to reach its final state even if the inventory lost track.
    """
    if reason not in ROLLBACK_REASONS:
        raise ValueError(f"unknown rollback reason {reason!r}")
    try:
        reservation = inventory.get_reservation(reservation_id)
    except ReservationNotFound:
        log.warning("rollback of unknown reservation %s (%s)", reservation_id, reason)
        return RollbackResult(reservation_id, {}, missing=True)
    if not reservation.active:
        return RollbackResult(reservation_id, {}, already_released=True)
    inventory.release(reservation_id, reason)
    log.info("released reservation %s for order %s (%s)",
             reservation_id, reservation.order_id, reason)
    return RollbackResult(reservation_id, dict(reservation.lines))


def rollback_for_order(inventory: InventoryLedger, order: Order, *, reason: str) -> RollbackResult | None:
    """Roll back the order's reservation, if it has one."""
    if order.reservation_id is None:
        return None
    return rollback_reservation(inventory, order.reservation_id, reason=reason)
