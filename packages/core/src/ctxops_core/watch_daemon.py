"""The `ctx watch` daemon of one repository: the single writer of the derived indexes while it runs.

- code index: watchdog file events and git ref moves (checkout, merge, rebase, pull: only the paths that
  differ between the old and new commit) become incremental updates (code-scan's ``RepoWatcher``,
  code-graph's ``CodeIndex.update``);
- memory index: a change under ``.meta/memory/`` rebuilds it from the Markdown (memory-store);
- ledger: a change under the agents' transcript directories ingests what is new (token-capture);
- a periodic full reconciliation catches whatever a watcher missed.

It holds ``.meta/.state/watch.lock`` (with its pid and start time) for its whole life: one daemon per
repository. A ``kill -9`` releases the lock with the process: its scan workers die with it
(``PR_SET_PDEATHSIG`` and a parent check in code-scan) and close their copies of every lock at the fork
(``ctxops_contracts.shared.locks``); a lock still held when its recorded holder is gone is taken over.
Each index's own writes are transactional, so a restart after a crash resumes by reconciling. Between
events it sleeps on a condition: idle CPU is near zero.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.confine import open_regular, read_config_text
from ctxops_contracts.shared.layout import meta_path, meta_subdir
from ctxops_contracts.shared.locks import LockBusy, file_lock

LOCK = (".state", "watch.lock")
DEFAULT_RECONCILE = 600.0
log = logging.getLogger("ctxops.watch")


def lock_path(root: str) -> str:
    return meta_path(root, *LOCK)


# -- the holder of the lock: pid and start time, so a dead holder is told from a live one ----------------


def process_start(pid: int) -> str | None:
    """An id of the process ``pid``'s start (Linux: its start time in clock ticks after boot); None when
    there is no such process; "" when the platform does not tell (then the pid alone is compared)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rpartition(b")")[2].split()
    except FileNotFoundError:
        return None if sys.platform == "linux" else ""
    except OSError:
        return ""
    if fields and fields[0] == b"Z":
        return None  # exited, not yet reaped
    return fields[19].decode() if len(fields) > 19 else ""


def holder(path: str) -> tuple[int, str] | None:
    """The (pid, start) the daemon wrote into its lock file, if any."""
    try:
        with open(path, "rb") as fh:
            words = fh.read(64).decode("ascii", "replace").split()
    except OSError:
        return None
    if not words or not words[0].isdigit():
        return None
    return int(words[0]), words[1] if len(words) > 1 else ""


def holder_alive(path: str) -> bool | None:
    """True when the recorded holder is that very process, still running; False when it is gone (its pid
    dead or reused by another process); None when nothing is recorded (a holder between lock and write)."""
    record = holder(path)
    if record is None:
        return None
    pid, start = record
    now = process_start(pid)
    return now is not None and (not start or not now or now == start)


def take_over(path: str) -> bool:
    """Replace a lock file whose recorded holder is gone; True when it was replaced.

    The lock is held by the open file, so processes that inherited it (workers of a daemon killed with -9
    on a platform without ``PR_SET_PDEATHSIG``, or stuck in the kernel) keep it after the daemon died. A
    new file at the same path is a new lock: the orphans keep the old one, which nothing asks for again.
    Under a short guard lock, so two starters cannot both replace it.
    """
    with file_lock(path + ".guard", timeout=5.0):
        if holder_alive(path) is not False:
            return False
        Path(path).unlink(missing_ok=True)
        log.info("took over %s: its holder is gone", path)
        return True


def _record_holder(fd: int) -> None:
    me = os.getpid()
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{me} {process_start(me) or ''}\n".encode(), 0)


def reconcile_seconds(root: Path) -> float:
    try:
        data = tomllib.loads(read_config_text(str(root / ".meta" / "config.toml")))
        value = float(data.get("watch", {}).get("reconcile_seconds", DEFAULT_RECONCILE))
    except (OSError, ValueError, tomllib.TOMLDecodeError, AttributeError):
        return DEFAULT_RECONCILE
    return max(5.0, value)


