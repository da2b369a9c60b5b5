"""`python -m ctxops_code_graph watch [PATH]`: keep the index current from file and git events."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from pathlib import Path

from .builder import IndexWriter
from .lock import IndexBusy
from .results import BuildReport


class IndexWatcher:
    """Owns index updates for a repository while running: each debounced batch becomes one update."""

    def __init__(self, root: Path, debounce: float = 0.3, on_update: object = None) -> None:
        from ctxops_code_scan.watch import RepoWatcher

        self.writer = IndexWriter(root, lock_timeout=10.0)
        self.reports: list[BuildReport] = []
        self._callback = on_update
        self._watcher = RepoWatcher(self.writer.root, self._on_batch, debounce=debounce)
        self.updated = threading.Event()

    def start(self) -> BuildReport:
        report = self.writer.build()
        self._watcher.start()
        return report

    def stop(self) -> None:
        self._watcher.stop()

    @property
    def errors(self) -> list[str]:
        return self._watcher.errors

    def _on_batch(self, paths: set[str], head_moved: bool) -> None:
        try:
            report = self.writer.update(paths, bound=None)
        except IndexBusy:
            report = self.writer.update(None, bound=None)  # retry once, finding changes by stat
        self.reports.append(report)
        self.updated.set()
        if callable(self._callback):
            self._callback(report)


def watch_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m ctxops_code_graph watch", description=__doc__)
    parser.add_argument("path", nargs="?", default=".")
    parser.add_argument("--debounce", type=float, default=0.3, help="seconds of quiet before an update")
    args = parser.parse_args(argv)
    root = Path(args.path)
    if not root.is_dir():
        print(f"error: {root} is not a directory", file=sys.stderr)
        return 2

    try:
        import watchdog  # noqa: F401
    except ImportError:
        print(
            "error: watching needs watchdog: pip install 'ctxops-code-graph[watch]' (or use `ctx watch`)",
            file=sys.stderr,
        )
        return 2

    def show(report: BuildReport) -> None:
        if report.mode != "noop":
            changed = len(report.changed) + len(report.deleted)
            print(f"{report.mode}: {changed} files in {report.elapsed_s * 1000:.0f} ms, revision {report.revision}")
            sys.stdout.flush()

    watcher = IndexWatcher(root, debounce=args.debounce, on_update=show)
    first = watcher.start()
    print(f"watching {watcher.writer.root} ({first.mode}, revision {first.revision}); Ctrl-C stops")
    sys.stdout.flush()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.is_set():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    return 0
