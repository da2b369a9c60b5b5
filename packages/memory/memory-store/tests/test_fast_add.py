"""The fast ``ctx mem add`` (issue 23, item 4): the same file, snapshot rows, trust record and output as the full
write, without argparse, msgspec or the store; it hands over whenever it cannot be sure."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import redirect_stdout
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ctxops_contracts import ids
from ctxops_memory_store import MemoryStore, cli, fastadd, fastcli, new_entry, snapshot, ties, trust
from ctxops_memory_store import store as store_module

NOW = datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=UTC)
WHEN = datetime(2026, 3, 5, 1, 2, 3, 456789, tzinfo=UTC)
NEW_ID = "01KJXNW0Z1F0ZYW0M3V3H8Q4TR"

BASE = [
    ("lesson", "Money is decimal.Decimal", "Never use float for money amounts in the billing module.", []),
    ("fact", "Service A must answer within 100 ms", "The SLO of service A is 100 ms at p99.", []),
    ("constraint", "Never edit gen/ by hand", "The files under gen/ are generated: change api/schema.yaml.", []),
    ("decision", "We deploy on Fridays", "Deploys happen on Friday afternoons after the review.", []),
    ("fact", "Queues are durable", "Every queue is declared durable.", ["svc/**"]),
]


def _store(root: Path) -> None:
    """A store with a read snapshot, written the same way (same ids, same times) wherever it is built."""
    (root / ".git").mkdir(parents=True)
    (root / "api").mkdir()
    (root / "api" / "schema.yaml").write_text("openapi: 3.1\n", encoding="utf-8")
    store = MemoryStore(root)
    for n, (kind, title, body, scope) in enumerate(BASE):
        entry = new_entry(kind=kind, title=title, body=body, scope=scope, now=NOW)
        store.put(store_module._with(entry, id=f"01KJXNW0Z1F0ZYW0M3V3H8Q4T{n}"), now=NOW)
    store.save_catalog()
    index_dir, memory_dir = root / ".meta" / "index", root / ".meta" / "memory"
    snapshot.SnapshotWriter(str(index_dir), str(memory_dir)).close()  # a small store keeps one once it has it
    MemoryStore(root).sync_snapshot()


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    full, fast = tmp_path / "full" / "proj", tmp_path / "fast" / "proj"
    _store(full)
    _store(fast)
    monkeypatch.setattr(store_module, "new_ulid", lambda: NEW_ID)
    monkeypatch.setattr(ids, "new_ulid", lambda: NEW_ID)
    monkeypatch.setattr(store_module, "utcnow", lambda: WHEN)
    monkeypatch.setattr(fastadd, "utcnow", lambda: WHEN)
    return full, fast


def _run(main: object, argv: list[str]) -> tuple[object, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)  # type: ignore[operator]
    return code, out.getvalue()


def _files(root: Path) -> dict[str, bytes]:
    memory = root / ".meta" / "memory"
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir())}


DOC_COLUMNS = "doc, file, kind, pinned, born, length, entry, bucket, title_norm"
TIMES = {"generation", "dir_mtime_ns", "checked_ns", "full_check_ns", "memory_dir", "settled"}


def _rows(root: Path) -> dict[str, object]:
    con = sqlite3.connect(snapshot.path_for(str(root / ".meta" / "index")))
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        return {
            "files": sorted(r[0] for r in con.execute("SELECT file FROM files")),
            "docs": sorted(
                con.execute("SELECT doc, file, kind, pinned, born, length, entry, bucket, title_norm FROM docs")
            ),
            "postings": sorted(con.execute("SELECT term, doc, tf, length FROM postings")),
            "tied": sorted(con.execute("SELECT path, doc FROM tied")),
            "hashes": sorted(con.execute("SELECT hash, file FROM hashes")),
            # the generation, times and place differ by process, clock and store; what describes the rows must not
            "meta": {k: v for k, v in meta.items() if k not in TIMES},
            "in_step": meta.get("generation") == (root / ".meta" / "index" / "memory-generation").read_text(),
            "settled": meta.get("settled") == meta.get("dir_mtime_ns"),
        }
    finally:
        con.close()


def _vouched(root: Path, entry: dict[str, object]) -> bool:
    return trust.Verdict(root).entry_trusted(entry)


CASES = [
    ["add", "--title", "Deploy script lives in tools/deploy.sh", "--json"],
    ["add", "--title", "Use the schema", "see api/schema.yaml and api/", "--tag", "api", "--json"],
    ["add", "--kind", "lesson", "--title", 'Ünïcode 名前: tabs\tand quotes "q"', "--body", "Two lines\nof text."],
    ["--json", "add", "--title=Cache TTL is five minutes", "--scope", "svc/**", "--scope", "lib/*.py", "--pin"],
    ["add", "--title", "a candidate", "--pending", "--source", "session-1", "--file", "api/schema.yaml", "--json"],
    ["add", "--title", "token AKIAIOSFODNN7EXAMPLE leaked", "--body", "password=hunter2hunter2 in the log", "--json"],
]


@pytest.mark.parametrize("argv", CASES)
def test_fast_add_writes_what_the_full_add_writes(pair: tuple[Path, Path], argv: list[str]) -> None:
    full, fast = pair
    expected = _run(cli.main, ["--root", str(full), *argv])
    assert expected[0] == 0, expected
    got = _run(fastcli.main, ["--root", str(fast), *argv])
    assert got == expected  # exit status and stdout, byte for byte
    assert _files(fast) == _files(full)
    assert _rows(fast) == _rows(full)
    assert _rows(fast)["in_step"]
    added = json.loads(got[1])["entry"] if "--json" in argv else None
    if added is not None:
        view = {k: added[k] for k in ("kind", "title", "body", "scope")}
        assert _vouched(fast, view) == _vouched(full, view) is True
    # the next store write and read see the fast one's memory as the full one's
    assert [e.id for e in MemoryStore(fast).entries()] == [e.id for e in MemoryStore(full).entries()]


class _Symbols:
    """A code map's tie source as core registers it (``CodeTieSource``): the symbols a text names. Core's
    ``test_codeties`` runs the same comparison on a real code index."""

    def __init__(self, root: str, broken: bool = False) -> None:
        self.root, self.broken = root, broken

    def symbols_named(self, text: str) -> list[tuple[str, str]]:
        if self.broken:
            raise RuntimeError("the code index is locked")
        found = [("python api/schema.yaml Schema#", "api/schema.yaml"), ("python api/ Api#", "api")]
        return found if "Schema" in text else []

    def existing(self, ids: list[str]) -> set[str]:
        return set(ids)


@pytest.mark.parametrize("broken", [False, True])
@pytest.mark.parametrize(
    "argv",
    [
        ["add", "--title", "Always validate through Schema", "--body", "see api/schema.yaml", "--json"],
        ["add", "--kind", "lesson", "--title", "Schema first", "--json"],
        ["add", "--kind", "summary", "--title", "Schema session", "--json"],  # digests are never tied
        ["add", "--title", "No symbol named here", "--json"],
    ],
)
def test_fast_add_ties_symbols_as_the_full_add(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, argv: list[str], broken: bool
) -> None:
    """With the code map's tie source registered the fast path adds (it handed over before: ~100 ms more)."""
    full, fast = pair
    monkeypatch.setattr(ties, "source_factory", lambda root: _Symbols(root, broken))
    expected = _run(cli.main, ["--root", str(full), *argv])
    got = _run(fastcli.main, ["--root", str(fast), *argv])
    assert got == expected and got[0] == 0
    assert _files(fast) == _files(full)
    assert _rows(fast) == _rows(full)
    symbols = [t["symbol"] for t in json.loads(got[1])["entry"]["ties"] if t["symbol"]]
    tied = "Schema" in argv[argv.index("--title") + 1] and "summary" not in argv and not broken
    assert symbols == (["python api/schema.yaml Schema#"] if tied else [])  # a directory: no symbol tie