class Debounced:
    """Run ``action`` once, ``delay`` seconds after the last :meth:`poke` (a burst of events is one run)."""

    def __init__(self, name: str, action: Callable[[], None], delay: float) -> None:
        self.name, self.action, self.delay = name, action, delay
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.runs = 0

    def poke(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        try:
            self.action()
            self.runs += 1
        except Exception:  # a failed run is retried by the next event or the reconciliation
            log.exception("%s failed", self.name)

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()


class Daemon:
    def __init__(self, root: Path, reconcile: float | None = None) -> None:
        self.root = root
        self.reconcile = reconcile if reconcile is not None else reconcile_seconds(root)
        self.stop = threading.Event()
        self.writer = threading.Lock()  # one index write at a time inside the daemon too
        self._observers: list[Any] = []
        self._repo_watcher: Any = None

    # -- the lines' library APIs, each optional ---------------------------------------------------------

    def update_code(self, paths: set[str] | None = None) -> None:
        try:
            from ctxops_code_graph import CodeIndex
        except ModuleNotFoundError:
            return
        with self.writer:
            report = CodeIndex(self.root).update(sorted(paths) if paths else None)
        log.info("code index %s: %d changed, %d deleted", report.mode, len(report.changed), len(report.deleted))

    def rebuild_memory(self) -> None:
        try:
            from ctxops_memory_store.store import MemoryStore
        except ModuleNotFoundError:
            return
        if not (self.root / ".meta" / "memory").is_dir():
            return
        with self.writer:
            MemoryStore(self.root).rebuild_index(lock_timeout=10.0)
        log.info("memory index rebuilt")

    def ingest_ledger(self) -> None:
        try:
            from ctxops_token_capture.ingest import Sources, ingest
        except ModuleNotFoundError:
            return
        report = ingest(Sources.defaults())
        log.info("ledger: %s new records", getattr(report, "records", "?"))

    def reconcile_all(self) -> None:
        for step in (self.update_code, self.rebuild_memory, self.ingest_ledger):
            if self.stop.is_set():
                return
            try:
                step()
            except Exception:
                log.exception("reconciliation step %s failed", step.__name__)

    # -- watchers ---------------------------------------------------------------------------------------

    def _on_code_batch(self, paths: set[str], head_moved: bool) -> None:
        if paths or head_moved:
            self.update_code(paths or None)

    def _watch_dir(self, directory: Path, debounced: Debounced) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type not in {"opened", "closed_no_write"}:
                    debounced.poke()

        observer = Observer()
        observer.schedule(Handler(), str(directory), recursive=True)
        observer.daemon = True
        observer.start()
        self._observers.append(observer)

    def start_watchers(self) -> None:
        try:
            from ctxops_code_scan.watch import RepoWatcher

            self._repo_watcher = RepoWatcher(self.root, self._on_code_batch)
            self._repo_watcher.start()
        except ModuleNotFoundError:
            log.info("code line not installed: no code index watching")
        memory = Path(meta_subdir(str(self.root), "memory"))  # a symlinked .meta/memory is refused
        self._watch_dir(memory, Debounced("memory index", self.rebuild_memory, 0.5))
        try:
            from ctxops_token_capture.ingest import Sources

            sources = Sources.defaults()
            dirs = [d / "projects" for d in sources.claude_dirs] + [h / "sessions" for h in sources.codex_homes]
            dirs += [g / "tmp" for g in sources.gemini_dirs]
            ledger = Debounced("ledger ingest", self.ingest_ledger, 2.0)
            for directory in dirs:
                if directory.is_dir():
                    self._watch_dir(directory, ledger)
        except ModuleNotFoundError:
            pass

    def stop_watchers(self) -> None:
        if self._repo_watcher is not None:
            self._repo_watcher.stop()
        for observer in self._observers:
            observer.stop()
        for observer in self._observers:
            observer.join(timeout=5)

    def run(self) -> None:
        self.start_watchers()
        self.reconcile_all()  # resume: whatever changed while no daemon ran (or before a crash)
        while not self.stop.wait(self.reconcile):
            self.reconcile_all()
        self.stop_watchers()


def serve(root: Path) -> int:
    """Run the daemon in this process until SIGTERM/SIGINT; exit 3 when another daemon holds the lock."""
    meta_subdir(str(root), "logs")  # a symlinked .meta or .meta/logs is refused (UnsafePath)
    log_path = meta_path(str(root), "logs", "watch.log")
    os.close(open_regular(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))  # never a planted symlink
    logging.basicConfig(
        filename=log_path,
        level=logging.INFO,
        format="%(asctime)s %(process)d %(levelname)s %(message)s",
    )
    path = lock_path(str(root))
    try:
        try:
            lock = file_lock(path, timeout=0.0, write_pid=True)
            fd = lock.__enter__()
        except LockBusy:
            if not take_over(path):
                raise
            lock = file_lock(path, timeout=0.0, write_pid=True)
            fd = lock.__enter__()
        try:
            _record_holder(fd)
            daemon = Daemon(root)

            def on_signal(signum: int, frame: object) -> None:
                daemon.stop.set()

            signal.signal(signal.SIGTERM, on_signal)
            signal.signal(signal.SIGINT, on_signal)
            log.info("watching %s (reconcile every %.0f s)", root, daemon.reconcile)
            daemon.run()
            log.info("stopped")
        finally:
            lock.__exit__(None, None, None)
    except LockBusy as exc:
        log.info("another daemon runs: %s", exc)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]).resolve()))
