"""Promise 7 (daemons): `ctx watch` killed with -9 in the middle of an index update leaves nothing behind.

Real processes: `ctx watch start` on a git repository of 400 Python files, 200 of them changed, the
daemon killed with SIGKILL 1-1.5 s later (its forked scan workers are busy then), and within a few
seconds: no process of its tree remains, `ctx watch status` says not running, `ctx watch start` works
and the index becomes fresh. Plus a lock whose recorded holder is gone is taken over.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc"),
]


def _ctx(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "ctx"), *args], cwd=root, capture_output=True, text=True, timeout=120, check=False)


def _processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every process."""
    found: dict[int, tuple[int, bytes]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rpartition(b")")[2].split()
            if fields[0] == b"Z":
                continue
            found[int(entry.name)] = (int(fields[1]), (entry / "cmdline").read_bytes())
        except (OSError, IndexError, ValueError):
            continue
    return found


def _tree(pid: int) -> set[int]:
    procs = _processes()
    tree, todo = {pid}, [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _) in procs.items():
            if ppid == parent and child not in tree:
                tree.add(child)
                todo.append(child)
    return tree


def _daemon_processes(root: Path) -> set[int]:
    return {
        pid
        for pid, (_, cmdline) in _processes().items()
        if b"ctxops_core.watch_daemon" in cmdline and str(root).encode() in cmdline
    }


def _stale_files(root: Path) -> list[str]:
    """The index's stale files, asked without updating it (a `cq` query would update it itself)."""
    code = (
        "import json, sys; from pathlib import Path; from ctxops_code_graph import CodeIndex; "
        "i = CodeIndex(Path(sys.argv[1]), auto_update=False); print(json.dumps(i.status().stale_files)); i.close()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        return ["<index busy or unreadable>"]
    return list(json.loads(done.stdout))


def _wait(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    for i in range(400):
        body = "".join(f"def func_{i}_{j}(x):\n    return helper_{j}(x) + {j}\n" for j in range(40))
        (root / "pkg" / f"m{i}.py").write_text(f"import os\n{body}", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_kill_9_mid_update_leaves_no_process_and_start_recovers(repo: Path) -> None:
    started = _ctx(repo, "watch", "start")
    assert started.returncode == 0, started.stderr
    pid = int(started.stdout.split("(pid ")[1].split(")")[0])
    try:
        _wait(lambda: not _stale_files(repo) and (repo / ".meta" / "index").is_dir(), 120, "first index build")
        time.sleep(0.5)
        for i in range(200):  # a 200-file change: the update forks scan workers
            with (repo / "pkg" / f"m{i}.py").open("a", encoding="utf-8") as fh:
                fh.write(f"\ndef added_{i}():\n    return {i}\n")
        changed = time.monotonic()
        tree: set[int] = {pid}
        while True:  # note every process of the daemon's tree until the kill: 1 s after the change at the
            tree |= _tree(pid)  # earliest, once its scan workers run (1-1.5 s here; later on a loaded machine)
            now = time.monotonic()
            if (len(tree) > 1 and now - changed >= 1.0) or now - changed > 20:
                break
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        assert len(tree) > 1, "the daemon had no workers at the kill: the test did not test anything"
        _wait(lambda: not (tree & set(_processes())), 5, f"processes of the killed daemon remain: {tree}")
        gone = time.monotonic() - killed_at
        status = _ctx(repo, "watch", "status")
        assert status.returncode == 0 and "not running" in status.stdout, status.stdout
        again = _ctx(repo, "watch", "start")
        assert again.returncode == 0 and "started" in again.stdout, (again.stdout, again.stderr)
        pid = int(again.stdout.split("(pid ")[1].split(")")[0])
        assert _ctx(repo, "watch", "status").stdout.startswith(f"ctx watch: running (pid {pid})")
        _wait(lambda: not _stale_files(repo), 60, "the index did not become fresh after the restart")
        fresh = time.monotonic() - killed_at
        print(f"old tree gone {gone:.2f} s after kill -9; index fresh {fresh:.2f} s after it")
    finally:
        _ctx(repo, "watch", "stop")
        for leftover in _daemon_processes(repo):
            os.kill(leftover, signal.SIGKILL)


def test_a_lock_held_past_its_recorded_holder_is_taken_over(repo: Path, tmp_path: Path) -> None:
    """What a platform without PR_SET_PDEATHSIG could leave: the lock held by an orphan whose pid is not the
    one recorded. `status` must not call it running, and `start` must start a daemon anyway."""
    lock = repo / ".meta" / ".state" / "watch.lock"
    lock.parent.mkdir(parents=True)
    holder_code = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
        "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, b'999999999 12345\\n'); print('held', flush=True); "
        "time.sleep(120)"
    )
    orphan = subprocess.Popen([sys.executable, "-c", holder_code, str(lock)], stdout=subprocess.PIPE)
    try:
        assert orphan.stdout is not None and orphan.stdout.readline().strip() == b"held"
        status = _ctx(repo, "watch", "status")
        assert "not running" in status.stdout, status.stdout
        started = _ctx(repo, "watch", "start")
        assert started.returncode == 0 and "started" in started.stdout, (started.stdout, started.stderr)
        assert "running (pid" in _ctx(repo, "watch", "status").stdout
        assert orphan.poll() is None  # the orphan was left alone: its lock is simply not ours any more
    finally:
        _ctx(repo, "watch", "stop")
        orphan.kill()
        orphan.wait()
