"""Order lifecycle: the state machine and the order use cases."""

from api.orders.state_machine import OrderState, OrderStateMachine, StateChange

__all__ = ["OrderState", "OrderStateMachine", "StateChange"]
