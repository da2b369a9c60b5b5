"""Where ctxops keeps its ledger and where agents keep their transcripts."""

from __future__ import annotations

import os
from pathlib import Path

from ctxops_contracts.shared.layout import DATA_DIR_ENV, user_data_dir

__all__ = ["DATA_DIR_ENV", "data_dir", "default_claude_dirs", "default_codex_home", "default_gemini_dir"]

CLAUDE_CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
CODEX_HOME_ENV = "CODEX_HOME"
GEMINI_CLI_HOME_ENV = "GEMINI_CLI_HOME"  # Gemini CLI's stand-in for the home directory (it holds .gemini/)


def data_dir() -> Path:
    """The per-user ledger directory: ``$CTXOPS_DATA_DIR`` or the platform's user data dir for ctxops."""
    return Path(user_data_dir())


def default_claude_dirs() -> list[Path]:
    """Claude config directories (each holding ``projects/``), the way Claude Code and ccusage find them.

    ``CLAUDE_CONFIG_DIR`` (comma-separated) wins; otherwise ``~/.config/claude`` and ``~/.claude``.
    Only directories that have a ``projects/`` subdirectory are returned, each once.
    """
    env = os.environ.get(CLAUDE_CONFIG_DIR_ENV, "").strip()
    if env:
        candidates = [Path(p.strip()).expanduser() for p in env.split(",") if p.strip()]
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        config_home = Path(xdg).expanduser() if xdg else Path.home() / ".config"
        candidates = [config_home / "claude", Path.home() / ".claude"]
    found: list[Path] = []
    seen: set[Path] = set()
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved in seen or not (resolved / "projects").is_dir():
            continue
        seen.add(resolved)
        found.append(resolved)
    return found


def default_codex_home() -> Path | None:
    """``$CODEX_HOME`` or ``~/.codex``, if it holds a ``sessions/`` directory."""
    env = os.environ.get(CODEX_HOME_ENV, "").strip()
    home = Path(env).expanduser() if env else Path.home() / ".codex"
    return home.resolve() if (home / "sessions").is_dir() else None


def default_gemini_dir() -> Path | None:
    """``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``, if it holds a ``tmp/`` directory (chat recordings)."""
    env = os.environ.get(GEMINI_CLI_HOME_ENV, "").strip()
    base = (Path(env).expanduser() if env else Path.home()) / ".gemini"
    return base.resolve() if (base / "tmp").is_dir() else None
