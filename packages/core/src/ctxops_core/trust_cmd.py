"""`ctx trust [--revoke | --status]`: whether this repository's memories from git reach the agent.

Memories that came with a repository (``.meta/memory/*.md`` of a clone, a pull) and were not written or
accepted on this machine are held back from injection. ``ctx trust`` lets every memory of this repository
through, now and after later pulls, as Claude Code's folder trust lets a project's settings run; ``ctx mem
review --accept ID`` lets one through as it is. The record is per user
(``<user data dir>/trust/``), never in the repository: a repository cannot vouch for itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxops_contracts.shared import cli as grammar
from ctxops_contracts.shared.repo import NotARepository, find_root


def _store_modules() -> tuple[Any, Any]:
    try:
        from ctxops_memory_store import MemoryStore, trust
    except ModuleNotFoundError:
        raise grammar.CliError(
            "ctxops-memory-store is not installed: there are no memories to trust", fix="pip install ctxops"
        ) from None
    return MemoryStore, trust


def status(root: Path) -> dict[str, Any]:
    """Whether the repository is trusted, since when, and how many memories injection holds back."""
    memory_store, trust = _store_modules()
    store = memory_store(root)
    held = store.held_back()
    return {
        "root": str(root),
        "trusted": trust.repository_trusted(root),
        "trusted_since": trust.trusted_since(root),
        "held_back": len(held),
        "held_back_ids": [e.id for e in held],
        "record": trust.trust_dir(),
    }


def main(argv: list[str]) -> int:
    parser = grammar.Parser(
        prog="ctx trust",
        description="Inject this repository's memories that came through git (held back until trusted or reviewed).",
    )
    grammar.add_common_options(parser, subcommand=False)
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--revoke", action="store_true", help="stop trusting this repository")
    what.add_argument("--status", action="store_true", help="say whether it is trusted and what is held back")
    args = parser.parse_args(argv)
    try:
        root = Path(find_root(explicit=args.root))
        _, trust = _store_modules()
        if args.revoke:
            changed = trust.revoke_repository(root)
        elif not args.status:
            changed = trust.trust_repository(root)
        else:
            changed = False
        state = status(root)
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx trust", json_mode=args.json)
    except grammar.CliError as exc:
        return grammar.report_error(exc, prog="ctx trust", json_mode=args.json)
    except OSError as exc:
        error = grammar.CliError(f"cannot write the trust record: {exc}", fix="check the per-user data directory")
        return grammar.report_error(error, prog="ctx trust", json_mode=args.json)
    if args.json:
        grammar.emit_json({**state, "changed": changed})
        return grammar.EXIT_OK
    print(render(state, changed=changed, revoke=args.revoke, asked_status=args.status))
    return grammar.EXIT_OK


def render(state: dict[str, Any], *, changed: bool, revoke: bool, asked_status: bool) -> str:
    root = state["root"]
    if revoke:
        head = f"ctx trust: {root} is no longer trusted" if changed else f"ctx trust: {root} was not trusted"
    elif not asked_status:
        head = f"ctx trust: {root} is trusted" + ("" if changed else f" (since {state['trusted_since']})")
    elif state["trusted"]:
        head = f"ctx trust: {root} is trusted since {state['trusted_since']}"
    else:
        head = f"ctx trust: {root} is not trusted"
    lines = [head]
    if state["trusted"]:
        lines.append("  every memory in .meta/memory/ is injected, those later pulls bring too (`ctx trust --revoke`)")
    else:
        held = state["held_back"]
        lines.append(
            f"  {grammar.plural(held, 'memory', 'memories')} from git held back"
            + (": `ctx mem review` lists them, `--accept ID` lets one through, `ctx trust` all" if held else "")
        )
        lines.append("  memories written or accepted on this machine are injected either way")
    return "\n".join(lines)
