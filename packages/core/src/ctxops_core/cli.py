"""`ctx`: the ctxops command line. Built-in commands plus those installed packages contribute."""

from __future__ import annotations

import sys

from . import __version__
from .commands import discover

BUILTINS = {
    "demo": "run the whole toolchain on the bundled example, in a temporary copy",
    "version": "print the versions of the installed ctxops packages",
}


# What the commands of ctxops's own packages do; a third-party command shows its distribution's summary.
KNOWN_PLUGINS = {
    "code": "the code map: definitions, callers, impact, map, grep (same as `cq`)",
    "hook": "capture one agent hook event (the command agents run)",
    "mem": "memories: add, search, review, pin, forget, supersede, rebuild",
    "ledger": "token ledger: ingest transcripts, totals by day/session/model",
    "proxy": "local proxy that records every model call passing through it",
}


def _usage() -> str:
    lines = [f"usage: ctx COMMAND [ARGS...]   (ctxops {__version__})", "", "commands:"]
    for name, text in BUILTINS.items():
        lines.append(f"  {name:<10} {text}")
    for name, cmd in sorted(discover().items()):
        lines.append(f"  {name:<10} {KNOWN_PLUGINS.get(name) or cmd.summary}")
    lines.append("")
    lines.append("`ctx COMMAND --help` describes a command.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name in {"--version", "version"}:
        from .versions import print_versions

        return print_versions(rest)
    if name == "demo":
        from .demo import main as demo_main

        return demo_main(rest)
    plugins = discover()
    if name in plugins:
        return plugins[name].load()(rest)
    print(f"ctx: unknown command {name!r}; run `ctx --help` for the list", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
