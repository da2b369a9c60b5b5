"""Small real git repositories for the tests (the git CLI, as a user would make them)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

from ctxops_code_graph import CodeIndex

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "PATH": "/usr/bin:/bin:/usr/local/bin",
    "HOME": "/nonexistent",
}


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, "utf-8")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=GIT_ENV
    ).stdout.strip()


def make_repo(root: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_files(root, files)
    git(root, "init", "-q", "-b", "main")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    return root


def indexed(root: Path, files: dict[str, str | bytes]) -> CodeIndex:
    """A repository of ``files`` at ``root``, committed and fully indexed."""
    idx = CodeIndex(make_repo(root, files), auto_update=False)
    idx.build(full=True)
    return idx


def built_index(root: Path, files: dict[str, str | bytes]) -> Iterator[CodeIndex]:
    """A module fixture's body: the repository, fully indexed, closed after the module's tests."""
    idx = indexed(root, files)
    yield idx
    idx.close()


def certain_callers(idx: CodeIndex, symbol_id: str) -> set[tuple[str, int]]:
    """The certain direct call sites of a symbol: (path, line)."""
    return {(h.edge.path or "", h.edge.line or 0) for h in idx.callers(symbol_id, depth=1, certain_only=True)}


def certain_sites(idx: CodeIndex, symbol_id: str, path: str) -> dict[int | None, str | None]:
    """The certain call sites of a symbol in one file: line -> how each was resolved."""
    return {h.edge.line: h.edge.resolution for h in idx.callers(symbol_id, 1, certain_only=True) if h.edge.path == path}


ORDERS_PY = {
    "shop/__init__.py": "",
    "shop/orders.py": '''"""Orders and their life cycle."""

from dataclasses import dataclass

MAX_ITEMS = 50


class OrderError(Exception):
    """An order cannot move to the requested state."""


@dataclass
class Order:
    id: str
    state: str = "new"


class OrderStateMachine:
    """Moves an order between states."""

    def __init__(self, order: Order) -> None:
        self.order = order

    def can_transition(self, target: str) -> bool:
        return target != self.order.state

    def transition(self, target: str) -> Order:
        """Move to `target` or raise."""
        if not self.can_transition(target):
            raise OrderError(target)
        self.order.state = target
        return self.order
''',
    "shop/service.py": """from shop.orders import Order, OrderStateMachine
from shop import orders


def ship(order_id: str) -> Order:
    machine = OrderStateMachine(Order(order_id))
    return machine.transition("shipped")


def cancel(order_id: str) -> Order:
    return orders.OrderStateMachine(Order(order_id)).transition("cancelled")


def limit() -> int:
    return orders.MAX_ITEMS
""",
    "tests/test_service.py": """from shop.service import ship


def test_ship() -> None:
    assert ship("o1").state == "shipped"
""",
}
