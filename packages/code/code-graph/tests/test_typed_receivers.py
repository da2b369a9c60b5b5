"""`obj.method()` resolved through the receiver's declared class (annotations, constructor calls)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo, write_files

FILES = {
    "shop/__init__.py": "",
    "shop/machine.py": """
class Base:
    def audit(self) -> None:
        pass


class OrderStateMachine(Base):
    def transition(self) -> None:
        pass
""",
    "shop/other.py": """
class Wrong:
    def transition(self) -> None:
        pass
""",
    "shop/app.py": """
from dataclasses import dataclass
from typing import Optional

from shop.machine import OrderStateMachine


@dataclass
class Services:
    machine: OrderStateMachine
    spare: Optional[OrderStateMachine] = None
""",
    "shop/use.py": """
from typing import Optional

from shop import machine as mm
from shop.app import Services
from shop.machine import OrderStateMachine
from shop.other import Wrong


def by_param(machine: OrderStateMachine) -> None:
    machine.transition()


def by_optional(machine: Optional[OrderStateMachine], other: OrderStateMachine | None) -> None:
    machine.transition()
    other.transition()


def by_module(machine: mm.OrderStateMachine) -> None:
    machine.transition()


def by_field(services: Services) -> None:
    services.machine.transition()
    services.spare.transition()


def by_local() -> None:
    m = OrderStateMachine()
    m.transition()


def inherited(machine: OrderStateMachine) -> None:
    machine.audit()


def untyped(machine) -> None:
    machine.transition()


def unknown_class(machine: Mystery) -> None:
    machine.transition()


def wrong_class(w: Wrong) -> None:
    w.transition()
    w.audit()


class Worker:
    machine: OrderStateMachine

    def __init__(self, spare: OrderStateMachine) -> None:
        self.own = OrderStateMachine()
        self.given = spare

    def run(self) -> None:
        self.machine.transition()
        self.own.transition()
        self.given.transition()
""",
}

TRANSITION = "python shop/machine.py OrderStateMachine.transition()."
WRONG = "python shop/other.py Wrong.transition()."
AUDIT = "python shop/machine.py Base.audit()."


def _callers(ix: CodeIndex, target: str) -> dict[str, str]:
    return {h.symbol.qualname: h.edge.confidence for h in ix.callers(target, depth=1) if h.symbol}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", FILES)
    CodeIndex(root).build(full=True)
    return root


def test_each_typed_receiver_resolves_through_its_class(repo: Path) -> None:
    callers = _callers(CodeIndex(repo), TRANSITION)
    typed = {
        "by_param": "import-resolved",  # (a) annotated parameter
        "by_optional": "import-resolved",  # Optional[X] and X | None
        "by_module": "import-resolved",  # `mm.OrderStateMachine` through `from shop import machine as mm`
        "by_field": "import-resolved",  # (c) dataclass field of a typed parameter
        "by_local": "import-resolved",  # (d) local from a constructor call
        "Worker.run": "import-resolved",  # (b) __init__ attributes and (c) a class-level field
    }
    assert {name: callers.get(name) for name in typed} == typed


def test_inherited_method_follows_base_classes(repo: Path) -> None:
    callers = _callers(CodeIndex(repo), AUDIT)
    assert callers.get("inherited") == "import-resolved"


def test_untyped_or_unknown_receiver_stays_name_only(repo: Path) -> None:
    ix = CodeIndex(repo)
    assert _callers(ix, TRANSITION)["untyped"] == "name-only"
    assert _callers(ix, TRANSITION)["unknown_class"] == "name-only"  # Mystery is no class of this repo
    assert _callers(ix, WRONG)["untyped"] == "name-only"


def test_a_same_named_method_of_another_class_is_not_linked(repo: Path) -> None:
    ix = CodeIndex(repo)
    assert _callers(ix, WRONG)["wrong_class"] == "import-resolved"
    assert "wrong_class" not in _callers(ix, TRANSITION)
    typed_elsewhere = {"by_param", "by_optional", "by_module", "by_field", "by_local", "Worker.run"}
    assert not typed_elsewhere & set(_callers(ix, WRONG))
    # Wrong has no `audit` and Wrong's class is known: Base.audit is not guessed by name.
    assert "wrong_class" not in _callers(ix, AUDIT)


def test_incremental_update_resolves_typed_receivers(repo: Path) -> None:
    write_files(
        repo,
        {
            "shop/later.py": """
from shop.machine import OrderStateMachine


def added(machine: OrderStateMachine) -> None:
    machine.transition()
"""
        },
    )
    ix = CodeIndex(repo)
    ix.update()
    callers = _callers(ix, TRANSITION)
    assert callers["added"] == "import-resolved" and callers["by_param"] == "import-resolved"
