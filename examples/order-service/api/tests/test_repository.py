import pytest

from api.errors import OrderNotFound
from api.orders.state_machine import OrderState
from api.storage.idempotency import IdempotencyStore
from api.storage.repository import JsonFileOrderRepository


def test_json_repository_round_trip(tmp_path, order):
    repo = JsonFileOrderRepository(tmp_path)
    repo.save(order)
    assert repo.get(order.id) == order
    assert [o.id for o in repo.list_by_state([OrderState.PENDING_PAYMENT])] == [order.id]
    assert list(repo.list_by_state([OrderState.PAID])) == []


def test_json_repository_rejects_path_tricks(tmp_path):
    repo = JsonFileOrderRepository(tmp_path)
    with pytest.raises(OrderNotFound):
        repo.get("../etc/passwd")
    with pytest.raises(OrderNotFound):
        repo.get("ord_missing")


def test_in_memory_repository_returns_copies(services, order):
    copy = services.orders.get(order.id)
    copy.state = OrderState.PAID
    assert services.orders.get(order.id).state is OrderState.PENDING_PAYMENT


def test_idempotency_claim_release_complete(clock):
    store = IdempotencyStore(clock, retention_seconds=60)
    assert store.claim("evt_1")
    assert not store.claim("evt_1")
    store.release("evt_1")
    assert store.claim("evt_1")
    store.complete("evt_1", {"outcome": "applied"})
    store.release("evt_1")  # completed entries survive a release
    assert store.result_for("evt_1") == {"outcome": "applied"}
    clock.advance(61)
    assert store.purge_expired() == 1
    assert store.claim("evt_1")