@pytest.mark.parametrize(
    "argv",
    [
        ["add", "--title", "Money is decimal.Decimal", "--kind", "lesson"],  # the same subject: supersedes
        ["add", "--kind", "lesson", "--title", "Money is decimal.Decimal", "--body", "Never use float for money."],
        ["add", "--title", "Service A must answer within 100 ms", "--body", "The SLO of service A is 100 ms at p99."],
        ["add", "--title", "x", "-"],  # the body from stdin
        ["add", "--title", "x", "--kind", "rumour"],
        ["add", "--title", "x", "--tit", "y"],
        ["add", "--title", "x", "--body", "a", "b"],
        ["add", "--help"],
        ["add", "--title"],
    ],
)
def test_fast_add_hands_over_without_writing(pair: tuple[Path, Path], argv: list[str]) -> None:
    _, fast = pair
    before = (_files(fast), _rows(fast))
    assert _run(fastcli.main, ["--root", str(fast), *argv]) == (None, "")
    assert (_files(fast), _rows(fast)) == before


def test_fast_add_hands_over_when_it_cannot_be_sure(pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _, fast = pair
    argv = ["--root", str(fast), "add", "--title", "Builds run on Tuesdays", "--json"]
    before = _files(fast)
    config = fast / ".meta" / "config.toml"
    config.write_text("[memory]\nfold_threshold = 0.9\n", encoding="utf-8")
    assert _run(fastcli.main, argv) == (None, "")  # a [memory] setting: load_config's to read
    config.write_text("# [memory]\n[lines]\nenabled = ['memory']\n", encoding="utf-8")
    config.write_text("[memory\n", encoding="utf-8")  # broken: the full CLI names the error
    assert _run(fastcli.main, argv) == (None, "")
    assert _files(fast) == before
    config.write_text("# [memory]\n[lines]\nenabled = ['memory']\n", encoding="utf-8")
    code, out = _run(fastcli.main, argv)  # ctx init's commented defaults: still the fast path
    assert code == 0 and json.loads(out)["action"] == "added"
    (fast / ".meta" / "index" / "memory-generation").write_text("another-writer", encoding="utf-8")
    assert _run(fastcli.main, [*argv[:-2], "--title", "Another one"]) == (None, "")  # rows not in step


def test_fast_add_imports_neither_msgspec_nor_argparse(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    _store(root)
    code = (
        "import sys\nfrom ctxops_memory_store.fastcli import main\n"
        f"status = main(['--root', {str(root)!r}, 'add', '--title', 'Builds run on Tuesdays', '--json'])\n"
        "assert status == 0, status\n"
        "print(sorted(m for m in ('msgspec', 'argparse', 'ctxops_memory_store.store', 'pathlib') if m in sys.modules))"
    )
    # Untraced: coverage's tracer in a child (`.ci/coverage`) imports pathlib and tomllib of its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120, env=env
    )
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


ADDER = r"""
import json, subprocess, sys
root, w, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = []
for i in range(n):
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_memory_store", "--root", root, "add", "--json",
         "--title", f"Writer {w} note {i}: port {9000 + w * 100 + i} serves shard {w}-{i}"],
        capture_output=True, text=True)
    out.append([done.returncode, done.stdout, done.stderr])
print(json.dumps(out))
"""


def test_eight_fast_adders_all_land(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    _store(root)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ADDER, str(root), str(w), "4"], stdout=subprocess.PIPE, text=True, env=env
        )
        for w in range(8)
    ]
    results = [r for p in procs for r in json.loads(p.communicate(timeout=900)[0])]
    assert [r[0] for r in results] == [0] * 32, results  # none refused
    acked = {json.loads(r[1])["entry"]["id"] for r in results if json.loads(r[1])["action"] == "added"}
    assert len(acked) == 32
    entries = {e.id for e in MemoryStore(root).entries() if e.status == "active"}
    assert acked <= entries  # none lost
    rows = _rows(root)
    files = rows["files"]
    assert rows["in_step"] and isinstance(files, list) and len(files) == len(BASE) + 32  # the snapshot has each


