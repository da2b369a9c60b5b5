"""Watch a working tree: watchdog file events and git ref moves, debounced into batches of paths.

File events (create, modify, delete, move) give repo-relative paths. A move of HEAD or a branch ref
(checkout, commit, merge, pull) adds every path that differs between the old and new commit, so a
branch switch is reindexed even if the file events were coalesced or missed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .gitinfo import changed_paths_between, git_dir, read_head

Batch = Callable[[set[str], bool], None]  # (changed repo-relative paths, git HEAD moved)
_IGNORED_TOP = (".git/", ".meta/")


class RepoWatcher:
    """Call `on_batch(paths, head_moved)` after `debounce` seconds without new events (or `max_delay`)."""

    def __init__(self, root: Path, on_batch: Batch, debounce: float = 0.3, max_delay: float = 2.0) -> None:
        self.root = root.resolve()
        self.on_batch = on_batch
        self.debounce = debounce
        self.max_delay = max_delay
        self._pending: set[str] = set()
        self._head_moved = False
        self._first_event = 0.0
        self._last_event = 0.0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._head = read_head(self.root)
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def start(self) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in {"opened", "closed_no_write"}:
                    return
                watcher._record(str(event.src_path), event.is_directory)
                dest = getattr(event, "dest_path", "")
                if dest:
                    watcher._record(str(dest), event.is_directory)

        self._observer = Observer()
        self._observer.schedule(_Handler(), str(self.root), recursive=True)
        gdir = git_dir(self.root)
        if gdir is not None and not str(gdir).startswith(str(self.root) + "/"):
            self._observer.schedule(_Handler(), str(gdir), recursive=True)  # a worktree's git dir lives elsewhere
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="ctxops-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _record(self, abs_path: str, is_directory: bool) -> None:
        path = Path(abs_path)
        found = git_dir(self.root)
        gdir = Path(found) if found is not None else None
        if gdir is not None and (path == gdir or gdir in path.parents):
            rel_git = path.relative_to(gdir).as_posix()
            if rel_git == "HEAD" or rel_git.startswith("refs/heads/") or rel_git == "packed-refs":
                self._note(None)
            return
        try:
            rel = path.relative_to(self.root).as_posix()
        except ValueError:
            return
        if rel.startswith(_IGNORED_TOP) or rel in {".git", ".meta"} or (is_directory and rel == "."):
            return
        self._note(rel)

    def _note(self, rel: str | None) -> None:
        now = time.monotonic()
        with self._lock:
            if not self._pending and not self._head_moved:
                self._first_event = now
            if rel is None:
                self._head_moved = True
            else:
                self._pending.add(rel)
            self._last_event = now
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=self.debounce)
            self._wake.clear()
            with self._lock:
                if not self._pending and not self._head_moved:
                    continue
                now = time.monotonic()
                quiet = now - self._last_event >= self.debounce
                overdue = now - self._first_event >= self.max_delay
                if not (quiet or overdue):
                    continue
                paths, moved = self._pending, self._head_moved
                self._pending, self._head_moved = set(), False
            if moved:
                paths |= self._paths_from_head_move()
            try:
                self.on_batch(paths, moved)
            except Exception as exc:  # a failed update must not kill the watcher; the next batch retries
                self.errors.append(f"{type(exc).__name__}: {exc}")

    def _paths_from_head_move(self) -> set[str]:
        new = read_head(self.root)
        old, self._head = self._head, new
        if not old or not new or old == new:
            return set()
        try:
            return changed_paths_between(self.root, old, new)
        except Exception as exc:  # an unreadable object: the file events still cover the working tree
            self.errors.append(f"git diff {old[:7]}..{new[:7]}: {exc}")
            return set()
