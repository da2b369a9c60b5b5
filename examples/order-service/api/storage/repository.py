"""Order repositories: an in-memory one and one storing one JSON file per order."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Iterator, Protocol

from api.errors import OrderNotFound
from api.models import Order
from api.orders.state_machine import OrderState


class OrderRepository(Protocol):
    """What the use cases need from order storage."""

    def get(self, order_id: str) -> Order: ...

    def save(self, order: Order) -> None: ...

    def list_by_state(self, states: Iterable[OrderState]) -> Iterator[Order]: ...


class InMemoryOrderRepository:
    """Dict-backed repository; orders are copied in and out like a real store."""

    def __init__(self) -> None:
        self._orders: dict[str, dict] = {}
        self._lock = threading.Lock()

    def get(self, order_id: str) -> Order:
        """Return a fresh copy of the order or raise ``OrderNotFound``."""
        with self._lock:
            data = self._orders.get(order_id)
        if data is None:
            raise OrderNotFound(order_id)
        return Order.from_dict(data)

    def save(self, order: Order) -> None:
        """Insert or replace the order."""
        with self._lock:
            self._orders[order.id] = order.to_dict()

    def list_by_state(self, states: Iterable[OrderState]) -> Iterator[Order]:
        """Yield every order whose state is in ``states``."""
        wanted = {state.value for state in states}
        with self._lock:
            snapshot = list(self._orders.values())
        for data in snapshot:
            if data["state"] in wanted:
                yield Order.from_dict(data)

    def __len__(self) -> int:
        return len(self._orders)


class JsonFileOrderRepository:
    """Stores each order as ``<data_dir>/<order_id>.json``, written atomically."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self._dir = Path(data_dir)
        self._dir.mkdir(parents=True, exist_ok=True)

    def _path(self, order_id: str) -> Path:
        if not order_id or "/" in order_id or order_id.startswith("."):
            raise OrderNotFound(order_id)
        return self._dir / f"{order_id}.json"

    def get(self, order_id: str) -> Order:
        """Load one order from disk."""
        path = self._path(order_id)
        try:
            with path.open(encoding="utf-8") as fh:
                return Order.from_dict(json.load(fh))
        except FileNotFoundError:
            raise OrderNotFound(order_id) from None

    def save(self, order: Order) -> None:
        """Write the order to a temp file and rename it over the old one."""
        target = self._path(order.id)
        fd, tmp = tempfile.mkstemp(dir=self._dir, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(order.to_dict(), fh, indent=2, sort_keys=True)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise

    def list_by_state(self, states: Iterable[OrderState]) -> Iterator[Order]:
        """Scan the data directory for orders in one of ``states``."""
        wanted = set(states)
        for path in sorted(self._dir.glob("*.json")):
            if path.name.startswith("."):
                continue
            order = self.get(path.stem)
            if order.state in wanted:
                yield order
