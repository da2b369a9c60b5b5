"""The inventory ledger: units on hand and units reserved per SKU."""

from __future__ import annotations

import threading
from typing import Iterable

from api.clock import Clock, SystemClock
from api.errors import InsufficientStock, ReservationNotFound, ValidationError
from api.ids import IdGenerator
from api.models import LineItem, Reservation


class InventoryLedger:
    """Tracks stock per SKU and the reservations held against it.

    Available stock is ``on_hand - reserved``. A reservation is all or
    nothing: if one line cannot be covered, nothing is reserved.
    """

    def __init__(self, clock: Clock | None = None, ids: IdGenerator | None = None) -> None:
        self._clock = clock or SystemClock()
        self._ids = ids or IdGenerator()
        self._on_hand: dict[str, int] = {}
        self._reserved: dict[str, int] = {}
        self._reservations: dict[str, Reservation] = {}
        self._lock = threading.RLock()

    def restock(self, sku: str, quantity: int) -> int:
        """Add ``quantity`` units of ``sku``; return the new on-hand count."""
        if quantity <= 0:
            raise ValidationError("restock quantity must be positive")
        with self._lock:
            self._on_hand[sku] = self._on_hand.get(sku, 0) + quantity
            return self._on_hand[sku]

    def available(self, sku: str) -> int:
        """Units of ``sku`` that can still be reserved."""
        with self._lock:
            return self._on_hand.get(sku, 0) - self._reserved.get(sku, 0)

    def reserve(self, order_id: str, items: Iterable[LineItem]) -> Reservation:
        """Reserve stock for every line of an order, or raise ``InsufficientStock``."""
        wanted: dict[str, int] = {}
        for item in items:
            wanted[item.sku] = wanted.get(item.sku, 0) + item.quantity
        with self._lock:
            for sku, quantity in sorted(wanted.items()):
                if self.available(sku) < quantity:
                    raise InsufficientStock(sku, quantity, self.available(sku))
            for sku, quantity in wanted.items():
                self._reserved[sku] = self._reserved.get(sku, 0) + quantity
            reservation = Reservation(
                id=self._ids.new("res"), order_id=order_id,
                lines=wanted, created_at=self._clock.now(),
            )
            self._reservations[reservation.id] = reservation
            return reservation

    def get_reservation(self, reservation_id: str) -> Reservation:
        """Look up a reservation or raise ``ReservationNotFound``."""
        with self._lock:
            try:
                return self._reservations[reservation_id]
            except KeyError:
                raise ReservationNotFound(f"reservation {reservation_id} not found") from None

    def release(self, reservation_id: str, reason: str) -> Reservation:
        """Return the reserved units to available stock (idempotent)."""
        with self._lock:
            reservation = self.get_reservation(reservation_id)
            if not reservation.active:
                return reservation
            for sku, quantity in reservation.lines.items():
                self._reserved[sku] -= quantity
            reservation.released_at = self._clock.now()
            reservation.release_reason = reason
            return reservation

    def commit(self, reservation_id: str) -> None:
        """Turn a reservation into a shipment: units leave the warehouse for good."""
        with self._lock:
            reservation = self.get_reservation(reservation_id)
            if not reservation.active:
                raise ReservationNotFound(f"reservation {reservation_id} already released")
            for sku, quantity in reservation.lines.items():
                self._reserved[sku] -= quantity
                self._on_hand[sku] -= quantity
            reservation.released_at = self._clock.now()
            reservation.release_reason = "shipped"
