"""Shared fixtures: an in-memory service graph on a frozen clock."""

from __future__ import annotations

import pytest

from api.app import Services, build_services
from api.clock import FixedClock
from api.config import Settings
from api.models import LineItem, Order
from api.orders.service import place_order
from api.tests import WEBHOOK_SECRET


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(start=1_700_000_000.0)


@pytest.fixture
def settings() -> Settings:
    return Settings(payment_webhook_secret=WEBHOOK_SECRET, unpaid_timeout_seconds=1800,
                    callback_tolerance_seconds=300, tax_rate_bp=2000)


@pytest.fixture
def services(settings: Settings, clock: FixedClock) -> Services:
    svc = build_services(settings, clock=clock, in_memory=True, sequential_ids=True)
    svc.inventory.restock("MUG-01", 10)
    svc.inventory.restock("TEE-M", 5)
    return svc


@pytest.fixture
def order(services: Services) -> Order:
    """A fresh order for 2 mugs and 1 t-shirt: 2*1250 + 1900 = 4400, +20 % tax = 5280."""
    items = [LineItem("MUG-01", 2, 1250), LineItem("TEE-M", 1, 1900)]
    return place_order(services, "cus_42", items)
