import pytest

from api.errors import InvalidTransition
from api.orders.state_machine import ALLOWED_TRANSITIONS, OrderState, OrderStateMachine


def test_every_state_has_a_transition_entry():
    assert set(ALLOWED_TRANSITIONS) == set(OrderState)


def test_terminal_states():
    terminal = {state for state in OrderState if state.is_terminal}
    assert terminal == {OrderState.CANCELLED, OrderState.EXPIRED, OrderState.REFUNDED}


def test_transition_records_history_and_timestamps(order, clock):
    machine = OrderStateMachine(clock)
    clock.advance(60)
    change = machine.transition(order, OrderState.PAID, reason="payment pay_1")
    assert order.state is OrderState.PAID
    assert order.paid_at == clock.now()
    assert order.updated_at == clock.now()
    assert order.history[-1] == change
    assert change.from_state is OrderState.PENDING_PAYMENT


def test_transition_to_terminal_state_sets_closed_at(order, clock):
    machine = OrderStateMachine(clock)
    machine.transition(order, OrderState.EXPIRED)
    assert order.closed_at == clock.now()


def test_invalid_transition_leaves_order_untouched(order, clock):
    machine = OrderStateMachine(clock)
    with pytest.raises(InvalidTransition) as info:
        machine.transition(order, OrderState.SHIPPED)
    assert info.value.from_state == "pending_payment"
    assert info.value.to_state == "shipped"
    assert order.state is OrderState.PENDING_PAYMENT
    assert order.history == []


def test_no_transition_out_of_a_terminal_state(order, clock):
    machine = OrderStateMachine(clock)
    machine.transition(order, OrderState.CANCELLED)
    for target in OrderState:
        assert not machine.can_transition(OrderState.CANCELLED, target)
    with pytest.raises(InvalidTransition):
        machine.transition(order, OrderState.PAID)


def test_listeners_see_each_change(order, clock):
    machine = OrderStateMachine(clock)
    seen = []
    machine.on_transition(lambda o, change: seen.append((o.id, change.to_state)))
    machine.transition(order, OrderState.PAID)
    machine.transition(order, OrderState.FULFILLING)
    assert seen == [(order.id, OrderState.PAID), (order.id, OrderState.FULFILLING)]


def test_ensure_state(order, clock):
    machine = OrderStateMachine(clock)
    machine.ensure_state(order, OrderState.PENDING_PAYMENT, OrderState.PAYMENT_FAILED)
    with pytest.raises(InvalidTransition):
        machine.ensure_state(order, OrderState.PAID)
