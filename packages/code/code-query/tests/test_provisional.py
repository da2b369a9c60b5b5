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


_HOLD_LOCK = """
import sys
from pathlib import Path
from ctxops_code_graph.layout import IndexLayout
from ctxops_code_graph.lock import WriterLock
lock = WriterLock(IndexLayout(Path(sys.argv[1]).resolve()).lock_path)
lock.acquire()
print("held", flush=True)
sys.stdin.read()
lock.release()
"""


def test_graph_commands_answer_provisionally_while_the_first_build_holds_the_index(tmp_path: Path) -> None:
    """A build still running (a real process holds the writer lock, so no index commits): callers, refs,
    callees, impact and deps answer now, by name only, marked provisional in text and JSON; never exit 2."""
    import json
    import os
    import subprocess
    import sys

    from ctxops_code_graph import rebuild_reason

    root = tmp_path / "fresh"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "a.py").write_text(
        "class Widget:\n    def spin(self):\n        return helper()\n\n\ndef helper():\n    return 1\n"
    )
    (root / "pkg" / "b.py").write_text(
        "from pkg.a import Widget, helper\n\n\ndef run(w: Widget):\n    w.spin()\n    return helper()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    env = {k: v for k, v in os.environ.items() if k != "CQ_ROOT"}

    def cq(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root), "--no-cache"],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            env=env,
        )

    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        expected = {
            ("callers", "helper"): {("pkg/a.py", 3), ("pkg/b.py", 6)},
            ("impact", "helper"): {("pkg/a.py", 3), ("pkg/b.py", 6)},
            ("refs", "Widget"): {("pkg/b.py", 1), ("pkg/b.py", 4)},
            ("callees", "run"): {("pkg/b.py", 5), ("pkg/b.py", 6)},
            ("deps", "pkg/a.py"): {("pkg/b.py", None)},
        }
        for (command, name), sites in expected.items():
            done = cq(command, name, "--json")
            assert done.returncode == 0, (command, done.stdout, done.stderr)
            result = json.loads(done.stdout)
            assert result["index_revision"] == "provisional"
            assert {(h["path"], h.get("line")) for h in result["hits"]} == sites, command
            if command != "deps":
                assert all(h["confidence"] == "name-only" for h in result["hits"]), command
            assert "a build is already running" in done.stderr
            text = cq(command, name)
            assert text.returncode == 0 and text.stdout.rstrip().endswith("-- index provisional")
            assert "provisional: uses by name only, from a scan of" in text.stdout
        assert rebuild_reason(root)  # nothing committed meanwhile: every answer above came from the scan
        # map still needs the graph: a clear line, exit 2
        assert cq("map").returncode == 2
    finally:
        holder.communicate("", timeout=30)
