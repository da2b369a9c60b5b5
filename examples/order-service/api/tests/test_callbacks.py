import pytest

from api.errors import PaymentMismatch, SignatureMismatch, ValidationError
from api.orders.state_machine import OrderState
from api.payments.callbacks import handle_payment_callback, parse_callback
from api.tests.payment_helpers import callback_body, signed_headers


def test_successful_payment_marks_order_paid(services, order):
    body = callback_body(order, "succeeded")
    result = handle_payment_callback(services, body, signed_headers(body))
    assert result.outcome == "applied"
    stored = services.orders.get(order.id)
    assert stored.state is OrderState.PAID
    assert stored.payment_id == "pay_" + order.id
    assert [e.type for e in services.outbox.events] == ["order.paid"]


def test_bad_signature_changes_nothing(services, order):
    body = callback_body(order, "succeeded")
    headers = signed_headers(body, secret="whsec_attacker")
    with pytest.raises(SignatureMismatch):
        handle_payment_callback(services, body, headers)
    assert services.orders.get(order.id).state is OrderState.PENDING_PAYMENT
    assert services.idempotency.result_for("evt_1") is None


def test_duplicate_event_is_applied_once(services, order):
    body = callback_body(order, "succeeded", event_id="evt_dup")
    first = handle_payment_callback(services, body, signed_headers(body))
    second = handle_payment_callback(services, body, signed_headers(body))
    assert first.outcome == "applied"
    assert second.outcome == "duplicate"
    assert second.order_state == "paid"
    assert len(services.outbox.of_type("order.paid")) == 1


def test_amount_mismatch_is_rejected_and_retryable(services, order):
    body = callback_body(order, "succeeded", event_id="evt_short", amount=order.total_cents - 1)
    with pytest.raises(PaymentMismatch):
        handle_payment_callback(services, body, signed_headers(body))
    assert services.orders.get(order.id).state is OrderState.PENDING_PAYMENT
    # The claim was released, so a corrected redelivery is processed.
    assert services.idempotency.claim("evt_short")


def test_currency_mismatch_is_rejected(services, order):
    body = callback_body(order, "succeeded", currency="USD")
    with pytest.raises(PaymentMismatch):
        handle_payment_callback(services, body, signed_headers(body))


def test_failed_payment_releases_stock(services, order):
    assert services.inventory.available("MUG-01") == 8
    body = callback_body(order, "failed", failure_reason="card_declined")
    result = handle_payment_callback(services, body, signed_headers(body))
    assert result.order_state == "payment_failed"
    assert services.inventory.available("MUG-01") == 10
    assert services.orders.get(order.id).history[-1].reason == "card_declined"


def test_cancelled_payment_cancels_order(services, order):
    body = callback_body(order, "cancelled")
    handle_payment_callback(services, body, signed_headers(body))
    assert services.orders.get(order.id).state is OrderState.CANCELLED
    assert services.inventory.available("TEE-M") == 5


def test_late_success_after_expiry_is_ignored(services, order):
    stored = services.orders.get(order.id)
    services.machine.transition(stored, OrderState.EXPIRED, reason="payment timeout")
    services.orders.save(stored)
    body = callback_body(order, "succeeded")
    result = handle_payment_callback(services, body, signed_headers(body))
    assert result.outcome == "ignored"
    assert services.orders.get(order.id).state is OrderState.EXPIRED


def test_refund_after_payment(services, order):
    paid = callback_body(order, "succeeded", event_id="evt_pay")
    handle_payment_callback(services, paid, signed_headers(paid))
    refund = callback_body(order, "refunded", event_id="evt_refund")
    result = handle_payment_callback(services, refund, signed_headers(refund))
    assert result.order_state == "refunded"


def test_parse_rejects_unknown_status(order):
    with pytest.raises(ValidationError):
        parse_callback(callback_body(order, "chargeback"))
    with pytest.raises(ValidationError):
        parse_callback(b"not json")
