"""The provisional scan (first query on an unindexed repository) answers qualified names as the index does."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_query.provisional import ProvisionalIndex, module_path
from ctxops_code_query.service import Request, execute


@pytest.mark.parametrize(
    ("rel", "module"),
    [
        ("json/__init__.py", "json"),
        ("http/client.py", "http.client"),
        ("api/orders/state_machine.py", "api.orders.state_machine"),
        ("web/src/index.ts", "web.src"),
        ("setup.py", "setup"),
        ("Makefile", "Makefile"),
    ],
)
def test_module_path_spells_a_file_as_imports_do(rel: str, module: str) -> None:
    assert module_path(rel) == module


@pytest.mark.parametrize(
    "name",
    [
        "transition",
        "OrderStateMachine.transition",
        "state_machine.OrderStateMachine.transition",
        "api.orders.state_machine.OrderStateMachine.transition",
    ],
)
def test_provisional_definitions_accept_module_qualified_names(fresh_example: Path, name: str) -> None:
    found = ProvisionalIndex(fresh_example).definitions(name)
    assert [(s.path, s.qualname) for s in found] == [("api/orders/state_machine.py", "OrderStateMachine.transition")]


def test_a_wrong_qualifier_does_not_match(fresh_example: Path) -> None:
    assert ProvisionalIndex(fresh_example).definitions("billing.OrderStateMachine.transition") == []
    assert ProvisionalIndex(fresh_example).definitions("Other.transition") == []


def test_a_provisional_miss_says_it_is_not_final(fresh_example: Path) -> None:
    index = ProvisionalIndex(fresh_example)
    request = Request(command="def", params={"name": "NoSuchThing"})
    outcome = execute(fresh_example, request, open_index=lambda _root: index)
    assert outcome.rendered.exit_code == 1
    first = outcome.rendered.text.splitlines()[0]
    assert first.startswith("no matches for def NoSuchThing") and "full index is still being built" in first
    assert outcome.rendered.text.rstrip().endswith("-- index provisional")
