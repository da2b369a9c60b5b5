"""Automatic updates in a detached process, so the answering process can exit by its deadline.

A read that finds edited files starts `python -m ctxops_code_graph update ROOT` in its own session and
waits for it at most its deadline. The update runs to its commit whatever happens to the reader (progress
is never thrown away, so repeated reads converge); meanwhile reads answer from the snapshot and report
the files as stale. The child holds `code-update.lock` for its whole life, so concurrent readers join the
update already queued instead of starting another, and writes its report to `code-update.json`.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ctxops_contracts.shared import files, locks

from .layout import IndexLayout
from .results import BuildReport

log = logging.getLogger(__name__)


def build_running(root: str | os.PathLike[str]) -> bool:
    """True while some process holds the index's writer lock (a full build, or an update, in progress)."""
    from .lock import WriterLock

    return WriterLock(IndexLayout(Path(root).resolve()).lock_path).held_elsewhere()


def start_full_build(root: str | os.PathLike[str]) -> bool:
    """Start `python -m ctxops_code_graph index ROOT` detached (its own session, no pipes), so the caller
    exits at once; False when a build or update already holds the writer lock."""
    from ctxops_contracts.shared.detach import spawn_detached

    if build_running(root):
        return False
    spawn_detached([sys.executable, "-P", "-m", "ctxops_code_graph", "index", str(Path(root).resolve())])
    return True


def update_queued(layout: IndexLayout) -> bool:
    """True while some process's detached update holds the update lock (queued or running)."""
    if not layout.update_lock_path.exists():
        return False
    try:
        with locks.file_lock(layout.update_lock_path, timeout=0.0):
            return False
    except locks.LockBusy:
        return True


# Children started early in this process (see `start_early`), by repository root: adopted by the first
# `DetachedUpdate` of that root instead of starting another. With each, the seconds this process already
# waited for it (`wait_early`), which the adopter's wait counts against its own.
# A child of another process that this one joined (`update_queued`) is recorded as None.
_EARLY: dict[Path, tuple[subprocess.Popen[bytes] | None, float]] = {}


def start_early(root: str | os.PathLike[str], bound: int | None = 50) -> None:
    """Start the detached update now, before this process has imported what it needs to answer: a fresh
    `cq` that found edited files overlaps its own start-up with the update's (the first read adopts it)."""
    update = DetachedUpdate(IndexLayout(Path(root).resolve()), bound)
    update.start()
    if update._proc is not None or update._joined:
        _EARLY[update.layout.root] = (update._proc, 0.0)


def wait_early(root: str | os.PathLike[str], timeout: float) -> bool:
    """Wait up to ``timeout`` s for the update `start_early` started; True when it has exited. The child
    stays adoptable (a still-stale index sends the caller down the full path, which reads its outcome),
    and the time waited here is taken off the adopter's wait, so the two waits together keep one budget."""
    key = Path(root).resolve()
    early = _EARLY.get(key)
    if early is None:
        return False
    proc, waited = early
    started = time.monotonic()
    if proc is None:  # another process's update, joined: wait for its lock to be free
        update = DetachedUpdate(IndexLayout(key), None)
        update._joined = True
        done = update.wait(max(0.0, timeout))
    else:
        try:
            proc.wait(max(0.0, timeout))
            done = True
        except subprocess.TimeoutExpired:
            done = False
    _EARLY[key] = (proc, waited + time.monotonic() - started)
    return done


class DetachedUpdate:
    """One automatic update run by a detached child process."""

    def __init__(self, layout: IndexLayout, bound: int | None, lock_wait: float = 30.0) -> None:
        self.layout = layout
        self.bound = bound
        self.lock_wait = lock_wait
        self._proc: subprocess.Popen[bytes] | None = None
        self._waited = 0.0  # already waited for an adopted early child, taken off the first wait
        self._joined = False  # another process's update was already queued: this one waits on it

    def start(self) -> None:
        """Start the child, or adopt the one this process started early, or join another reader's."""
        early = _EARLY.pop(self.layout.root, None)
        if early is not None:
            self._proc, self._waited = early
            self._joined = self._proc is None
            return
        if update_queued(self.layout):
            self._joined = True
            return
        self.layout.ensure_index_dir()
        argv = [sys.executable, "-P", "-m", "ctxops_code_graph", "update", str(self.layout.root)]  # not from cwd
        argv += ["--lock-wait", str(self.lock_wait)]
        if self.bound is not None:
            argv += ["--bound", str(self.bound)]
        options: dict[str, Any] = {}
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS
        else:
            options["start_new_session"] = True  # no terminal signal reaches it when the reader exits
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            **options,
        )

    def running(self) -> bool:
        if self._proc is not None:
            return self._proc.poll() is None
        return self._joined and update_queued(self.layout)

    def wait(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` s (None: until done); True when the update has finished."""
        if timeout is not None:
            timeout, self._waited = max(0.0, timeout - self._waited), 0.0
        if self._proc is not None:
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.005
        while self.running():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(delay if deadline is None else min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.05)
        return True

    def outcome(self) -> tuple[BuildReport | None, str | None]:
        """The finished update's report, or why it failed (read from the child's report file)."""
        try:
            data = json.loads(self.layout.update_report_path.read_text("utf-8"))
        except (OSError, ValueError):
            return None, None if self._joined else "the index update left no report"
        if data.get("error"):
            return None, str(data["error"])
        return BuildReport.from_dict(data.get("report") or {}), None


def run_update(root: Path, bound: int | None, lock_wait: float) -> int:
    """The child's side: hold the update lock, update, write the report. Exit 0 on success."""
    from .builder import IndexWriter

    layout = IndexLayout(root.resolve())
    try:
        with locks.file_lock(layout.update_lock_path, timeout=lock_wait, write_pid=True):
            payload: dict[str, Any]
            try:
                report = IndexWriter(layout.root, lock_timeout=lock_wait).update(bound=bound)
                payload = {"report": report.to_dict()}
                code = 0
            except Exception as exc:  # the reader reports it and answers from the snapshot
                log.warning("index update of %s failed: %s", layout.root, exc)
                payload = {"error": f"index update failed: {type(exc).__name__}: {exc}"}
                code = 1
            payload["pid"] = os.getpid()
            files.atomic_write(layout.update_report_path, json.dumps(payload).encode())
            return code
    except locks.LockBusy:
        return 0  # another update is queued: it will see these changes too
