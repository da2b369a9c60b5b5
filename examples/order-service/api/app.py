"""Wiring: builds the object graph shared by handlers and jobs."""

from __future__ import annotations

from dataclasses import dataclass

from api.clock import Clock, SystemClock
from api.config import Settings
from api.events import Outbox, event_for_transition
from api.ids import IdGenerator
from api.inventory.stock import InventoryLedger
from api.models import Order
from api.orders.state_machine import OrderStateMachine, StateChange
from api.storage.idempotency import IdempotencyStore
from api.storage.repository import InMemoryOrderRepository, JsonFileOrderRepository, OrderRepository


@dataclass
class Services:
    """Everything a request handler or job needs, passed explicitly."""

    settings: Settings
    clock: Clock
    ids: IdGenerator
    orders: OrderRepository
    inventory: InventoryLedger
    machine: OrderStateMachine
    idempotency: IdempotencyStore
    outbox: Outbox


def build_services(settings: Settings, *, clock: Clock | None = None, in_memory: bool = False,
                   sequential_ids: bool = False) -> Services:
    """Create the services for ``settings``; ``in_memory`` skips the file store."""
    clock = clock or SystemClock()
    ids = IdGenerator(sequential=sequential_ids)
    orders: OrderRepository
    if in_memory:
        orders = InMemoryOrderRepository()
        outbox = Outbox()
    else:
        orders = JsonFileOrderRepository(settings.data_dir)
        outbox = Outbox(settings.outbox_path)
    machine = OrderStateMachine(clock)

    def publish_transition(order: Order, change: StateChange) -> None:
        event = event_for_transition(order, change)
        if event is not None:
            outbox.publish(event)

    machine.on_transition(publish_transition)
    return Services(
        settings=settings,
        clock=clock,
        ids=ids,
        orders=orders,
        inventory=InventoryLedger(clock, ids),
        machine=machine,
        idempotency=IdempotencyStore(clock),
        outbox=outbox,
    )
