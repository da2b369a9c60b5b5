"""`ctx`: the ctxops command line. Built-in commands plus those installed packages contribute."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import NoReturn

BUILTINS = {
    "init": "wire this repository and its agents (hooks, MCP, status line); --remove undoes it",
    "hook": "the command agents run on every hook event: capture, inject memories, guard outputs",
    "mcp": "one MCP server (stdio) with the code, memory and ledger tools that are installed",
    "watch": "start|stop|status the per-repository daemon that keeps the indexes current",
    "doctor": "check the wiring, versions, indexes, locks and ledger sources; say how to fix problems",
    "trust": "inject this repository's memories that came through git (--revoke, --status)",
    "demo": "run the whole toolchain on the bundled example, in a temporary copy",
    "bench": "run your agent on your tasks with and without each ctxops line; report the measured cost",
    "version": "print the versions of the installed ctxops packages",
}
# Built-in commands, imported only when run (startup stays cheap). A builtin takes precedence over a
# plugin of the same name: core's `hook` composes hooks-capture's with the other lines.
_BUILTIN_MAIN = {
    "init": "ctxops_core.init_cmd",
    "hook": "ctxops_core.hook_cmd",
    "mcp": "ctxops_core.mcp_cmd",
    "watch": "ctxops_core.watch_cmd",
    "doctor": "ctxops_core.doctor",
    "trust": "ctxops_core.trust_cmd",
    "demo": "ctxops_core.demo",
    "bench": "ctxops_core.bench_cmd",
}


# What the commands of ctxops's own packages do; a third-party command shows its distribution's summary.
KNOWN_PLUGINS = {
    "code": "the code map: definitions, callers, impact, map, grep (same as `cq`)",
    "mem": "memories: add, search, inject, review, pin, forget, supersede, rebuild",
    "ledger": "token ledger: ingest, reports, prices, budgets (check), savings, status line, HTML",
    "out": "show a full tool output the context guard summarized (--lines, --grep)",
    "proxy": "local proxy that records every model call passing through it",
    "task": "name the task the next sessions work on (start NAME, stop, show) for the ledger",
}


def _usage() -> str:
    from . import __version__
    from .commands import discover

    lines = [f"usage: ctx COMMAND [ARGS...]   (ctxops {__version__})", "", "commands:"]
    for name, text in BUILTINS.items():
        lines.append(f"  {name:<10} {text}")
    for name, cmd in sorted(discover().items()):
        if name in BUILTINS:
            continue
        lines.append(f"  {name:<10} {KNOWN_PLUGINS.get(name) or cmd.summary}")
    lines.append("")
    lines.append("`ctx COMMAND --help` describes a command.")
    return "\n".join(lines)


def _common_options_first(args: list[str]) -> list[str]:
    """``ctx --root R --json CMD ...`` = ``ctx CMD ... --root R --json``: the grammar's two orders."""
    leading: list[str] = []
    while args and (args[0] in {"--json", "--root"} or args[0].startswith("--root=")):
        if args[0] == "--root" and len(args) > 1:
            leading += args[:2]
            args = args[2:]
        else:
            leading.append(args[0])
            args = args[1:]
    return [*args, *leading] if args else []


def _hook_process(args: list[str]) -> NoReturn:
    """`ctx hook ARGS` as the process's own entry; the event's kind picks the cached code to import."""
    import gc

    gc.disable()  # a hook lives for milliseconds (ctxops_contracts.shared.process_exit.short_lived)
    data: bytes | None = None
    cache = None
    if args and args[0] not in {"-h", "--help", "help"}:
        data = _hook_input(args)
        from .codecache import event_kind, install

        cache = install(event_kind(args[0], data))
    from ctxops_contracts.shared.process_exit import exit_now  # before save: in the cache like the rest

    from .hook_cmd import main as hook_main

    status = hook_main(args, data=data)
    if cache is not None:
        cache.save()  # after the answer is out, and only when this run imported modules the ordinary way
    exit_now(status)


def _hook_input(args: list[str]) -> bytes:
    """The event as the agent sent it: the last argument for codex-notify, else stdin ("" when unreadable:
    the hook then captures nothing and says nothing)."""
    if args[0] == "codex-notify" and len(args) > 1:
        return args[-1].encode("utf-8", "surrogateescape")
    try:
        stream = sys.stdin
        if stream is None or stream.closed or stream.isatty():
            return b""
        return stream.buffer.read()
    except (OSError, ValueError):
        return b""