def test_a_reader_after_an_add_trusts_the_rows_without_the_racy_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    _store(root)
    monkeypatch.setattr(snapshot, "SMALL", 0)  # the large store's rule: the directory's time, no stat of each file
    slept: list[float] = []
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    code, _ = _run(fastcli.main, ["--root", str(root), "add", "--title", "Builds run on Tuesdays"])
    assert code == 0
    # the clock probe shows the file system's clock past the write's time at once: no 50 ms racy wait
    assert not [s for s in slept if s > 0.005], slept
    index_dir, memory_dir = str(root / ".meta" / "index"), str(root / ".meta" / "memory")
    monkeypatch.setattr(snapshot, "_listing", lambda _d: pytest.fail("listed the memory directory"))
    opened = snapshot.open_for_read(index_dir, memory_dir)
    assert opened is not None and not opened.behind
    opened.close()
    # a change after the settled time is seen: the directory's time moves on, and the rows are not trusted
    (root / ".meta" / "memory" / "fact-by-hand-abcdef.md").write_text("+++\n+++\n", encoding="utf-8")
    monkeypatch.setattr(snapshot, "_listing", lambda _d: None)
    assert snapshot.open_for_read(index_dir, memory_dir) is None


def test_a_lock_never_let_go_is_said_once_not_waited_for_twice(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxops_contracts.shared.locks import file_lock
    from ctxops_memory_store import write_turn

    _, fast = pair
    monkeypatch.setattr(write_turn, "WRITE_WAIT_S", 0.2)
    before = _files(fast)
    with file_lock(fast / ".meta" / "index" / write_turn.WRITE_LOCK, timeout=5):
        code, out = _run(fastcli.main, ["--root", str(fast), "add", "--title", "Builds run on Tuesdays", "--json"])
    assert code == 4  # the full CLI's LockBusy answer, without queueing another WRITE_WAIT_S behind it
    assert list(json.loads(out)) == ["error"] and "try again" in json.loads(out)["error"]["fix"]
    assert _files(fast) == before
