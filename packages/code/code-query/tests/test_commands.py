"""Every `cq` command on the indexed example repository, in text and JSON, with its exit code."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ctxops_code_query.cli import main
from ctxops_code_query.service import Request, default_limits, execute
from ctxops_code_query.tokens import estimate_tokens
from ctxops_contracts import QueryResult, decode


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--root", str(root), "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, QueryResult]:
    code, out, _ = run(capsys, root, *args, "--json")
    return code, decode(QueryResult, out.encode())


def test_def_plain_qualified_and_path_scoped(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "def", "transition")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("api/orders/state_machine.py:") and "OrderStateMachine.transition(" in first
    assert out.splitlines()[1].startswith("    ")  # first body lines follow, indented
    assert out.rstrip().splitlines()[-1].startswith("-- index ")
    code, result = run_json(capsys, example_repo, "def", "OrderStateMachine.transition")
    assert code == 0 and result.hits[0].path == "api/orders/state_machine.py" and result.hits[0].kind == "method"
    assert result.index_revision and result.token_estimate > 0
    code, scoped = run_json(capsys, example_repo, "def", "api/orders/state_machine.py:transition")
    assert code == 0 and [h.line for h in scoped.hits] == [result.hits[0].line]


def test_def_no_match_suggests_close_names(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "def", "Transiton")
    assert code == 1
    assert out.startswith("no matches for def Transiton")
    assert "did you mean: " in out and "transition" in out
    code, result = run_json(capsys, example_repo, "def", "TRANSITION")
    assert code == 1 and result.total == 0 and result.hint and "transition" in result.hint


def test_refs_grouped_by_file_with_roles(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "refs", "Clock.now", "--max", "50", "--budget", "3000")
    assert code == 0
    lines = out.splitlines()
    assert "call)" in lines[0] and "references of Clock.now in" in lines[0]
    # `self._clock = clock or SystemClock()` states no one class: its calls are candidates, listed apart
    assert lines[0].endswith("more possible by name only")
    assert "-- possible, by name only" in out
    head, _, possible = out.partition("-- possible, by name only")
    assert "call   " in possible and "self._clock.now(" in possible and "services.clock.now(" in head
    files = [ln for ln in head.splitlines()[1:] if ln and not ln.startswith((" ", "-", "."))]
    assert len(files) == len(set(files)) >= 3  # each path written once
    assert any(ln.strip().split()[1] == "call" for ln in lines if ln.startswith("  "))
    code, result = run_json(capsys, example_repo, "refs", "Clock.now", "--max", "50", "--budget", "3000")
    assert all(h.role for h in result.hits) and result.total == len(result.hits)
    assert result.certain is not None and result.possible is not None
    assert result.certain + result.possible == result.total and result.possible > 0
    kinds = [h.confidence == "name-only" for h in result.hits]
    assert kinds == sorted(kinds)  # every certain reference before every candidate
    assert all(h.resolution for h in result.hits)


def test_callers_and_callees_with_depth_and_confidence(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, result = run_json(
        capsys, example_repo, "callers", "OrderStateMachine.transition", "--max", "100", "--budget", "5000"
    )
    assert code == 0
    callers = {h.text.split()[0] for h in result.hits}
    assert {"cancel_order", "close_expired_orders"} <= callers
    assert all(h.confidence in ("exact", "import-resolved", "name-only") for h in result.hits)
    code, deep = run_json(
        capsys, example_repo, "callers", "transition", "--depth", "2", "--max", "200", "--budget", "9000"
    )
    assert deep.total > result.total
    code, out, _ = run(capsys, example_repo, "callees", "OrderStateMachine.transition")
    assert code == 0 and "can_transition" in out and "[self]" in out  # how each callee was resolved
    head, _, possible = out.partition("-- possible, by name only")
    assert "[constructor]" in head and "[name-only]" in possible and "[name-only]" not in head
    code, out, err = run(capsys, example_repo, "callers", "transition", "--depth", "9")
    assert code == 2 and "use 1..6" in err


def test_brief_outlines_without_bodies(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "brief", "api/orders/state_machine.py")
    assert code == 0 and "... and" not in out  # one answer: no hit cap, the whole outline in the budget
    lines = out.splitlines()
    assert lines[0].startswith("api/orders/state_machine.py: ") and lines[1] == "api/orders/state_machine.py"
    assert "     21  class OrderState(str, Enum)" in lines  # top level: line, kind and signature
    assert "     84  variable TransitionListener" in lines
    # Members folded under their class as name:line, every one of them with its own line.
    members = lines[lines.index("     87  class OrderStateMachine") + 1]
    assert members.split() == [
        "__init__:90",
        "on_transition:94",
        "can_transition:99",
        "transition:103",
        "ensure_state:125",
    ]
    assert "PENDING_PAYMENT:24 PAYMENT_FAILED:25" in out and "is_terminal:35" in out
    assert "raise InvalidTransition" not in out and "True when" not in out  # no bodies, no docs
    code, result = run_json(capsys, example_repo, "brief", "api/orders/state_machine.py")
    assert code == 0 and not result.truncated and result.total == len(result.hits) == 5
    assert [(h.line, h.kind) for h in result.hits] == [
        (21, "class"),
        (45, "constant"),
        (64, "class"),
        (84, "variable"),
        (87, "class"),
    ]
    assert result.hits[4].text.split("\n")[1].startswith("__init__:90 ")
    code, out, _ = run(capsys, example_repo, "brief", "api/orders/state_machin.py")
    assert code == 1 and "did you mean: api/orders/state_machine.py" in out


def test_brief_caps_and_budgets_still_apply(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "brief", "api/orders/state_machine.py", "--max", "2")
    assert code == 0 and "class StateChange" not in out
    assert "... and 3 more (capped at --max 2; raise --max" in out
    code, result = run_json(capsys, example_repo, "brief", "api/orders/state_machine.py", "--budget", "120")
    assert result.truncated and result.omitted > 0 and result.token_estimate <= 120 + 10


def test_brief_lists_every_top_level_entry_and_folds_a_large_struct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fields = "\n".join(f"\tField{i:03d} int" for i in range(150))
    (tmp_path / "command.go").write_text(
        "package cmd\n\ntype Command struct {\n" + fields + "\n}\n\n"
        "func (c *Command) Execute() error {\n\treturn nil\n}\n\n"
        + "".join(f"func Helper{i}() int {{\n\treturn {i}\n}}\n\n" for i in range(12))
    )
    code, out, _ = run(capsys, tmp_path, "brief", "command.go")
    assert code == 0
    assert "151 members: cq brief command.go:Command" in out  # 150 fields and Execute
    assert "Field077" not in out  # folded, not listed
    assert all(f"Helper{i}()" in out for i in range(12))  # every top-level entry survives the budget
    assert "truncated" not in out
    code, one, _ = run(capsys, tmp_path, "brief", "command.go:Command", "--budget", "5000")
    assert code == 0 and one.startswith("command.go:")
    assert "Field000" in one and "Field149" in one and "Helper3" not in one
    code, missing, _ = run(capsys, tmp_path, "brief", "command.go:Nope")
    assert code == 1 and "no symbol Nope in command.go" in missing


def test_brief_runs_of_top_level_variables_share_a_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "consts.py").write_text(
        "a = 1\nb = 2\n\n\nc = 3\nLIMIT = 4\n\n\ndef f(x, y=1):\n    return x\n\n\nclass K:\n    class Inner:\n"
        "        def m(self):\n            pass\n"
    )
    code, out, _ = run(capsys, tmp_path, "brief", "consts.py")
    assert code == 0
    assert "      1  variables a b:2 c:5" in out and "      6  constant LIMIT" in out
    assert "      9  function f(x, y=1)" in out
    assert "Inner:14 Inner.m:15" in out  # nested members named relative to the top-level symbol


def test_brief_lists_a_method_written_above_its_type_under_the_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "server.go").write_text(
        "package srv\n\nfunc (s *Server) early() int {\n\treturn 1\n}\n\nfunc Free() {}\n\n"
        "type Server struct {\n\tAddr string\n}\n\nfunc (s *Server) Late() {}\n"
    )
    code, out, _ = run(capsys, tmp_path, "brief", "server.go")
    assert code == 0
    tops = [line.split(None, 2)[1:] for line in out.splitlines() if line[:8].strip().isdigit()]
    assert [entry[1].split("(")[0] for entry in tops] == ["Free", "Server"], out  # no top-level `early`
    assert "early:3" in out and "Addr:10" in out and "Late:13" in out


def test_a_call_to_an_overloaded_function_is_one_caller(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lib.ts").write_text(
        "export function pick(a: string): string;\nexport function pick(a: number): number;\n"
        "export function pick(a: any): any {\n  return a;\n}\n"
    )
    (tmp_path / "app.ts").write_text(
        "import { pick } from './lib';\n\nexport function useIt() {\n  const n = pick(1);\n"
        "  return pick('x') + n;\n}\n\nexport function other() {\n  return pick(2);\n}\n"
    )
    from ctxops_code_query.graph_backend import build_index

    build_index(tmp_path)
    code, result = run_json(capsys, tmp_path, "callers", "pick")
    assert code == 0
    assert sorted((h.path, h.line) for h in result.hits) == [("app.ts", 4), ("app.ts", 5), ("app.ts", 9)]
    code, out, _ = run(capsys, tmp_path, "impact", "pick")
    # the importing file, useIt and other: each once, not once per declaration of pick
    assert code == 0 and "impact of pick (depth <= 3): 3 callers, " in out, out
    code, found = run_json(capsys, tmp_path, "search", "pick")
    assert code == 0
    assert [h.symbol_id for h in found.hits if h.path == "lib.ts"] == ["typescript lib.ts pick()."]


def test_deps_of_a_file_and_of_a_symbol(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, result = run_json(
        capsys, example_repo, "deps", "api/orders/state_machine.py", "--max", "50", "--budget", "3000"
    )
    assert code == 0
    imports = {h.path for h in result.hits if h.role == "import"}
    importers = {h.path for h in result.hits if h.role == "imported-by"}
    assert "api/errors.py" in imports and "api/orders/service.py" in importers
    code, out, _ = run(capsys, example_repo, "deps", "OrderStateMachine")
    assert code == 0 and "api/orders/state_machine.py" in out


def test_impact_lists_callers_files_and_tests(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "impact", "OrderStateMachine.transition")
    assert code == 0
    assert out.startswith("impact of OrderStateMachine.transition (depth <= 3):")
    assert "tests to run: " in out and "api/tests/" in out


def test_map_ranks_files_within_the_budget(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "map")
    assert code == 0 and estimate_tokens(out) <= 300
    code, result = run_json(capsys, example_repo, "map", "payment", "signature")
    assert any("payments/" in h.path for h in result.hits[:5])


def test_map_ranks_library_code_before_tests_unless_asked(
    capsys: pytest.CaptureFixture[str], example_repo: Path
) -> None:
    from ctxops_code_query.path_kinds import is_test

    code, result = run_json(capsys, example_repo, "map", "timeout", "--max", "100", "--budget", "20000")
    flags = [is_test(h.path) for h in result.hits]
    assert code == 0 and True in flags and False in flags
    assert flags == sorted(flags)  # every library file before the first test file
    code, asked = run_json(capsys, example_repo, "map", "timeout", "tests", "--max", "100", "--budget", "20000")
    assert is_test(asked.hits[0].path)  # asked for: tests rank by relevance with the rest


def test_search_narrows_to_files_then_ranks_chunks(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, result = run_json(capsys, example_repo, "search", "expire unpaid orders after the payment timeout")
    assert code == 0
    assert any(h.path == "api/jobs/timeout_close.py" for h in result.hits[:3])
    code, _out, err = run(capsys, example_repo, "search", "the of and")
    assert code == 2 and "descriptive words" in err


def test_search_answer_is_the_top_five_grouped_by_file(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "search", "expire unpaid orders after the payment timeout")
    code_j, result = run_json(capsys, example_repo, "search", "expire unpaid orders after the payment timeout")
    assert code == code_j == 0 and len(result.hits) == 5 and result.omitted == result.total - 5
    lines = out.splitlines()
    # Grouped by file (each path once, files in the order of their best hit); per hit: line, kind,
    # qualified name and doc line, without the parameter list (cq def shows it).
    assert lines[0] == result.hits[0].path
    assert sum(1 for ln in lines if ln in {h.path for h in result.hits}) == len({h.path for h in result.hits})
    assert "function close_expired_orders  # Expire overdue unpaid orders" in out
    assert "close_expired_orders(" not in out
    assert lines[-2] == f"... and {result.omitted} more, ranked lower (raise --max, or add distinctive words)"
    assert lines[-1].startswith("-- index ")
    code, result = run_json(capsys, example_repo, "search", "expire unpaid orders", "--max", "12", "--budget", "2000")
    assert len(result.hits) == 12


def test_search_with_vectors(capsys: pytest.CaptureFixture[str], example_repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    repo = tmp_path / "repo"
    shutil.copytree(example_repo, repo, symlinks=True)
    code, result = run_json(capsys, repo, "search", "verify the signature of a payment callback", "--vector")
    assert code == 0 and result.hits
    assert any("payments/" in h.path for h in result.hits[:3])
    assert (repo / ".meta" / "index" / "vectors").is_dir()


class _SlowEmbedder:
    """The hashing embedder taking 50 ms per text: a model on a loaded machine."""

    def __init__(self) -> None:
        from ctxops_code_query.embedders import HashingEmbedder

        self.inner = HashingEmbedder()
        self.dimensions, self.name = self.inner.dimensions, self.inner.name

    def embed(self, texts: list[str]) -> list[list[float]]:
        time.sleep(0.05 * len(texts))
        return self.inner.embed(texts)


def test_first_vector_search_embeds_before_its_deadline_starts(
    monkeypatch: pytest.MonkeyPatch, example_repo: Path, tmp_path: Path
) -> None:
    # Embedding the candidates is index building: a first --vector search on a slow machine answered
    # nothing (exit 3, the deadline spent inside LanceDB) on CI before it moved ahead of the deadline.
    pytest.importorskip("lancedb")
    import ctxops_code_query.embedders as embedders

    repo = tmp_path / "repo"
    shutil.copytree(example_repo, repo, symlinks=True)
    monkeypatch.setattr(embedders, "load_embedder", _SlowEmbedder)
    request = Request("search", {"text": "verify the signature of a payment callback", "vector": True}, deadline_s=1.0)
    outcome = execute(repo, request)
    assert outcome.rendered.exit_code == 0, outcome.rendered.text
    assert not outcome.rendered.result.partial and any("payments/" in h.path for h in outcome.rendered.result.hits[:3])


def test_open_a_symbol_body(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "open", "api/orders/state_machine.py:OrderStateMachine.transition")
    assert code == 0
    assert "def transition(" in out and "raise InvalidTransition" in out
    code, out, _ = run(capsys, example_repo, "open", "api/orders/state_machine.py:nope")
    assert code == 1 and "no matches for open" in out


def test_status_and_index(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    code, out, _ = run(capsys, example_repo, "status")
    assert code == 0 and "symbols" in out and "files" in out and "python" in out.lower()
    code, out, _ = run(capsys, example_repo, "status", "--json")
    data = json.loads(out)
    assert data["files"] > 10 and "stale_files" in data
    code, out, _ = run(capsys, example_repo, "index")
    assert code == 0 and "files scanned" in out


def test_every_answer_respects_the_default_budget(capsys: pytest.CaptureFixture[str], example_repo: Path) -> None:
    for args in (
        ["def", "transition"],
        ["refs", "transition"],
        ["callers", "transition", "--depth", "3"],
        ["brief", "api/orders/state_machine.py"],
        ["deps", "api/models.py"],
        ["impact", "transition"],
        ["map"],
        ["grep", "def "],
        ["search", "refund a payment"],
    ):
        code, out, _ = run(capsys, example_repo, *args)
        assert code == 0, args
        budget = default_limits(args[0])[1]
        assert budget <= 1000, args  # an outline is one answer; everything else keeps ~300
        assert estimate_tokens(out) <= budget + 10, (args, estimate_tokens(out))


class _SlowIndex:
    """A stand-in index whose lookups take longer than the deadline (the deadline is what is tested)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def revision(self) -> str:
        return "abc1234"

    def generation(self) -> str:
        return "slow"

    def stale_files(self) -> list[str]:
        return []

    def freshen(self, wait: float | None) -> list[str]:
        return []

    def definitions(self, name: str) -> list[object]:
        _RELEASE_SLOW.wait(60.0)  # far past any deadline: only the deadline can end the query in time
        return []


