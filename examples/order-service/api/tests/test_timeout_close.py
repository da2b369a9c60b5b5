from api.jobs.runner import run_periodically
from api.jobs.timeout_close import close_expired_orders, find_expired_orders
from api.models import LineItem
from api.orders.service import place_order
from api.orders.state_machine import OrderState

import threading


def test_recent_orders_are_left_alone(services, order, clock):
    clock.advance(1799)
    report = close_expired_orders(services)
    assert report.expired == []
    assert services.orders.get(order.id).state is OrderState.PENDING_PAYMENT


def test_overdue_order_expires(services, order, clock):
    clock.advance(1800)
    report = close_expired_orders(services)
    assert report.expired == [order.id]
    stored = services.orders.get(order.id)
    assert stored.state is OrderState.EXPIRED
    assert stored.history[-1].reason == "payment timeout"
    assert services.outbox.of_type("order.expired")


def test_expired_order_releases_reserved_stock(services, order, clock):
    clock.advance(3600)
    report = close_expired_orders(services)
    assert report.released_units == 3
    assert services.inventory.available("MUG-01") == 10
    assert services.inventory.available("TEE-M") == 5


def test_paid_orders_never_expire(services, order, clock):
    stored = services.orders.get(order.id)
    services.machine.transition(stored, OrderState.PAID)
    services.orders.save(stored)
    clock.advance(10 * 3600)
    assert list(find_expired_orders(services, clock.now())) == []


def test_limit_caps_one_run(services, order, clock):
    second = place_order(services, "cus_7", [LineItem("MUG-01", 1, 1250)])
    clock.advance(3600)
    first_run = close_expired_orders(services, limit=1)
    second_run = close_expired_orders(services, limit=1)
    assert len(first_run.expired) == 1
    assert set(first_run.expired + second_run.expired) == {order.id, second.id}


def test_runner_survives_a_failing_job():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")

    runs = run_periodically(flaky, 0, threading.Event(), max_runs=3)
    assert runs == 3
    assert len(calls) == 3
