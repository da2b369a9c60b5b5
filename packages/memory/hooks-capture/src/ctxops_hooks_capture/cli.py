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

USAGE = """usage: {prog} AGENT [--echo] [--cwd DIR] [PAYLOAD]

AGENT is one of: {agents}.
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


def usage(prog: str) -> str:
    return USAGE.format(prog=prog, agents=", ".join(AGENTS))


def _prog() -> str:
    """The command the user typed: ``ctx`` names itself in ``$CTXOPS_PROG``; run directly, ``python -m``."""
    from ctxops_contracts.shared.cli import typed_prog  # only --help pays for this import

    return typed_prog("python -m ctxops_hooks_capture")


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    """Run the capture command; ``prog`` names it in the usage text (default: as the user typed it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        text = usage(prog or _prog())
        sys.stdout.write(text) if args else sys.stderr.write(text)
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
        from .errorlog import describe, log_failure

        path = log_failure(root or _root_guess(cwd_fallback), agent, exc)
        sys.stderr.write(f"ctxops hook capture: {describe(exc)} (logged to {path or 'nowhere: no writable log'})\n")
    return 0


def _root_guess(cwd: str | None) -> str | None:
    from ctxops_contracts.shared.repo import try_find_root

    return try_find_root(cwd or os.getcwd())


if __name__ == "__main__":
    sys.exit(main())