_RELEASE_SLOW = threading.Event()


def test_deadline_returns_partial_marked_and_exit_3(tmp_path: Path) -> None:
    started = time.perf_counter()
    try:
        outcome = execute(tmp_path, Request(command="def", params={"name": "x"}, deadline_s=0.2), open_index=_SlowIndex)
        # A generous bound (the operation would take 60 s): it fails only if the deadline stopped working.
        assert time.perf_counter() - started < 30
    finally:
        _RELEASE_SLOW.set()
    assert outcome.rendered.exit_code == 3
    assert outcome.rendered.result.partial
    assert "!! partial: the deadline expired" in outcome.rendered.text


def test_results_are_cached_until_the_index_changes(fresh_example: Path) -> None:
    from ctxops_code_query.graph_backend import build_index

    build_index(fresh_example)
    request = Request(command="def", params={"name": "transition"})
    first = execute(fresh_example, request)
    again = execute(fresh_example, request)
    assert not first.cached and again.cached
    assert again.rendered.text == first.rendered.text
    # An edit changes the index (the read path reindexes it), which invalidates every cached answer. No
    # deadline here: the query waits for its update whatever the machine's load.
    target = fresh_example / "api" / "clock.py"
    target.write_text(target.read_text() + "\n\ndef brand_new_helper():\n    return 1\n")
    after = execute(fresh_example, Request(command="def", params={"name": "transition"}, deadline_s=None))
    assert not after.cached
    found = execute(fresh_example, Request(command="def", params={"name": "brand_new_helper"}, deadline_s=None))
    assert found.rendered.exit_code == 0 and "api/clock.py:" in found.rendered.text


def test_first_query_starts_the_build_with_a_one_line_notice(fresh_example: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxops_code_query",
            "def",
            "transition",
            "--root",
            str(fresh_example),
            "--deadline",
            "30",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "building it in the background" in done.stderr
    assert done.stdout.startswith("api/orders/state_machine.py:")
    assert done.stdout.rstrip().endswith("-- index provisional")
