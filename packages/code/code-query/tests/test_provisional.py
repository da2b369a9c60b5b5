"""The provisional scan (first query on an unindexed repository) answers qualified names as the index does."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_query.provisional import ProvisionalIndex
from ctxops_code_query.service import Request, execute


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


def test_a_go_function_is_named_through_its_package(tmp_path: Path) -> None:
    (tmp_path / "encoding" / "json").mkdir(parents=True)
    (tmp_path / "encoding" / "json" / "decode.go").write_text(
        "package json\n\nfunc Unmarshal(b []byte) error {\n\treturn nil\n}\n"
    )
    found = ProvisionalIndex(tmp_path).definitions("json.Unmarshal")
    assert [(s.path, s.name) for s in found] == [("encoding/json/decode.go", "Unmarshal")]
    assert ProvisionalIndex(tmp_path).definitions("xml.Unmarshal") == []


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
