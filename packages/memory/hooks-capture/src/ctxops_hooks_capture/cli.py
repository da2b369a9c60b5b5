# ruff: noqa: PTH109
# os.path on the hook path: the capture command does without importing pathlib.
"""``python -m ctxops_hooks_capture AGENT`` (also ``ctx hook AGENT``): capture one agent event.

The agent's payload arrives on stdin (as the last argument for ``codex-notify``). Whatever happens, the
command exits 0 and prints nothing to stdout unless ``--echo`` asks for the stored events: agents read
a hook's stdout as context and its exit status as a verdict, and a capture failure must affect neither.
Failures are logged to ``.meta/logs/hooks-capture.log``.
"""

from __future__ import annotations

import os
import sys

from . import AGENTS

USAGE = f"""usage: python -m ctxops_hooks_capture AGENT [--echo] [--cwd DIR] [PAYLOAD]

AGENT is one of: {", ".join(AGENTS)}.
The hook payload (JSON) is read from stdin; for codex-notify it is the last argument.
  --echo     print the stored events as JSON lines on stdout (never use this in a hook)
  --cwd DIR  where to look for the repository when the payload names no cwd
Always exits 0; failures are logged to .meta/logs/hooks-capture.log.
"""


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return b""
    return stream.buffer.read()


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        sys.stdout.write(USAGE) if args else sys.stderr.write(USAGE)
        return 0
    agent, rest = args[0], args[1:]
    echo = "--echo" in rest
    rest = [a for a in rest if a != "--echo"]
    cwd_fallback = None
    if "--cwd" in rest:
        at = rest.index("--cwd")
        cwd_fallback = rest[at + 1] if at + 1 < len(rest) else None
        del rest[at : at + 2]
    root: str | None = None
    try:
        from .capture import capture

        if agent == "codex-notify":
            data: bytes = rest[-1].encode("utf-8", "surrogateescape") if rest else b""
        else:
            data = _read_stdin()
        result = capture(agent, data, cwd_fallback=cwd_fallback or os.getcwd())
        root = result.root
        if echo:
            from .jsontext import line

            for event in result.events:
                sys.stdout.buffer.write(line(event))
            sys.stdout.flush()
    except Exception as exc:  # never fail the agent because capture failed
        from .errorlog import log_failure

        path = log_failure(root or _root_guess(cwd_fallback), agent, exc)
        sys.stderr.write(f"ctxops hook capture: {exc} (logged to {path or 'nowhere: no writable log'})\n")
    return 0


def _root_guess(cwd: str | None) -> str | None:
    from .repo_root import find_root

    try:
        return find_root(cwd or os.getcwd())
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())
