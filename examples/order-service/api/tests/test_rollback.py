import pytest

from api.inventory.rollback import rollback_for_order, rollback_reservation
from api.models import LineItem
from api.errors import InsufficientStock
from api.orders.service import cancel_order, retry_payment
from api.orders.state_machine import OrderState


def test_rollback_returns_units(services, order):
    result = rollback_reservation(services.inventory, order.reservation_id, reason="cancelled")
    assert result.released == {"MUG-01": 2, "TEE-M": 1}
    assert result.changed_stock
    assert services.inventory.available("MUG-01") == 10


def test_rollback_is_idempotent(services, order):
    rollback_reservation(services.inventory, order.reservation_id, reason="cancelled")
    again = rollback_reservation(services.inventory, order.reservation_id, reason="expired")
    assert again.already_released
    assert not again.changed_stock
    assert services.inventory.available("MUG-01") == 10


def test_unknown_reservation_is_reported_not_raised(services):
    result = rollback_reservation(services.inventory, "res_missing", reason="expired")
    assert result.missing


def test_unknown_reason_is_a_programming_error(services, order):
    with pytest.raises(ValueError):
        rollback_reservation(services.inventory, order.reservation_id, reason="oops")


def test_rollback_for_order_without_reservation(services, order):
    order.reservation_id = None
    assert rollback_for_order(services.inventory, order, reason="cancelled") is None


def test_reservation_is_all_or_nothing(services):
    with pytest.raises(InsufficientStock) as info:
        services.inventory.reserve("ord_x", [LineItem("MUG-01", 1, 100), LineItem("TEE-M", 6, 100)])
    assert info.value.sku == "TEE-M"
    assert services.inventory.available("MUG-01") == 10


def test_cancel_order_rolls_back(services, order):
    cancel_order(services, order.id)
    assert services.orders.get(order.id).state is OrderState.CANCELLED
    assert services.inventory.available("TEE-M") == 5


def test_retry_after_failure_reserves_again(services, order):
    stored = services.orders.get(order.id)
    services.machine.transition(stored, OrderState.PAYMENT_FAILED)
    rollback_for_order(services.inventory, stored, reason="payment_failed")
    services.orders.save(stored)
    reopened = retry_payment(services, order.id)
    assert reopened.state is OrderState.PENDING_PAYMENT
    assert reopened.reservation_id != order.reservation_id
    assert services.inventory.available("MUG-01") == 8
