"""Ledger settings: prices, budgets and alert thresholds from the user config and ``.meta/config.toml``.

The user config (``$XDG_CONFIG_HOME/ctxops/config.toml``, or ``$CTXOPS_CONFIG``) applies everywhere; a
repository's ``.meta/config.toml`` is read after it, so a project's values win. Stdlib only.

```toml
[ledger.budgets]          # USD; exceeding one makes `ctx ledger check` exit 4
day = 20.0                # all repositories, per calendar day (--tz)
session = 5.0             # any one session
task = 40.0               # any one task (all its sessions and days)
repository = 10.0         # any one repository, per calendar day

[ledger.alerts]
cache_hit_drop = 0.15     # alert when recent sessions' cache hit rate is this far below the baseline
recent_sessions = 5
baseline_sessions = 20

[ledger.prices."my-finetune"]   # USD per million tokens
input = 3.0
output = 15.0
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.confine import read_config_text
from ctxops_contracts.shared.layout import CONFIG_FILE, meta_path
from ctxops_token_capture.machine import user_config_path  # one user config for the ledger line

BUDGET_KINDS = ("day", "session", "task", "repository")


def config_files(repo: str | None) -> list[Path]:
    """The config files that apply, user first, then the repository's (later ones win)."""
    files = [user_config_path()]
    if repo:
        files.append(Path(meta_path(repo, CONFIG_FILE)))
    return files


@dataclass
class LedgerConfig:
    budgets: dict[str, float] = field(default_factory=dict)
    cache_hit_drop: float = 0.15
    recent_sessions: int = 5
    baseline_sessions: int = 20
    files: list[Path] = field(default_factory=list)


def _ledger_section(path: Path) -> dict[str, Any]:
    try:
        # A repository's .meta/config.toml is read as a regular file only (capped); the user's own config
        # may be a symlink (dotfile managers).
        text = read_config_text(str(path)) if ".meta" in path.parts else path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    section = data.get("ledger", {})
    return section if isinstance(section, dict) else {}


def load_config(files: list[Path]) -> LedgerConfig:
    """Budgets and alert thresholds; a bad value is an error naming the file and the key."""
    config = LedgerConfig(files=[p for p in files if p.is_file()])
    for path in files:
        section = _ledger_section(path)
        for kind, value in (section.get("budgets") or {}).items():
            if kind not in BUDGET_KINDS:
                raise ValueError(f"{path}: [ledger.budgets] {kind!r} is not one of {', '.join(BUDGET_KINDS)}")
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{path}: [ledger.budgets] {kind} must be a non-negative number of USD")
            config.budgets[kind] = float(value)
        alerts = section.get("alerts") or {}
        if "cache_hit_drop" in alerts:
            config.cache_hit_drop = float(alerts["cache_hit_drop"])
        if "recent_sessions" in alerts:
            config.recent_sessions = max(1, int(alerts["recent_sessions"]))
        if "baseline_sessions" in alerts:
            config.baseline_sessions = max(1, int(alerts["baseline_sessions"]))
    return config
