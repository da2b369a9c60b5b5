"""`ctx watch [start|stop|status|run|kick]`: the per-repository daemon that keeps the indexes current.

`start` launches it in the background (one per repository; a second `start` says it already runs),
`stop` ends it, `status` says whether it runs and its pid, `run` serves in the foreground, and `kick`
(what the git hooks `ctx init` writes call) updates the code index now unless the daemon runs, since a
running daemon sees the ref move itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ctxops_contracts.shared import cli as grammar
from ctxops_contracts.shared.layout import meta_path
from ctxops_contracts.shared.locks import LockBusy, file_lock
from ctxops_contracts.shared.repo import NotARepository, find_root

from .watch_daemon import holder, holder_alive, lock_path, take_over


def running_pid(root: str) -> int | None:
    """The daemon's pid when one holds the lock and is alive, else None: a stale pid in the file, or a lock
    held only by processes that outlived a killed daemon, is not a daemon."""
    path = lock_path(root)
    if not Path(path).exists():
        return None
    try:
        with file_lock(path, timeout=0.0):
            return None  # we got the lock: nobody holds it
    except LockBusy:
        alive = holder_alive(path)
        if alive is False:
            return None
        record = holder(path)
        return record[0] if record else -1


def start(root: str, wait: float = 10.0) -> tuple[int | None, bool]:
    """Start the daemon unless one runs; its pid and whether this call started it."""
    pid = running_pid(root)
    if pid:
        return pid, False
    path = lock_path(root)
    if Path(path).exists() and holder_alive(path) is False:
        take_over(path)  # held by what outlived a killed daemon: the new daemon gets a new lock file
    from ctxops_contracts.shared.confine import open_regular
    from ctxops_contracts.shared.layout import meta_subdir

    meta_subdir(root, "logs")  # a symlinked .meta or .meta/logs is refused (UnsafePath): nothing written
    # Never through a symlink a repository planted at the log's name, never into a FIFO; private.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    with open(open_regular(meta_path(root, "logs", "watch.log"), flags, 0o600), "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "ctxops_core.watch_daemon", root],  # -P: nothing from the cwd
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives the terminal; a Ctrl-C there does not reach it
            close_fds=True,
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        pid = running_pid(root)
        if pid:
            return pid, True
        if proc.poll() is not None:
            return running_pid(root), False  # it lost a race to another start, or failed (see the log)
        time.sleep(0.05)
    return None, False


def stop(root: str, wait: float = 10.0) -> int | None:
    """Stop the daemon; the pid that was stopped, or None when none ran."""
    pid = running_pid(root)
    if not pid or pid < 0:
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not running_pid(root):
            return pid
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)  # it did not stop in time; the lock dies with it (its workers too)
    return pid


def kick(root: str) -> str:
    if running_pid(root):
        return "the daemon runs: it picks the change up itself"
    if not Path(meta_path(root, "index")).is_dir():
        return "no code index yet: nothing to update (the first `cq` builds it)"
    try:
        from ctxops_code_graph import CodeIndex
    except ModuleNotFoundError:
        return "the code line is not installed"
    report = CodeIndex(Path(root), lock_wait=30.0).update()
    return f"code index {report.mode}: {grammar.plural(len(report.changed), 'file')} updated"


def main(argv: list[str]) -> int:
    parser = grammar.Parser(prog="ctx watch", description=__doc__.splitlines()[0])
    grammar.add_common_options(parser, subcommand=False)
    parser.add_argument(
        "action",
        nargs="?",
        default="status",
        choices=["start", "stop", "status", "run", "kick"],
        help="start, stop, status (default), run in the foreground, or kick (update the code index now)",
    )
    parser.add_argument("--git-hook", metavar="NAME", help="the git hook calling `kick` (for the log)")
    args = parser.parse_args(argv)
    try:
        root = find_root(explicit=args.root)
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx watch", json_mode=args.json)
    result: dict[str, object] = {"root": root, "action": args.action}
    if args.action == "run":
        from .watch_daemon import serve

        return serve(Path(root))
    if args.action == "start":
        pid, started = start(root)
        if not pid:
            error = grammar.CliError(
                "the daemon did not start", fix=f"see {meta_path(root, 'logs', 'watch.log')}", code=grammar.EXIT_USAGE
            )
            return grammar.report_error(error, prog="ctx watch", json_mode=args.json)
        result.update(pid=pid, started=started)
        text = f"ctx watch: {'started' if started else 'already running'} (pid {pid}) for {root}"
    elif args.action == "stop":
        pid = stop(root)
        result.update(pid=pid, stopped=pid is not None)
        text = f"ctx watch: stopped (pid {pid})" if pid else "ctx watch: not running"
    elif args.action == "kick":
        if args.git_hook:  # detached by the git hook after a pull: the agent's next hook goes first
            from ctxops_contracts.shared.detach import lower_priority

            lower_priority()
        result["message"] = text = kick(root)
    else:
        pid = running_pid(root)
        result.update(running=bool(pid), pid=pid if pid and pid > 0 else None)
        text = f"ctx watch: running (pid {pid}) for {root}" if pid else f"ctx watch: not running for {root}"
    if args.json:
        grammar.emit_json(result)
    else:
        print(text)
    return grammar.EXIT_OK
