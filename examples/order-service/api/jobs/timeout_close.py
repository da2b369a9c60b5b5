"""Closing orders that were never paid.

An order waiting for payment longer than ``unpaid_timeout_seconds`` is
moved to EXPIRED and its stock reservation is rolled back. The Go worker
runs the same policy against the shared store; both are safe to run at
once because expiry goes through the state machine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Iterator

from api.app import Services
from api.errors import InvalidTransition
from api.inventory.rollback import rollback_reservation
from api.models import Order
from api.orders.state_machine import OrderState

log = logging.getLogger(__name__)

UNPAID_STATES = (OrderState.PENDING_PAYMENT, OrderState.PAYMENT_FAILED)


@dataclass
class CloseReport:
    """Summary of one run of the timeout-close job."""

    scanned: int = 0
    expired: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    released_units: int = 0

    def summary(self) -> str:
        """One log line describing the run."""
        return (f"scanned={self.scanned} expired={len(self.expired)} "
                f"skipped={len(self.skipped)} released_units={self.released_units}")


def payment_deadline(order: Order, timeout_seconds: int) -> float:
    """Moment after which an unpaid order expires."""
    return order.created_at + timeout_seconds


def find_expired_orders(services: Services, now: float) -> Iterator[Order]:
    """Yield unpaid orders whose payment deadline has passed."""
    timeout = services.settings.unpaid_timeout_seconds
    for order in services.orders.list_by_state(UNPAID_STATES):
        if now >= payment_deadline(order, timeout):
            yield order


def close_expired_orders(services: Services, now: float | None = None,
                         limit: int | None = None) -> CloseReport:
    """Expire overdue unpaid orders and release their stock.

    ``limit`` caps the number of orders closed per run so one huge backlog
    does not hold the job for minutes.
    """
    now = services.clock.now() if now is None else now
    report = CloseReport()
    for order in find_expired_orders(services, now):
        report.scanned += 1
        if limit is not None and len(report.expired) >= limit:
            break
        try:
            services.machine.transition(order, OrderState.EXPIRED, reason="payment timeout")
        except InvalidTransition:
            # A callback or a cancellation got there first.
            report.skipped.append(order.id)
            continue
        if order.reservation_id:
            result = rollback_reservation(services.inventory, order.reservation_id, reason="expired")
            report.released_units += sum(result.released.values())
        services.orders.save(order)
        report.expired.append(order.id)
    log.info("timeout close: %s", report.summary())
    return report
