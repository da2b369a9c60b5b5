"""`cq serve`: a fresh `cq` process answers through the socket, and falls back when no server runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_code_query.server import socket_path


def _cq(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_queries_go_through_the_socket_and_fall_back_without_it(fresh_example: Path) -> None:
    from ctxops_code_query.graph_backend import build_index

    example_repo = fresh_example
    build_index(example_repo)  # a first query would answer provisionally while the build runs detached
    direct = _cq(example_repo, "def", "OrderStateMachine.transition", "--no-cache")
    direct_callers = _cq(example_repo, "callers", "OrderStateMachine.transition", "--no-cache")
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxops_code_query", "serve", "--root", str(example_repo), "--idle", "30"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        sock = Path(socket_path(example_repo))
        for _ in range(200):
            if sock.exists():
                break
            time.sleep(0.05)
        assert sock.exists()
        assert oct(sock.stat().st_mode & 0o777) == "0o600"
        served = _cq(example_repo, "callers", "OrderStateMachine.transition", "--no-cache")
        assert served.returncode == 0 and served.stdout == direct_callers.stdout
        # A plain `cq def` answers in its own process (the fast path is cheaper than the round trip).
        in_process = _cq(example_repo, "def", "OrderStateMachine.transition", "--no-cache")
        assert in_process.returncode == 0 and in_process.stdout == direct.stdout
        refused = _cq(example_repo, "open", "../x")
        assert refused.returncode == 2 and "refused" in refused.stderr
        none = _cq(example_repo, "def", "NoSuchName")
        assert none.returncode == 1 and none.stdout.startswith("no matches for def NoSuchName")
        # The client imports neither the graph nor msgspec when a server answers (`def` declines: see above).
        traced = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-m",
                "ctxops_code_query",
                "callers",
                "transition",
                "--root",
                str(example_repo),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert traced.returncode == 0
        assert "ctxops_code_graph" not in traced.stderr and "msgspec" not in traced.stderr
    finally:
        server.terminate()
        server.wait(10)
    assert not Path(socket_path(example_repo)).exists()  # SIGTERM removes the socket
    # A dead server's socket (or none at all) means the process answers itself.
    Path(socket_path(example_repo)).touch()
    after = _cq(example_repo, "def", "OrderStateMachine.transition", "--no-cache")
    assert after.returncode == 0 and after.stdout == direct.stdout
