"""The arms of a bench: what ctxops is wired to do in a run's checkout.

``off`` wires nothing. Every other arm is wired by the code of ``ctx init`` (so an arm is exactly what a user
who ran it would have) and then narrowed with the ``[lines]`` switch (``ctxops_core.lines``): ``all`` keeps
every installed line, ``map``/``memory``/``guard`` keep one.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ctxops_core.lines import LINES, config_block

ARMS = ("off", "all", *LINES)
AGENTS = {"claude-code": "claude-code", "claude": "claude-code", "codex": "codex", "gemini": "gemini"}


class ArmError(ValueError):
    """An arm or agent name that ``ctx bench`` does not know."""


@dataclass(frozen=True)
class Arm:
    name: str

    @property
    def lines(self) -> frozenset[str]:
        if self.name == "off":
            return frozenset()
        return frozenset(LINES) if self.name == "all" else frozenset({self.name})


def parse_arms(text: str) -> list[Arm]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ArmError("--arms: give at least one arm (off, all, map, memory, guard)")
    unknown = [n for n in names if n not in ARMS]
    if unknown:
        raise ArmError(f"--arms: unknown arm(s) {', '.join(unknown)} (known: {', '.join(ARMS)})")
    if len(set(names)) != len(names):
        raise ArmError("--arms: an arm is named twice")
    return [Arm(n) for n in names]


def parse_agent(name: str) -> str:
    try:
        return AGENTS[name]
    except KeyError:
        raise ArmError(f"--agent: {name!r} is not one of claude-code, codex, gemini") from None


def wire(checkout: Path, arm: Arm, agent: str, source_root: Path) -> list[str]:
    """Wire ``arm`` for ``agent`` in ``checkout`` as ``ctx init`` does; notes for the run's record."""
    if arm.name == "off":
        return []
    from ctxops_core.init_cmd import apply_init, ctx_argv, plan_init, statusline_available

    plan = plan_init(checkout, [agent], ctx_argv(), statusline_available())
    # Nothing outside the run's checkout is written (git hooks live inside a clone; a `core.hooksPath` that
    # points elsewhere would reach the user's files).
    plan.changes = [c for c in plan.changes if not c.path.startswith("../") and not c.path.startswith("/")]
    apply_init(checkout, plan)
    config = checkout / ".meta" / "config.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(text + ("\n" if text and not text.endswith("\n") else "") + config_block(arm.lines))
    notes = list(plan.notes)
    if "map" in arm.lines:
        notes += _build_code_index(checkout)
    if "memory" in arm.lines:
        notes += _vouch_like(source_root, checkout)
    return notes


def _build_code_index(checkout: Path) -> list[str]:
    """The code map is built before the agent starts, so the build's time is not the agent's."""
    from ctxops_core.init_cmd import ctx_argv

    done = subprocess.run(
        [*ctx_argv(), "code", "index", "--root", str(checkout)],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return [f"code index build failed (exit {done.returncode}): {tail[0]}"]
    return []


def _vouch_like(source_root: Path, checkout: Path) -> list[str]:
    """The checkout's memories are injected exactly when the user's own checkout would inject them."""
    try:
        from ctxops_memory_store import trust
    except ModuleNotFoundError:
        return []
    if trust.repository_trusted(source_root):
        trust.trust_repository(checkout)
    else:
        trust.record_hashes(checkout, trust.known_hashes(source_root))
    return []


def unvouch(checkout: Path) -> None:
    """Take back what :func:`_vouch_like` recorded for a checkout that is going away."""
    try:
        from ctxops_memory_store import trust
    except ModuleNotFoundError:
        return
    trust.forget_repository(checkout)
