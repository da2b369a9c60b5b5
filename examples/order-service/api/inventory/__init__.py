"""Stock levels, reservations and their rollback."""

from api.inventory.rollback import RollbackResult, rollback_reservation
from api.inventory.stock import InventoryLedger

__all__ = ["InventoryLedger", "RollbackResult", "rollback_reservation"]
