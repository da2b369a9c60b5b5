"""The recording proxy in front of the agent's provider, for a whole bench (agents that take a base URL and
speak a wire ``ctx proxy`` records: Claude Code's Anthropic Messages).

Every call then reaches the ledger twice, from the proxy (what the provider returned, server tools included)
and from the transcript (which names the run's checkout); the ledger merges the two by message id, keeping the
richer record. Codex reads its provider from its own config, and Gemini CLI (whose ``generateContent`` calls
``ctx proxy`` records since session 9) is not routed through it by the bench yet: their runs are priced from
their transcripts alone.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

ANTHROPIC = "https://api.anthropic.com"
BANNER = re.compile(r"http://127\.0\.0\.1:(\d+)")


class ProxyFailed(RuntimeError):
    """``ctx proxy`` did not start (the message says why)."""


@contextmanager
def recording(
    agent: str, ctx_argv: tuple[str, ...], env: Mapping[str, str], data_dir: Path | None
) -> Iterator[dict[str, str]]:
    """The environment overrides that route ``agent`` through a recording proxy ({} when it cannot be)."""
    if agent != "claude-code":
        yield {}
        return
    upstream = env.get("ANTHROPIC_BASE_URL") or ANTHROPIC
    argv = [*ctx_argv, "proxy", "--upstream", upstream, "--port", "0"]
    argv += ["--data-dir", str(data_dir)] if data_dir else []
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(env)
    )
    try:
        banner = proc.stdout.readline() if proc.stdout else ""
        found = BANNER.search(banner)
        if not found:
            error = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
            raise ProxyFailed(f"ctx proxy did not start: {(error or banner).strip()[-300:] or 'no banner'}")
        yield {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{found.group(1)}"}
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
