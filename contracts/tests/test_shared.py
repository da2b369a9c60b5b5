"""The shared mechanics: one repository root, locks that exclude another process, whole lines or nothing,
atomic writes, the CLI grammar's time formats and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ctxops_contracts.shared import cli, confine, files, layout, locks, repo, retry


def test_a_symlinked_checkout_has_one_root_the_real_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(repo.ROOT_ENV, raising=False)
    real = tmp_path / "real"
    (real / ".git").mkdir(parents=True)
    (real / "src").mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert repo.find_root(link / "src") == str(real.resolve())
    assert repo.find_root(real / "src") == str(real.resolve())
    assert repo.repo_relative(str(real.resolve()), str(link / "src" / "a.py")) == "src/a.py"


def test_outside_a_repository_is_an_error_naming_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(repo.ROOT_ENV, raising=False)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(repo.NotARepository) as caught:
        repo.find_root(plain)
    assert "--root" in caught.value.fix
    assert repo.try_find_root(plain) is None
    # --root names a plain directory on purpose: it is taken as the root
    assert repo.find_root(explicit=plain) == str(plain.resolve())
    with pytest.raises(repo.NotARepository, match="no such directory"):
        repo.find_root(explicit=tmp_path / "missing")


def test_the_environment_override_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(repo.ROOT_ENV, str(tmp_path))
    assert repo.find_root("/") == str(tmp_path.resolve())


_HOLD = """
import sys, time
from ctxops_contracts.shared.locks import file_lock
with file_lock(sys.argv[1], write_pid=True):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_lock_held_by_another_process_times_out_naming_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(path), "30"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(locks.LockBusy) as caught, locks.file_lock(path, timeout=0.2):
            pass
        assert time.monotonic() - started < 5
        assert caught.value.holder == holder.pid
    finally:
        holder.kill()
        holder.wait()
    # the holder died: the operating system released its lock
    with locks.file_lock(path, timeout=1.0):
        pass


_APPEND = """
import sys
from ctxops_contracts.shared.files import append_lines
# the lock's own deadline is not what this test checks: a loaded machine's fsync queue may hold it past 2 s
for i in range(200):
    append_lines(sys.argv[1], (sys.argv[2] + str(i) + "x" * 5000 + "\\n").encode(), lock_timeout=60)
"""


def test_concurrent_appends_give_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "events" / "day.jsonl"
    procs = [subprocess.Popen([sys.executable, "-c", _APPEND, str(path), f"w{n}-"]) for n in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == 800
    assert all(line.endswith(b"x" * 5000) for line in lines[:-1])


def test_an_append_must_be_whole_lines(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="newline"):
        files.append_lines(tmp_path / "a.jsonl", b"no newline")
    assert not (tmp_path / "a.jsonl").exists()


def test_a_failed_append_rolls_back_to_the_last_whole_line(tmp_path: Path) -> None:
    # /dev/full fails every write with ENOSPC: a real full disk, without filling one
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    target = tmp_path / "full.jsonl"
    target.symlink_to("/dev/full")
    with pytest.raises(OSError):
        files.append_lines(target, b'{"a":1}\n')


def test_atomic_write_replaces_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "d" / "f.txt"
    files.atomic_write(target, "one")
    files.atomic_write(target, b"two")
    assert target.read_text() == "two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.txt"]


def test_atomic_write_failure_leaves_the_old_file_and_no_orphan(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    files.atomic_write(target, "old")
    (tmp_path / "blocker").mkdir()
    with pytest.raises(OSError):
        files.atomic_write(tmp_path / "blocker", "cannot replace a directory")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "f.txt"]


def test_retry_retries_then_reraises() -> None:
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise BlockingIOError("busy")
        return "ok"

    assert retry.retry(flaky, on=OSError, timeout=2.0, first_delay=0.001) == "ok"
    assert len(calls) == 3

    def always() -> None:
        raise TimeoutError("still busy")

    with pytest.raises(TimeoutError):
        retry.retry(always, on=TimeoutError, timeout=0.05, first_delay=0.001)
    with pytest.raises(PermissionError):
        retry.retry(lambda: (_ for _ in ()).throw(PermissionError("no")), on=OSError, timeout=5, give_up=lambda e: True)


def test_any_directory_made_under_meta_writes_the_ignore_file_first(tmp_path: Path) -> None:
    # a package that only ever calls ensure_dir (no ensure_meta) still leaves `git status` clean
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    confine.ensure_dir(tmp_path / ".meta" / "index")
    (tmp_path / ".meta" / "index" / "code.duckdb").write_bytes(b"x" * 100)
    assert (tmp_path / ".meta" / ".gitignore").read_text() == layout.GITIGNORE_TEXT
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == ""
    # a symlink at .meta/.gitignore is never written through
    (tmp_path / ".meta" / ".gitignore").unlink()
    (tmp_path / ".meta" / ".gitignore").symlink_to(tmp_path / "elsewhere")
    confine.ensure_dir(tmp_path / ".meta" / "logs")
    assert not (tmp_path / "elsewhere").exists()


