"""`cq callers` when inference cannot settle the receiver (issue 24 item 2): the name-only candidates are
ranked (same module or package first, then calls passing as many arguments as the definition accepts, then
the receiver's shape), capped with an honest count and the command that lists them all, and an empty
certain list says which receivers could not be typed. A real repository, a real index, the real CLI path."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_query.graph_backend import build_index
from ctxops_code_query.service import Request, execute

STORE = """class Store:
    def add(self, item, *, flush=False):
        return item


def fill(store, items):
    for item in items:
        store.add(item)
    store.add()
"""
ELSEWHERE = """def a(s):
    s.add(1, 2, 3)


def b(s):
    s.add(1)


def c(s):
    s.add(1, flush=True)


def d(s):
    s.add(*[1])
"""


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "store.py").write_text(STORE)
    (root / "other").mkdir()
    (root / "other" / "use.py").write_text(ELSEWHERE)
    build_index(root)
    return root


def test_possible_callers_are_ranked_capped_and_explained(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    outcome = execute(root, Request(command="callers", params={"name": "Store.add"}, use_cache=False, deadline_s=None))
    text = outcome.rendered.text
    hits = outcome.rendered.result.hits
    # nothing certain: every receiver is an untyped parameter, and the line says which
    assert outcome.rendered.result.total == 6
    assert "no certain callers: 6 through receivers whose type is unknown (s, store)" in text, text
    order = [(h.path, h.line) for h in hits]
    # the definition's own module first (the call passing no argument ranks after the one that passes one)
    assert order[:2] == [("pkg/store.py", 8), ("pkg/store.py", 9)], text
    # elsewhere: calls that fit `(self, item, *, flush=False)` (1 or 2 arguments; an unpacked `*xs` cannot
    # be counted and may fit) before the one passing three
    assert order[2:] == [
        ("other/use.py", 6),
        ("other/use.py", 10),
        ("other/use.py", 14),
        ("other/use.py", 2),
    ], text
    assert all(h.confidence == "name-only" for h in hits)


def test_a_capped_list_gives_the_count_and_the_command_for_the_rest(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    outcome = execute(
        root, Request(command="callers", params={"name": "Store.add"}, use_cache=False, max_hits=3, deadline_s=None)
    )
    text = outcome.rendered.text
    assert "... and 3 more (capped at --max 3" in text, text
    assert "list all 6: cq callers Store.add --max 6 --budget 2000" in text, text
