"""Whether an agent will run what `ctx init` wrote: Gemini CLI's folder trust and Codex CLI's hook trust.

Both clients ignore a project's settings until the user trusts them, silently:

- Gemini CLI 0.61 reads a project's `.gemini/settings.json` (hooks, MCP servers) only in a trusted folder.
  Trust is kept in `~/.gemini/trustedFolders.json` (`$GEMINI_CLI_TRUSTED_FOLDERS_PATH` when set; the home
  is `$GEMINI_CLI_HOME` or `~`): an object of path -> `TRUST_FOLDER` | `TRUST_PARENT` | `DO_NOT_TRUST`,
  the longest matching path deciding (`TRUST_PARENT` trusts the path's parent). Headless in an untrusted
  folder it exits 55; `GEMINI_CLI_TRUST_WORKSPACE=true` trusts any folder; folder trust can be turned off
  in the user's settings (`security.folderTrust.enabled: false`).
- Codex CLI 0.171 loads a project's `.codex/` (hooks.json, config.toml) only for a trusted project
  (`[projects."/abs/path"] trust_level = "trusted"` in `$CODEX_HOME/config.toml`, `~/.codex` by default),
  and runs each hook of it only once the user trusted that hook in `/hooks`: Codex then records
  `[hooks.state."<abs>/.codex/hooks.json:<event>:<group>:<handler>"] trusted_hash = "sha256:…"` in the same
  file. A hook whose entry changed since (another ctx path after a move) is "modified" and skipped again;
  the hash is Codex's own, so this module reports an entry with no trust recorded, not a stale hash.

Read-only: nothing here writes either client's files (trusting is the user's decision).
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import agents

GEMINI_UNTRUSTED_EXIT = 55
# Codex's event labels in hook trust keys (its hook_event_key_label): snake_case of the event names.
_CODEX_LABELS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PermissionRequest": "permission_request",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
}

INIT_NOTES = {
    "gemini": (
        "Gemini CLI reads .gemini/settings.json (ctxops's hooks and MCP server) only in a trusted folder: "
        "start `gemini` here once and choose 'Trust folder' (or run /permissions); headless, an untrusted "
        "folder exits 55 (set GEMINI_CLI_TRUST_WORKSPACE=true in automation). `ctx doctor` checks it."
    ),
    "codex": (
        "Codex CLI runs .codex/hooks.json only in a trusted project and only hooks you trusted: start `codex` "
        "here, trust the project, then open /hooks and trust ctxops's hooks (again after `ctx init` changes "
        "them). Until then nothing is captured, silently. `ctx doctor` checks it."
    ),
}


@dataclass
class TrustState:
    """What a client will do with this repository's settings; ``problem`` is None when it runs them."""

    trusted: bool | None  # None: cannot tell (no record either way)
    source: str  # where the answer came from
    problem: str | None = None
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _real(path: str | Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


def _is_subpath(parent: str, child: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def gemini_home(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    return Path(env.get("GEMINI_CLI_HOME") or Path.home())


def gemini_trust(root: Path, env: dict[str, str] | None = None) -> TrustState:
    """Gemini CLI's folder trust for ``root``, decided as Gemini CLI 0.61 decides it (utils/trust.ts)."""
    env = dict(os.environ) if env is None else env
    fix = "start `gemini` in the repository and trust the folder (or add it to ~/.gemini/trustedFolders.json)"
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return TrustState(False, "env", "Gemini CLI runs restricted here (environment)", fix)
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return TrustState(True, "env GEMINI_CLI_TRUST_WORKSPACE")
    home = gemini_home(env)
    settings = _json(home / ".gemini" / "settings.json")
    security = settings.get("security") if isinstance(settings, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return TrustState(True, "folder trust turned off in ~/.gemini/settings.json")
    path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or home / ".gemini" / "trustedFolders.json")
    rules = _json(path)
    if rules is None:
        return TrustState(False, str(path), f"no trusted folder recorded ({path} is absent)", fix)
    if not isinstance(rules, dict):
        return TrustState(None, str(path), f"{path} is not a JSON object: Gemini CLI will refuse to start", fix)
    location = _real(root)
    best, level = -1, None
    for rule_path, rule_level in rules.items():
        if not isinstance(rule_path, str) or rule_level not in {"TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"}:
            continue
        effective = str(Path(rule_path).parent) if rule_level == "TRUST_PARENT" else rule_path
        if _is_subpath(_real(effective), location) and len(rule_path) > best:
            best, level = len(rule_path), rule_level
    if level == "DO_NOT_TRUST":
        return TrustState(False, str(path), f"{root} is marked DO_NOT_TRUST in {path}", fix)
    if level in {"TRUST_FOLDER", "TRUST_PARENT"}:
        return TrustState(True, str(path))
    return TrustState(
        False,
        str(path),
        f"{root} is not a trusted folder (Gemini CLI ignores .gemini/settings.json; headless it exits "
        f"{GEMINI_UNTRUSTED_EXIT})",
        fix,
    )


def codex_home(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    return Path(env.get("CODEX_HOME") or Path.home() / ".codex")


def codex_hook_keys(root: Path) -> list[str]:
    """Codex's trust keys of ctxops's handlers in ``root/.codex/hooks.json`` (file:event:group:handler)."""
    hooks_json = root / ".codex" / "hooks.json"
    doc = _json(hooks_json)
    events = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(events, dict):
        return []
    source = str(hooks_json.absolute())
    keys: list[str] = []
    for event, groups in events.items():
        label = _CODEX_LABELS.get(event)
        if label is None or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and agents.runs_ctx(handler.get("command"), "hook", "codex"):
                    keys.append(f"{source}:{label}:{g}:{h}")
    return keys


def codex_trust(root: Path, env: dict[str, str] | None = None) -> TrustState:
    """Codex CLI's project trust and hook trust for ctxops's hooks in ``root``."""
    config_path = codex_home(env) / "config.toml"
    try:
        config = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        config = {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return TrustState(None, str(config_path), f"cannot read {config_path}: {exc}", "fix it by hand")
    keys = codex_hook_keys(root)
    projects: dict[str, Any] = _table(config, "projects")
    location = _real(root)
    project_level = None
    best = -1
    for path, entry in projects.items():
        if isinstance(entry, dict) and _is_subpath(_real(path), location) and len(path) > best:
            best, project_level = len(path), entry.get("trust_level")
    states: dict[str, Any] = _table(_table(config, "hooks"), "state")
    untrusted = [k for k in keys if not (isinstance(states.get(k), dict) and states[k].get("trusted_hash"))]
    disabled = [k for k in keys if isinstance(states.get(k), dict) and states[k].get("enabled") is False]
    details = {"project_trust": project_level, "hooks": len(keys), "untrusted_hooks": len(untrusted)}
    fix = "start `codex` in the repository, trust the project, then trust ctxops's hooks in /hooks"
    if project_level != "trusted":
        why = "untrusted" if project_level == "untrusted" else "not trusted yet"
        return TrustState(
            False,
            str(config_path),
            f"the project is {why} in {config_path}: Codex ignores .codex/ (hooks and MCP server)",
            fix,
            details,
        )
    if disabled:
        return TrustState(
            False, str(config_path), f"{len(disabled)} of ctxops's Codex hooks are disabled in /hooks", fix, details
        )
    if untrusted:
        events = sorted({k.rsplit(":", 3)[1] for k in untrusted})
        return TrustState(
            False,
            str(config_path),
            f"{len(untrusted)} of ctxops's {len(keys)} Codex hooks are not trusted in /hooks "
            f"({', '.join(events)}): Codex skips them and nothing is captured",
            fix,
            details,
        )
    return TrustState(True, str(config_path), details=details)


def _table(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        from .jsonc import strip_comments

        return json.loads(strip_comments(text)[0])  # Gemini CLI strips comments before parsing
    except (ValueError, TypeError):
        return "unparsable"


def init_notes(selected: list[str]) -> list[str]:
    """What the user must do, per agent, before the agent runs what `ctx init` wrote."""
    return [INIT_NOTES[a] for a in selected if a in INIT_NOTES]
