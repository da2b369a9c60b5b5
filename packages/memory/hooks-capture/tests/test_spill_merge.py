# ruff: noqa: PTH119, PTH208
"""Spill files: a name is parsed by a fixed grammar (never decoded into a path), and merging is idempotent
by event id: concurrent captures, and captures killed with SIGKILL mid-merge, never write a line twice."""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ctxops_contracts.shared.confine import UnsafePath
from ctxops_hooks_capture.event_log import (
    SPILL_DIR,
    merge_spills,
    spill,
    spill_target,
    unseen_lines,
)

DAY = time.strftime("%Y-%m-%d", time.gmtime())


def _line(event_id: str, text: str = "x") -> bytes:
    return (json.dumps({"schema_version": "1.0", "id": event_id, "text": text}, separators=(",", ":")) + "\n").encode()


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("2026-12-01.jsonl.123.456.spill", "2026-12-01.jsonl"),
        ("raw__2026-12-01.jsonl.1.2.spill", "raw/2026-12-01.jsonl"),
        ("__tmp__pwned__x.sh.1.2.spill", None),  # the attack: an absolute path, encoded
        ("__home__user__.bashrc.1.2.spill", None),
        ("..__..__x.jsonl.1.2.spill", None),
        ("raw__..__2026-12-01.jsonl.1.2.spill", None),
        ("2026-12-01.jsonl__..__x.1.2.spill", None),
        ("2026-12-01.jsonl.1.2", None),
        ("2026-12-01.jsonl.x.2.spill", None),
        ("2026-12-01.jsonl.1.-2.spill", None),
        ("2026-1２-01.jsonl.1.2.spill", None),  # a full-width digit
        ("2026-12-01.jsonl.١.2.spill", None),  # an Arabic-Indic digit
        ("2026_12_01.jsonl.1.2.spill", None),
        ("2026-12-01.json.1.2.spill", None),
        ("2026-12-01.jsonl.spill", None),
        ("config.toml.1.2.spill", None),
        ("raw__raw__2026-12-01.jsonl.1.2.spill", None),
        (".2026-12-01.jsonl.1.2.spill", None),
    ],
)
def test_spill_names_follow_a_fixed_grammar(name: str, target: str | None) -> None:
    assert spill_target(name) == target


def test_spill_refuses_a_target_that_is_not_a_day_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an event log file"):
        spill(str(tmp_path), "../../x.sh", b"a\n")
    path = spill(str(tmp_path), f"raw/{DAY}.jsonl", b"a\n")
    assert spill_target(os.path.basename(path)) == f"raw/{DAY}.jsonl"


def test_merge_writes_only_day_files_and_removes_what_is_not_a_spill(tmp_path: Path) -> None:
    events = tmp_path / ".meta" / "events"
    spills = events / SPILL_DIR
    spills.mkdir(parents=True)
    outside = tmp_path / "outside.sh"
    (spills / f"{str(outside).replace('/', '__')}.1.2.spill").write_bytes(b"echo pwned\n")
    (spills / "notes.txt").write_bytes(b"hello\n")
    (spills / f"{DAY}.jsonl.1.2.spill").write_bytes(_line("01A"))
    (spills / f"raw__{DAY}.jsonl.1.3.spill").write_bytes(_line("01B"))
    assert merge_spills(str(events)) == 2
    assert not outside.exists()
    assert sorted(os.listdir(spills)) == []
    assert (events / f"{DAY}.jsonl").read_bytes() == _line("01A")
    assert (events / "raw" / f"{DAY}.jsonl").read_bytes() == _line("01B")


def test_a_spill_that_is_a_symlink_fifo_or_huge_is_removed_unread(tmp_path: Path) -> None:
    events = tmp_path / ".meta" / "events"
    spills = events / SPILL_DIR
    spills.mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.write_bytes(_line("01SECRET", "do not copy me"))
    (spills / f"{DAY}.jsonl.1.1.spill").symlink_to(secret)
    (spills / f"{DAY}.jsonl.1.2.spill").symlink_to("/dev/zero")
    os.mkfifo(spills / f"{DAY}.jsonl.1.3.spill")
    with (spills / f"{DAY}.jsonl.1.4.spill").open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    started = time.monotonic()
    assert merge_spills(str(events)) == 0
    assert time.monotonic() - started < 5
    assert os.listdir(spills) == []
    assert secret.read_bytes() == _line("01SECRET", "do not copy me")
    day = events / f"{DAY}.jsonl"
    assert not day.exists() or b"do not copy" not in day.read_bytes()


def test_junk_in_the_spill_directory_never_crowds_out_spills(tmp_path: Path) -> None:
    """Directories (which cannot be removed) and junk named to sort first are counted apart from spills."""
    events = tmp_path / ".meta" / "events"
    spills = events / SPILL_DIR
    spills.mkdir(parents=True)
    for n in range(10):
        (spills / f"0000-junk-{n}").mkdir()
        (spills / f"0001-junk-{n}.spill").write_bytes(b"x\n")
    (spills / f"{DAY}.jsonl.1.2.spill").write_bytes(_line("01REAL"))
    assert merge_spills(str(events), limit=4) == 1
    assert (events / f"{DAY}.jsonl").read_bytes() == _line("01REAL")


