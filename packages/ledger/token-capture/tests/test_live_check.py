# ruff: noqa: PTH105, PTH113, PTH116, PTH118 - the reference walk is os.walk with strings, as the ingest had it
"""Issue 25 item 3: the no-op check of a live report (``livecheck``), on real files in real directories.

The check answers "nothing changed" only when an ingest would read nothing: every change a transcript can
undergo (appended, created, touched, replaced, removed, a directory gone) makes it answer "changed", and the
walk it makes is the one the ingest makes (same files, same order) on nested, symlinked and looping trees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_token_capture import livecheck
from ctxops_token_capture.ingest import Sources, ingest, live
from ctxops_token_capture.sources import bases_of


def _line(n: int, session: str = "s1") -> str:
    return (
        json.dumps(
            {
                "type": "assistant",
                "timestamp": f"2026-11-01T10:{n % 60:02d}:00Z",
                "sessionId": session,
                "requestId": f"r-{n}",
                "cwd": "/tmp/x",
                "message": {
                    "id": f"m-{n}",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input_tokens": n, "output_tokens": 1},
                },
            }
        )
        + "\n"
    )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Sources]:
    config = tmp_path / "claude"
    for project in ("p1", "p2"):
        (config / "projects" / project).mkdir(parents=True)
        for n in range(3):
            (config / "projects" / project / f"s{n}.jsonl").write_text(_line(n, f"{project}-{n}"))
    root = tmp_path / "ledger"
    sources = Sources(claude_dirs=[config])
    ingest(sources, root)
    return config, root, sources


def _calls(root: Path) -> int:
    import duckdb

    with duckdb.connect(str(root / "ledger.duckdb"), read_only=True) as con:
        row = con.execute("select count(*) from usage").fetchone()
    assert row is not None
    return int(row[0])


def _bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_nothing_changed_is_told_without_reading(setup: tuple[Path, Path, Sources]) -> None:
    _, root, _ = setup
    assert livecheck.unchanged(str(root)) is True
    assert live(root) is None
    assert livecheck.unchanged(str(root)) is True  # a live report with nothing to do writes nothing


@pytest.mark.parametrize("change", ["append", "new file", "new project", "touch", "replace same size", "remove"])
def test_every_change_is_seen_and_ingested(setup: tuple[Path, Path, Sources], change: str) -> None:
    config, root, _ = setup
    before = _calls(root)
    target = config / "projects" / "p1" / "s1.jsonl"
    expected = before
    if change == "append":
        with target.open("a") as handle:
            handle.write(_line(40, "p1-1"))
        expected += 1
    elif change == "new file":
        (config / "projects" / "p2" / "s9.jsonl").write_text(_line(41, "p2-9"))
        expected += 1
    elif change == "new project":
        (config / "projects" / "p3" / "deep").mkdir(parents=True)
        (config / "projects" / "p3" / "deep" / "s.jsonl").write_text(_line(42, "p3"))
        expected += 1
    elif change == "touch":
        _bump_mtime(target)
    elif change == "replace same size":
        replacement = target.with_suffix(".new")
        replacement.write_text(target.read_text().replace('"input_tokens": 1,', '"input_tokens": 7,'))
        assert replacement.stat().st_size == target.stat().st_size
        os.replace(replacement, target)  # a new inode: the ingest takes it for another file
    elif change == "remove":
        target.unlink()
    assert livecheck.unchanged(str(root)) is False
    live(root)
    assert _calls(root) >= expected
    if change in {"append", "new file", "new project"}:
        assert _calls(root) == expected  # the new call is in, and nothing twice
    assert livecheck.unchanged(str(root)) is True  # caught up: the next report does nothing


def test_state_gone_or_damaged_or_old_signature_answers_changed(setup: tuple[Path, Path, Sources]) -> None:
    _, root, sources = setup
    signature = root / "state" / "sources.sig"
    saved = signature.read_bytes()
    signature.write_bytes(saved.replace(b"ctxops-sources-sig 2", b"ctxops-sources-sig 1", 1))
    assert livecheck.unchanged(str(root)) is False
    signature.write_bytes(saved[: len(saved) // 2])
    assert livecheck.unchanged(str(root)) is False
    signature.unlink()
    assert livecheck.unchanged(str(root)) is False
    ingest(sources, root)
    assert livecheck.unchanged(str(root)) is True
    (root / "state" / "sources.json").write_bytes((root / "state" / "sources.json").read_bytes() + b" ")
    assert livecheck.unchanged(str(root)) is False


def test_a_directory_gone_answers_changed_and_the_report_still_works(
    setup: tuple[Path, Path, Sources], tmp_path: Path
) -> None:
    config, root, _ = setup
    other = tmp_path / "other"
    (other / "projects" / "q").mkdir(parents=True)
    (other / "projects" / "q" / "a.jsonl").write_text(_line(50, "q"))
    both = Sources(claude_dirs=[config, other])
    ingest(both, root)
    assert livecheck.unchanged(str(root)) is True
    for path in sorted(other.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    other.rmdir()
    assert livecheck.unchanged(str(root)) is False
    assert live(root) is None  # re-read what is still there: nothing new
    assert livecheck.unchanged(str(root)) is True


def test_ingesting_other_directories_drops_the_signature_first(
    setup: tuple[Path, Path, Sources], tmp_path: Path
) -> None:
    """A live report re-reads the directories the last ingest named; a signature of other ones must not speak
    for them (an ingest that fails after naming them leaves no signature)."""
    _, root, _ = setup
    other = tmp_path / "other"
    (other / "projects" / "q").mkdir(parents=True)
    (other / "projects" / "q" / "a.jsonl").write_text("not json\n" * 3)
    from ctxops_token_capture.ingest import _remember

    _remember(root, Sources(claude_dirs=[other]))
    assert not (root / "state" / "sources.sig").exists()
    assert livecheck.unchanged(str(root)) is False


def test_a_relative_directory_never_passes_for_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude"
    (config / "projects" / "p").mkdir(parents=True)
    (config / "projects" / "p" / "a.jsonl").write_text(_line(1))
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "ledger"
    ingest(Sources(claude_dirs=[Path("claude")]), root)
    assert livecheck.unchanged(str(root)) is False  # its files are named relative; a walk from elsewhere differs
    assert ingest(Sources(claude_dirs=[Path("claude")]), root).files_read == 0  # the ingest's own re-run: no-op


def _reference_walk(top: str) -> list[str]:
    """What the ingest walked with before (os.walk, links followed, each directory once, names sorted)."""
    visited: set[tuple[int, int]] = set()
    out = []
    for directory, subdirs, names in os.walk(top, followlinks=True):
        st = os.stat(directory)
        if (st.st_dev, st.st_ino) in visited:
            subdirs[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        subdirs.sort()
        out += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".jsonl")]
    return out


def test_the_walk_is_the_ingests_on_nested_linked_and_looping_trees(tmp_path: Path) -> None:
    top = tmp_path / "claude" / "projects"
    for rel in [
        "b/z.jsonl",
        "b/a.jsonl",
        "a/x/1.jsonl",
        "a/x/10.jsonl",
        "a/x/2.jsonl",
        "a/y.jsonl",
        "a/y.txt",
        "c.jsonl",
    ]:
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text(_line(1))
    (top / "a-b").mkdir()
    (top / "a-b" / "s.jsonl").write_text(_line(2))
    (top / "link").symlink_to(top / "a")  # a linked directory: walked once, under its first name
    (top / "a" / "loop").symlink_to(top)  # a cycle
    (top / "dangling.jsonl").symlink_to(tmp_path / "nowhere")
    (top / "dir.jsonl").mkdir()  # a directory named like a transcript
    (top / "dir.jsonl" / "in.jsonl").write_text(_line(3))
    walked = livecheck._walk_jsonl(str(top))
    assert walked == _reference_walk(str(top))
    found = livecheck.walk([("claude-code", str(tmp_path / "claude"))])
    assert [f[2] for f in found] == [p for p in walked if os.path.isfile(p)]
    assert len({(f[3].st_dev, f[3].st_ino) for f in found}) == len(found)


def test_codex_and_gemini_files_are_picked_and_ordered_as_before(tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    for rel in [
        "2026/11/02/rollout-b.jsonl",
        "2026/11/02/other.jsonl",
        "2026/11/01/rollout-a.jsonl",
        "2026/10/rollout-c.jsonl",
    ]:
        (codex / "sessions" / rel).parent.mkdir(parents=True, exist_ok=True)
        (codex / "sessions" / rel).write_text("{}\n")
    gemini = tmp_path / "gemini"
    for rel in ["h1/chats/session-2.jsonl", "h1/chats/other.jsonl", "h0/chats/session-1.jsonl", "h0/session-x.jsonl"]:
        (gemini / "tmp" / rel).parent.mkdir(parents=True, exist_ok=True)
        (gemini / "tmp" / rel).write_text("{}\n")
    sources = Sources(codex_homes=[codex], gemini_dirs=[gemini])
    found = livecheck.walk(bases_of(sources))
    names = [os.path.relpath(f[2], tmp_path) for f in found]
    assert names == [
        "codex/sessions/2026/10/rollout-c.jsonl",
        "codex/sessions/2026/11/01/rollout-a.jsonl",
        "codex/sessions/2026/11/02/rollout-b.jsonl",
        "gemini/tmp/h0/chats/session-1.jsonl",
        "gemini/tmp/h1/chats/session-2.jsonl",
    ]


def test_the_fresh_process_check_imports_nothing_heavy(setup: tuple[Path, Path, Sources]) -> None:
    _, root, _ = setup
    code = (
        "import sys\nfrom ctxops_token_capture.livecheck import unchanged\nok = unchanged(sys.argv[1])\n"
        "names = ('pathlib', 'json', 're', 'msgspec', 'duckdb', 'pyarrow', 'typing')\n"
        "heavy = sorted(m for m in names if m in sys.modules)\n"
        "print(ok, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True).stdout
    assert out.startswith("True ")
    if not os.environ.get("COVERAGE_PROCESS_CONFIG"):  # coverage's tracer imports modules of its own
        assert out.strip() == "True []"
    (next((root.parent / "claude" / "projects" / "p1").glob("*.jsonl"))).open("a").write(_line(70))
    module = subprocess.run([sys.executable, "-m", "ctxops_token_capture.livecheck", str(root)], check=False)
    assert module.returncode == 1  # changed
    live(root)
    module = subprocess.run([sys.executable, "-m", "ctxops_token_capture.livecheck", str(root)], check=False)
    assert module.returncode == 0
