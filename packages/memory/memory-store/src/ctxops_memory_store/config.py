"""The ``[memory]`` section of ``.meta/config.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ctxops_contracts.shared.confine import read_config_text

from .layout import CONFIG_FILE
from .settle_rules import FOLD_THRESHOLD


class ConfigError(ValueError):
    """``.meta/config.toml`` cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class MemoryConfig:
    auto_accept: bool = False
    accept_corrections: bool = False  # a user's correction becomes an active lesson without review
    fold_threshold: float = FOLD_THRESHOLD
    vector_enabled: bool = False  # load_config: on by default when a model embedder is installed (the embed extra)
    embedder: str = "auto"  # ``wordllama`` when the embed extra is installed, else ``hashing`` (vector.resolve_name)
    vector_fold_threshold: float | None = None  # None: the calibrated threshold of the embedder (similarity.py)
    vector_hook: bool = False  # the inject hook fuses vectors too (costs the model's load on every prompt)
    on_conflict: str = "supersede"  # or "review": a likely conflict queues the newer entry as a candidate


def _choice(value: object, allowed: tuple[str, ...], key: str) -> str:
    if value not in allowed:
        raise ValueError(f"{key} = {value!r}; use one of {', '.join(allowed)}")
    return str(value)


def _vectors_by_default(embedder: str) -> bool:
    """Vectors are on unless configured off exactly when the embedder is a model that is installed (the
    ``embed`` extra for ``auto``): the hashing fallback adds little to BM25, so it stays opt-in."""
    if embedder not in ("auto", "wordllama"):
        return False
    from .extras import wordllama_files  # a path lookup, no import of the model or numpy

    return wordllama_files() is not None


def load_config(root: Path) -> MemoryConfig:
    """Settings from ``root/.meta/config.toml`` (defaults when the file or section is absent)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return MemoryConfig(vector_enabled=_vectors_by_default("auto"))
    try:
        data = tomllib.loads(read_config_text(str(path)))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    memory = data.get("memory", {})
    vector = memory.get("vector", {}) if isinstance(memory, dict) else {}
    if not isinstance(memory, dict) or not isinstance(vector, dict):
        raise ConfigError(f"{path}: [memory] and [memory.vector] must be tables")
    try:
        embedder = str(vector.get("embedder", "auto"))
        enabled = vector.get("enabled")
        fold = vector.get("fold_threshold")
        return MemoryConfig(
            auto_accept=bool(memory.get("auto_accept", False)),
            accept_corrections=bool(memory.get("accept_corrections", False)),
            fold_threshold=float(memory.get("fold_threshold", FOLD_THRESHOLD)),
            vector_enabled=_vectors_by_default(embedder) if enabled is None else bool(enabled),
            embedder=embedder,
            vector_fold_threshold=None if fold is None else float(fold),
            vector_hook=bool(vector.get("hook", False)),
            on_conflict=_choice(memory.get("on_conflict", "supersede"), ("supersede", "review"), "on_conflict"),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: bad value in [memory]: {exc}") from None
