import pytest

from api.errors import ValidationError
from api.models import LineItem, Order
from api.orders.pricing import compute_totals, format_amount, round_half_up
from api.orders.state_machine import OrderState


def test_line_item_validation():
    with pytest.raises(ValidationError):
        LineItem("MUG-01", 0, 100)
    with pytest.raises(ValidationError):
        LineItem("", 1, 100)
    with pytest.raises(ValidationError):
        LineItem.from_dict({"sku": "MUG-01", "quantity": "many", "unit_price_cents": 1})


def test_totals_round_half_up():
    items = [LineItem("A", 1, 5)]
    assert compute_totals(items, 1000).tax_cents == 1  # 0.5 cent rounds up
    assert round_half_up(5, 10) == 1
    assert round_half_up(4, 10) == 0
    assert compute_totals([LineItem("A", 3, 333)], 2000).tax_cents == 200


def test_order_round_trips_through_dict(order, services):
    services.machine.transition(order, OrderState.PAID, reason="test")
    restored = Order.from_dict(order.to_dict())
    assert restored == order
    assert restored.total_cents == 5280


def test_format_amount():
    assert format_amount(5280, "EUR") == "EUR 52.80"
    assert format_amount(-5, "USD") == "USD -0.05"