def test_meta_ignore_file_keeps_captured_data_out_of_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    layout.ensure_meta(str(tmp_path))
    for sub in ("events", "index", "logs", "outputs", "memory"):
        (tmp_path / ".meta" / sub).mkdir()
        (tmp_path / ".meta" / sub / "x.txt").write_text("x")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # memories are tracked; the ignore file ignores itself (every package writes it before its first write)
    assert ".meta/memory/x.txt" in status and ".meta/.gitignore" not in status
    for hidden in ("events", "index", "logs", "outputs"):
        assert f".meta/{hidden}/" not in status
    # a user's own edit of the ignore file is kept
    (tmp_path / ".meta" / ".gitignore").write_text("mine\n")
    confine.ensure_dir(tmp_path / ".meta" / "index" / "deeper")
    assert (tmp_path / ".meta" / ".gitignore").read_text() == "mine\n"
    layout.ensure_meta(str(tmp_path))
    assert (tmp_path / ".meta" / ".gitignore").read_text() == "mine\n"


def test_user_data_dir_follows_the_override_and_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(layout.DATA_DIR_ENV, str(tmp_path / "d"))
    assert layout.user_data_dir() == str(tmp_path / "d")
    monkeypatch.delenv(layout.DATA_DIR_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert layout.user_data_dir() == str(tmp_path / "xdg" / "ctxops")
        assert layout.context_records_dir() == str(tmp_path / "xdg" / "ctxops" / "context")


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30T10:00:00Z", datetime(2026, 11, 30, 10, 0, tzinfo=UTC)),
        ("2026-11-30T10:00:00+02:00", datetime(2026, 11, 30, 8, 0, tzinfo=UTC)),
        ("90m", NOW - timedelta(minutes=90)),
        ("12h", NOW - timedelta(hours=12)),
        ("7d", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(weeks=2)),
        ("now", NOW),
    ],
)
def test_times_take_rfc3339_and_ages(text: str, expected: datetime) -> None:
    assert cli.parse_time(text, now=NOW) == expected


def test_dates_mean_local_midnight() -> None:
    local = datetime(2026, 11, 30).astimezone()
    assert cli.parse_time("2026-11-30") == local.astimezone(UTC)
    assert cli.parse_time("20261130") == local.astimezone(UTC)


def test_a_bad_time_names_the_formats() -> None:
    with pytest.raises(cli.CliError) as caught:
        cli.parse_time("notadate", option="--until")
    assert "--until 'notadate'" in caught.value.message
    assert "RFC 3339" in caught.value.fix and "7d" in caught.value.fix


_GRAMMAR = """
import sys
from ctxops_contracts.shared import cli
p = cli.Parser(prog="demo")
cli.add_common_options(p, subcommand=False)
sub = p.add_subparsers(dest="command", required=True)
q = sub.add_parser("q", help="a query")
cli.add_common_options(q, subcommand=True)
q.add_argument("name", help="a name")
ns = p.parse_args(sys.argv[1:])
print(cli.dumps({"root": ns.root, "json": ns.json, "name": ns.name}))
"""


@pytest.mark.parametrize(
    "argv",
    [["--root", "R", "--json", "q", "X"], ["q", "X", "--root", "R", "--json"], ["--json", "q", "--root", "R", "X"]],
)
def test_common_options_go_before_or_after_the_command(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _GRAMMAR, *argv], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"root": "R", "json": True, "name": "X"}


def test_usage_errors_exit_2_as_json_on_stdout_with_json() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GRAMMAR, "--json", "nope"], capture_output=True, text=True, check=False
    )
    assert done.returncode == cli.EXIT_USAGE
    error = json.loads(done.stdout)["error"]
    assert error["code"] == 2 and "demo --help" in error["fix"]
    text = subprocess.run([sys.executable, "-c", _GRAMMAR, "nope"], capture_output=True, text=True, check=False)
    assert text.returncode == 2 and text.stdout == "" and "demo: error:" in text.stderr


