"""`cq serve`: answer `cq` queries over a local Unix socket so a query does not pay Python's imports.

A fresh `cq` process spends most of its time importing (msgspec, sqlite3, code-graph, ...), not
answering. With `cq serve` running, the `cq` entry point imports only `socket` and `json`, finds
`.meta/index/cq.sock` under the repository root, sends its argv and prints the reply; when no server
answers it falls back to answering itself. Each request runs exactly as the command line would (the
same freshness check, cache, deadline and rendering) with its output captured. The socket is created
mode 0600 inside the repository's `.meta/index/`; the server exits after an idle period.
"""

# The client half runs before anything else in a `cq` process: os.path, not pathlib (~5 ms to import).
# ruff: noqa: PTH100, PTH108, PTH109, PTH110, PTH112, PTH118, PTH120

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

SOCKET_NAME = "cq.sock"
DEFAULT_IDLE_S = 30 * 60
MAX_REQUEST = 1 << 20
# Commands a server answers; `mcp`, `serve` and `index` run in the calling process.
SERVED = frozenset(
    {"def", "refs", "callers", "callees", "brief", "deps", "impact", "map", "grep", "open", "search", "status"}
)


def socket_path(root: Path | str) -> str:
    return os.path.join(str(root), ".meta", "index", SOCKET_NAME)


def _handle(conn: socket.socket) -> None:
    from .cli import main

    data = b""
    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    try:
        request = json.loads(data)
        argv = [str(a) for a in request["argv"]]
    except (ValueError, KeyError, TypeError):
        conn.sendall(json.dumps({"code": 2, "stdout": "", "stderr": "cq serve: bad request\n"}).encode() + b"\n")
        return
    out, err = io.StringIO(), io.StringIO()
    cwd = request.get("cwd")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if cwd and os.path.isdir(cwd):
                os.chdir(cwd)
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # a bug must not take the server down
            print(f"cq serve: internal error: {exc!r}", file=sys.stderr)
            code = 2
    reply = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
    conn.sendall(json.dumps(reply).encode() + b"\n")


def serve(root: Path, *, idle_s: float = DEFAULT_IDLE_S) -> int:
    """Answer queries for ``root`` until idle for ``idle_s`` seconds."""
    from .service import share_open_indexes

    share_open_indexes()
    path = socket_path(root)
    from ctxops_contracts.shared.confine import ensure_dir

    ensure_dir(os.path.dirname(path))  # 0700; a symlinked .meta or .meta/index is refused
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a socket left by a server that died
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old_umask)
    listener.listen(16)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # leave through the finally below, which removes the socket

    signal.signal(signal.SIGTERM, stop)
    listener.settimeout(1.0)
    print(f"cq serve: answering for {root} on {path} (idle exit after {idle_s:.0f} s)", file=sys.stderr, flush=True)
    last = time.monotonic()
    try:
        while time.monotonic() - last < idle_s:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(60)
                with contextlib.suppress(OSError):
                    _handle(conn)
            last = time.monotonic()
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    return 0


def _root_from_argv(argv: list[str]) -> str | None:
    """The root the command names (``--root``) or runs in, as the shared finder gives it; None if none."""
    from .fastpath import find_root

    given = None
    for i, arg in enumerate(argv):
        if arg == "--root" and i + 1 < len(argv):
            given = argv[i + 1]
        elif arg.startswith("--root="):
            given = arg.split("=", 1)[1]
    return find_root(given)


def try_server(argv: list[str]) -> int | None:
    """Answer through a running `cq serve`; None when there is none (the caller answers itself)."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in SERVED or os.environ.get("CQ_NO_SERVER"):
        return None
    root = _root_from_argv(argv)
    if root is None:
        return None
    path = socket_path(os.path.abspath(root))
    if not os.path.exists(path):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(120)
            conn.connect(path)
            conn.sendall(json.dumps({"argv": argv, "cwd": os.getcwd()}).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        reply = json.loads(data)
    except (OSError, ValueError):
        return None  # no server (or a dead one): answer in this process
    sys.stdout.write(reply.get("stdout", ""))
    sys.stderr.write(reply.get("stderr", ""))
    return int(reply.get("code", 2))