def test_a_symlinked_spill_directory_is_refused(tmp_path: Path) -> None:
    events = tmp_path / ".meta" / "events"
    events.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"{DAY}.jsonl.1.2.spill").write_bytes(_line("01X"))
    (events / SPILL_DIR).symlink_to(elsewhere)
    with pytest.raises(UnsafePath, match="symlink"):
        merge_spills(str(events))
    assert os.listdir(elsewhere) == [f"{DAY}.jsonl.1.2.spill"]


def test_lines_a_killed_merge_already_appended_are_not_appended_again(tmp_path: Path) -> None:
    """A merge killed between its append and its unlink leaves the spill: the next merge skips its lines."""
    events = tmp_path / ".meta" / "events"
    spills = events / SPILL_DIR
    spills.mkdir(parents=True)
    day = events / f"{DAY}.jsonl"
    payload = _line("01AAA") + _line("01BBB")
    day.write_bytes(_line("01OLD") + payload + _line("01NEWER"))  # appended, then others wrote after it
    (spills / f"{DAY}.jsonl.7.8.spill").write_bytes(payload + _line("01CCC"))
    assert merge_spills(str(events)) == 1
    ids = [json.loads(line)["id"] for line in day.read_bytes().splitlines()]
    assert ids == ["01OLD", "01AAA", "01BBB", "01NEWER", "01CCC"]


def test_unseen_lines_skips_known_ids_repeats_and_a_cut_off_tail() -> None:
    tail = _line("01A")
    payload = _line("01A") + _line("01B") + _line("01B") + b'{"no_id":1}\n' + b'{"id":"01C","cut'
    assert unseen_lines(payload, tail) == _line("01B") + b'{"no_id":1}\n'


# -- real processes -----------------------------------------------------------------------------------------


def _hook(repo: Path, writer: int, n: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxops_hooks_capture", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=repo,
    )
    payload = {"session_id": f"s{writer % 4}", "cwd": str(repo), "hook_event_name": "UserPromptSubmit"}
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({**payload, "prompt": f"writer {writer} event {n}"}).encode())
    proc.stdin.close()
    return proc


def _lock_holder(path: Path, stop: threading.Event) -> None:
    """Hold the day file's lock on and off, past the hooks' 0.2 s budget: they spill, and later merge."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while not stop.is_set():
            fcntl.flock(fd, fcntl.LOCK_EX)
            time.sleep(0.35)
            fcntl.flock(fd, fcntl.LOCK_UN)
            time.sleep(0.25)
    finally:
        os.close(fd)


def _count(repo: Path) -> tuple[Counter[str], Counter[str]]:
    events = repo / ".meta" / "events"
    ids: Counter[str] = Counter()
    raw: Counter[str] = Counter()
    for counter, files in ((ids, events.glob("*.jsonl")), (raw, (events / "raw").glob("*.jsonl"))):
        for path in files:
            for line in path.read_bytes().splitlines():
                try:
                    counter[json.loads(line)["id"]] += 1
                except (ValueError, KeyError):
                    continue  # a killed writer's partial line
    return ids, raw


def _spill_count(repo: Path) -> int:
    spills = repo / ".meta" / "events" / SPILL_DIR
    return len([n for n in os.listdir(spills) if n.endswith(".spill")]) if spills.is_dir() else 0


@pytest.mark.slow
@pytest.mark.parametrize("kill", [False, True], ids=["concurrent", "kill-9"])
def test_concurrent_captures_write_no_duplicate_line(repo: Path, kill: bool) -> None:
    """12 writers (hook processes) at once while the day file's lock comes and goes, so events spill and
    many captures race to merge the same spills; with ``kill-9`` a third of the processes are killed at a
    random moment (mid-append, mid-merge). Then every line's id is counted: none twice, none lost."""
    writers, per_writer = 12, 10
    # (today's file when the test starts, not when the module was imported: a run that crosses midnight UTC
    # held yesterday's lock and nothing spilled)
    day = repo / ".meta" / "events" / f"{time.strftime('%Y-%m-%d', time.gmtime())}.jsonl"
    stop = threading.Event()
    holder = threading.Thread(target=_lock_holder, args=(day, stop))
    holder.start()
    rng = random.Random(21)
    killed = 0
    peak_spills = 0

    def writer(w: int) -> int:
        nonlocal peak_spills
        dead = 0
        for n in range(per_writer):
            proc = _hook(repo, w, n)
            if kill and rng.random() < 0.33:
                time.sleep(rng.uniform(0.0, 0.4))
                proc.send_signal(signal.SIGKILL)
                dead += 1
            proc.wait(timeout=60)
            peak_spills = max(peak_spills, _spill_count(repo))
        return dead

    try:
        with ThreadPoolExecutor(max_workers=writers) as pool:
            killed = sum(pool.map(writer, range(writers)))
    finally:
        stop.set()
        holder.join()
    done = _hook(repo, 999, 0)  # a quiet capture merges what is left
    assert done.wait(timeout=60) == 0
    assert peak_spills > 0, "no event spilled: the test exercised no merge"
    assert _spill_count(repo) == 0
    ids, raw = _count(repo)
    duplicates = {k: v for k, v in ids.items() if v > 1}
    raw_duplicates = {k: v for k, v in raw.items() if v > 1}
    assert duplicates == {} and raw_duplicates == {}
    sent = writers * per_writer + 1
    if kill:
        assert sent - killed <= len(ids) <= sent
    else:
        assert len(ids) == sent
