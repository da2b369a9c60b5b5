"""Offline token estimates with the bundled o200k tokenizer (bpe-openai), loaded on first use.

Provider-reported counts always win; these numbers fill in where no provider said anything, and the
record then says ``source="estimated"``.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

ENCODING = "o200k_base"
# Beyond this many characters, count a sample and scale: exact to a few percent, and bounded in time.
EXACT_LIMIT = 2048
SAMPLE = 512


class _Counter(Protocol):
    def count(self, text: str) -> int: ...


_lock = threading.Lock()
_loaded: list[_Counter] = []


def _bindings() -> Any:
    """bpe-openai's compiled module, loaded without its Python package.

    The package's ``__init__`` rebuilds every encoding's merge table in Python (over a second); the
    compiled module bundles them and loads o200k in ~60 ms. Falls back to the normal import.
    """
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("bpe_openai")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            candidates = sorted(Path(folder).glob(f"_bindings*{suffix}"))
            if candidates:
                loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(candidates[0]))
                module_spec = importlib.util.spec_from_file_location(
                    "bpe_openai._bindings", candidates[0], loader=loader
                )
                if module_spec is not None:
                    module = importlib.util.module_from_spec(module_spec)
                    loader.exec_module(module)
                    return module
    from bpe_openai import _bindings as fallback

    return fallback


def _get() -> _Counter:
    """The tokenizer, loaded once on first use."""
    with _lock:
        if not _loaded:
            _loaded.append(_bindings().tokenizer_for_encoding(ENCODING))
        return _loaded[0]


class O200kCounter:
    """A ``TokenCounter`` (contracts protocol): the o200k tokenizer, an estimate for Claude models."""

    name = ENCODING
    exact = False

    def count(self, text: str) -> int:
        return count_tokens(text)


def count_tokens(text: str) -> int:
    """Tokens in ``text`` by the o200k tokenizer."""
    if not text:
        return 0
    return int(_get().count(text))


def estimate_tokens(text: str) -> int:
    """Tokens in ``text``: exact up to EXACT_LIMIT characters, beyond that three samples scaled up."""
    if len(text) <= EXACT_LIMIT:
        return count_tokens(text)
    counter = _get()
    n = len(text)
    starts = (0, n // 2 - SAMPLE // 2, n - SAMPLE)
    sampled = sum(int(counter.count(text[s : s + SAMPLE])) for s in starts)
    return round(sampled * n / (3 * SAMPLE))


def text_of(value: Any) -> str:
    """The text inside a message content value (a string, or blocks with ``text``/``content``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(filter(None, (text_of(item) for item in value)))
    if isinstance(value, dict):
        parts = []
        for key in ("text", "content", "input", "arguments", "output", "thinking", "refusal"):
            if key in value:
                inner = value[key]
                parts.append(inner if isinstance(inner, str) else text_of(inner))
        return "\n".join(filter(None, parts))
    return ""
