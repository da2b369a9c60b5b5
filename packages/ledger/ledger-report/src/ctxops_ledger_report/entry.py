"""The ``ctx ledger`` and ``ctx task`` entry points: ``statusline`` dispatched before anything else is imported.

Claude Code runs the status line as a fresh process on every update, so its path imports only the stdlib and
``statusline`` (no argparse tree, no DuckDB, no msgspec).
"""

from __future__ import annotations


def fast_statusline(argv: list[str]) -> bool:
    return argv[:1] == ["statusline"] and "-h" not in argv and "--help" not in argv


def ledger_command(argv: list[str]) -> int:
    """``ctx ledger COMMAND ...``."""
    if fast_statusline(argv):
        from .statusline import main

        return main(argv[1:])
    from .cli import ledger_command as full

    return full(argv)


def task_command(argv: list[str]) -> int:
    """``ctx task start NAME | stop | show``."""
    from .cli import task_command as full

    return full(argv)
