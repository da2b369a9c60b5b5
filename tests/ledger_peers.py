"""ccusage@17 (Claude Code) and @ccusage/codex@17, installed with npm on first use into the test cache.

Like the harness's Claude Code install: under a file lock, skipped only when node/npm are missing, and a
failed install is an error. Reports are parsed into plain dicts keyed the way the ledger's totals are.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from agent_harness.npm_client import cache_root, file_lock

PACKAGES = ("ccusage@17", "@ccusage/codex@17")


class PeerInstallError(RuntimeError):
    """npm could not install ccusage."""


def ensure_ccusage() -> Path:
    """The ``node_modules/.bin`` directory holding ``ccusage`` and ``ccusage-codex``."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"comparisons with ccusage need {' and '.join(missing)} on PATH")
    prefix = cache_root() / "ccusage-17"
    bin_dir = prefix / "node_modules" / ".bin"
    marker = prefix / ".installed"
    with file_lock(cache_root() / "ccusage-17.lock"):
        if marker.is_file() and (bin_dir / "ccusage").exists() and (bin_dir / "ccusage-codex").exists():
            return bin_dir
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", *PACKAGES]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not (bin_dir / "ccusage").exists():
            raise PeerInstallError(f"`{' '.join(command)}` failed ({done.returncode}):\n{done.stderr[-3000:]}")
        marker.write_text(" ".join(PACKAGES) + "\n")
    return bin_dir


def _run(command: list[str], env: dict[str, str]) -> Any:
    full_env = {"PATH": os.environ.get("PATH", ""), "HOME": env.get("HOME", "/nonexistent"), "TZ": "UTC", **env}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, env=full_env)
    if done.returncode != 0:
        raise AssertionError(f"{command} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def ccusage_daily(claude_dirs: list[Path]) -> dict[tuple[str, str], dict[str, int]]:
    """``ccusage daily --json --offline --breakdown``: token sums per (day, model), days in UTC."""
    bin_dir = ensure_ccusage()
    report = _run(
        [str(bin_dir / "ccusage"), "daily", "--json", "--offline", "--breakdown", "--timezone", "UTC"],
        {"CLAUDE_CONFIG_DIR": ",".join(str(d) for d in claude_dirs)},
    )
    out: dict[tuple[str, str], dict[str, int]] = {}
    for day in report["daily"]:
        for model in day["modelBreakdowns"]:
            out[(day["date"], model["modelName"])] = {
                "input_tokens": model["inputTokens"],
                "output_tokens": model["outputTokens"],
                "cache_creation_tokens": model["cacheCreationTokens"],
                "cache_read_tokens": model["cacheReadTokens"],
            }
    return out


def ccusage_daily_totals(claude_dirs: list[Path]) -> dict[str, dict[str, int]]:
    """``ccusage daily --json --offline`` (no breakdown): token sums per day."""
    bin_dir = ensure_ccusage()
    report = _run(
        [str(bin_dir / "ccusage"), "daily", "--json", "--offline", "--timezone", "UTC"],
        {"CLAUDE_CONFIG_DIR": ",".join(str(d) for d in claude_dirs)},
    )
    return {
        day["date"]: {
            "input_tokens": day["inputTokens"],
            "output_tokens": day["outputTokens"],
            "cache_creation_tokens": day["cacheCreationTokens"],
            "cache_read_tokens": day["cacheReadTokens"],
        }
        for day in report["daily"]
    }


def ccusage_codex_daily(codex_home: Path) -> dict[tuple[str, str], dict[str, int]]:
    """``ccusage-codex daily --json --offline``: Codex's own counters per (day, model), days in UTC."""
    bin_dir = ensure_ccusage()
    report = _run(
        [str(bin_dir / "ccusage-codex"), "daily", "--json", "--offline", "--timezone", "UTC"],
        {"CODEX_HOME": str(codex_home)},
    )
    out: dict[tuple[str, str], dict[str, int]] = {}
    for day in report["daily"]:
        date = datetime.strptime(day["date"], "%b %d, %Y").strftime("%Y-%m-%d")
        for model, usage in day["models"].items():
            out[(date, model)] = {
                "input_tokens": usage["inputTokens"],
                "cached_input_tokens": usage["cachedInputTokens"],
                "output_tokens": usage["outputTokens"],
                "reasoning_output_tokens": usage["reasoningOutputTokens"],
            }
    return out


def ccusage_daily_costs(claude_dirs: list[Path]) -> dict[tuple[str, str], float]:
    """``ccusage daily --json --offline --breakdown``: USD per (day, model), days in UTC."""
    bin_dir = ensure_ccusage()
    report = _run(
        [str(bin_dir / "ccusage"), "daily", "--json", "--offline", "--breakdown", "--timezone", "UTC"],
        {"CLAUDE_CONFIG_DIR": ",".join(str(d) for d in claude_dirs)},
    )
    return {(day["date"], m["modelName"]): float(m["cost"]) for day in report["daily"] for m in day["modelBreakdowns"]}
