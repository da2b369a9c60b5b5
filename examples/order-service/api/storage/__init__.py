"""Persistence: order repositories and the idempotency store."""

from api.storage.idempotency import IdempotencyStore
from api.storage.repository import InMemoryOrderRepository, JsonFileOrderRepository, OrderRepository

__all__ = ["IdempotencyStore", "InMemoryOrderRepository", "JsonFileOrderRepository", "OrderRepository"]