def main(argv: list[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    if raw[:2] == ["ledger", "statusline"]:
        # Claude Code runs the status line as a fresh process on every update: straight to ledger-report's
        # stdlib-only path, without the entry-point scan (importlib.metadata) plugins need.
        from ctxops_ledger_report.entry import ledger_command

        return ledger_command(raw[1:])
    if raw[:1] == ["hook"]:
        # Every agent event runs `ctx hook` as a fresh process: straight to it, without importlib, and (as
        # the process's own entry) its modules' code from one cached file, without cyclic GC and out
        # without the interpreter's teardown.
        if argv is None:
            _hook_process(raw[1:])
        from .hook_cmd import main as hook_main

        return hook_main(raw[1:])
    if raw[:1] == ["mem"] and ("search" in raw or "show" in raw or "add" in raw or "reconcile" in raw):
        # `ctx mem search|show` (the injection's closing line tells the agent to run them), `add` and
        # `reconcile` (the git hooks, after every pull): answered from the memory store's read snapshot before
        # argparse, msgspec and the entry-point scan are imported (issue 23); None: anything unusual, the
        # ordinary path below answers.
        if "add" in raw:
            from .codeties import install  # a memory naming symbols is tied by the full path (the code map's)

            install()
            os.environ["CTXOPS_PROG"] = "ctx mem"  # shared.cli.PROG_ENV (not imported: argparse): what _dispatch sets
        from ctxops_memory_store.fastcli import main as mem_fast

        status = mem_fast(raw[1:])
        if status is not None:
            if status == 0 and "reconcile" in raw:
                _count_pulled_lines(raw)
            return status
    if raw[:1] == ["mcp"] and argv is None:
        # An MCP client waits for the handshake: answered before argparse and the grammar are imported.
        from .mcp_cmd import main as mcp_main

        return mcp_main(raw[1:])
    from ctxops_contracts.shared.cli import run_guarded

    words = [a for i, a in enumerate(raw) if not a.startswith("-") and (i == 0 or raw[i - 1] != "--root")][:2]
    return run_guarded(_dispatch, raw, prog=" ".join(["ctx", *words]))


def _count_pulled_lines(raw: list[str]) -> None:
    """After ``ctx mem reconcile`` (the git hooks, after a pull): the token counts of the pulled memories' lines,
    so the agent's next hook loads no tokenizer for them (memory-inject's ``precount``, bounded; issue 23)."""
    from ctxops_contracts.shared.repo import NotARepository, find_root

    explicit = next((raw[i + 1] for i, a in enumerate(raw[:-1]) if a == "--root"), None)
    explicit = explicit or next((a[7:] for a in raw if a.startswith("--root=")), None)
    try:
        root = find_root(explicit=explicit)
    except (NotARepository, OSError):
        return
    from ctxops_memory_inject.precount import after_reconcile

    after_reconcile(root)


def _dispatch(raw: list[str]) -> int:
    args = _common_options_first(raw)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name in {"--version", "version"}:
        from .versions import print_versions

        return print_versions(rest)
    if name in _BUILTIN_MAIN:
        import importlib

        module = importlib.import_module(_BUILTIN_MAIN[name])
        result: int = module.main(rest)
        return result
    from ctxops_contracts.shared.cli import PROG_ENV

    if name == "mem":
        from .codeties import install  # memories tie to the symbols they name where the code map is installed

        install()
        # memory-store's own command (a dependency of core): without the entry-point scan (importlib.metadata,
        # ~30 ms of every fresh `ctx mem add`); its extensions (`ctx mem inject`) it finds itself.
        from ctxops_memory_store.cli import main as mem_main

        os.environ[PROG_ENV] = "ctx mem"
        return mem_main(rest)
    from .commands import discover

    plugins = discover()
    if name in plugins:
        # The plugin's usage lines name what the user typed (`usage: ctx code ...`), not its own script.
        os.environ[PROG_ENV] = f"ctx {name}"
        return plugins[name].load()(rest)
    print(f"ctx: unknown command {name!r}; run `ctx --help` for the list", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
