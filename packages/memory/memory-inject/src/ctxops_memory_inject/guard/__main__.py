"""``python -m ctxops_memory_inject.guard hook [AGENT]``: the guard alone as a hook command (stdin: one
hook payload; stdout: the agent's output JSON or nothing; always exit 0). ``... out show ID`` is
``ctx out show``. Core's ``ctx hook`` and memory-inject's hook call :func:`handle_event` in-process."""

from __future__ import annotations

import sys


def hook_main(argv: list[str]) -> int:
    agent = argv[0] if argv else "claude-code"
    from .hook import handle

    outcome = handle(agent, sys.stdin.buffer.read())  # malformed input: nothing printed
    if outcome.stdout:
        sys.stdout.write(outcome.stdout)
        sys.stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook":
        try:
            return hook_main(args[1:])
        except Exception:  # never exit non-zero from the guard's own failure
            return 0
    if args and args[0] == "out":
        from .cli import main as out_main

        return out_main(args[1:])
    sys.stderr.write(
        "usage: python -m ctxops_memory_inject.guard hook [AGENT] | out show ID [--lines A:B | --grep RE]\n"
    )
    return 2


if __name__ == "__main__":
    if sys.argv[1:2] == ["hook"]:  # a hook process: no cyclic GC, and out without the interpreter's teardown
        from ctxops_contracts.shared.process_exit import exit_now, short_lived

        short_lived()
        exit_now(main())
    sys.exit(main())