def test_report_error_and_plural(capsys: pytest.CaptureFixture[str]) -> None:
    err = cli.CliError("no index", fix="run cq index")
    assert cli.report_error(err, prog="cq", json_mode=True) == 2
    assert json.loads(capsys.readouterr().out) == {"error": {"message": "no index", "fix": "run cq index", "code": 2}}
    cli.report_error(err, prog="cq", json_mode=False)
    assert capsys.readouterr().err == "cq: error: no index\n  fix: run cq index\n"
    assert cli.plural(1, "hit") == "1 hit" and cli.plural(2, "hit") == "2 hits"
    assert cli.plural(2, "entry", "entries") == "2 entries"


def test_the_shared_helpers_import_without_msgspec() -> None:
    probe = (
        "import ctxops_contracts.shared.repo, ctxops_contracts.shared.locks, ctxops_contracts.shared.files, "
        "ctxops_contracts.shared.layout, ctxops_contracts.shared.retry, sys; "
        "print('msgspec' in sys.modules, 'pathlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == "False"
    assert os.environ is not None


def test_bpe_loads_the_bundled_tokenizer_without_the_package_init() -> None:
    import importlib.util

    if importlib.util.find_spec("bpe_openai") is None:
        pytest.skip("bpe-openai is a dependency of the lines that count tokens, not of contracts")
    code = (
        "import sys; from ctxops_contracts.shared import bpe; t = bpe.tokenizer('cl100k_base'); "
        "print(t.count('hello world'), 'bpe_openai' in sys.modules, "
        "bpe.bindings() is sys.modules['bpe_openai._bindings'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    # two cl100k tokens; the package __init__ (its slow registry) never ran; the bindings are loaded once
    assert out == ["2", "False", "True"]


def test_bpe_names_the_fix_when_the_package_is_missing(monkeypatch) -> None:
    import importlib.util

    from ctxops_contracts.shared import bpe

    monkeypatch.delitem(sys.modules, "bpe_openai._bindings", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    bpe.bindings.cache_clear()
    try:
        with pytest.raises(bpe.TokenizerUnavailable, match="pip install bpe-openai"):
            bpe.bindings()
    finally:
        bpe.bindings.cache_clear()


def test_file_lock_releases_and_closes_when_the_block_raises(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.lock"
    with pytest.raises(RuntimeError, match="inside"), locks.file_lock(path, write_pid=True) as fd:
        assert locks.holder_pid(path) == os.getpid()
        raise RuntimeError("inside")
    with pytest.raises(OSError):
        os.fstat(fd)  # closed
    assert path.read_bytes() == b""  # the pid is cleared on release
    with locks.file_lock(path, timeout=0.0):  # and the lock is free again
        pass


def test_locked_fd_holds_the_lock_for_the_block(tmp_path: Path) -> None:
    path = tmp_path / "y.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        with (
            locks.locked_fd(fd, timeout=0.0, path=str(path)),
            pytest.raises(locks.LockBusy),
            locks.file_lock(path, timeout=0.05),
        ):
            pass
        with locks.file_lock(path, timeout=0.0):
            pass
    finally:
        os.close(fd)


_EXIT_NOW = """
import atexit, gc, sys
from ctxops_contracts.shared.process_exit import exit_now, short_lived
short_lived()
assert not gc.isenabled()
atexit.register(lambda: open(sys.argv[1], "w").write("handler ran"))
sys.stdout.write("buffered output")  # not flushed yet: exit_now must flush it
exit_now(int(sys.argv[2]))
print("never printed")
"""


@pytest.mark.parametrize("status", [0, 3])
def test_exit_now_flushes_runs_exit_handlers_and_keeps_the_status(tmp_path: Path, status: int) -> None:
    marker = tmp_path / "marker"
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_NOW, str(marker), str(status)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, "buffered output", "")
    assert marker.read_text() == "handler ran"


def test_lazy_logger_imports_logging_on_first_use_and_logs_as_the_real_one() -> None:
    probe = (
        "import sys\n"
        "from ctxops_contracts.shared.lazylog import get_logger\n"
        "log = get_logger('ctxops.probe')\n"
        "print('logging' in sys.modules)\n"
        "import logging\n"
        "logging.basicConfig(stream=sys.stdout, format='%(name)s %(levelname)s %(message)s')\n"
        "log.warning('hello %s', 'there')\n"
        "print(log.name, log.isEnabledFor(logging.WARNING), repr(log))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "False",
        "ctxops.probe WARNING hello there",
        "ctxops.probe True <lazy logger ctxops.probe>",
    ]


def test_blake2b_hex_is_hashlibs() -> None:
    import hashlib

    from ctxops_contracts.shared.digest import blake2b_hex

    for data, size in [(b"", 8), (b"session-1", 8), ("é".encode() * 1000, 12), (b"x", 10)]:
        assert blake2b_hex(data, size) == hashlib.blake2b(data, digest_size=size).hexdigest()
