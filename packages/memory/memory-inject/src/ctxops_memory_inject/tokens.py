# ruff: noqa: PTH113, PTH118
"""Exact cl100k token counts from the bundled offline tokenizer (``bpe-openai``), cached per line.

Loading the encoding costs ~100 ms on a busy machine, more than the inject hook may spend. An injection is
made of lines that repeat from prompt to prompt (one per memory), so each line's count is cached in
``.meta/index/inject-tokens.json`` and the tokenizer is loaded only for lines never counted before. A
block's count is the sum of its lines' counts, each line counted with its newline: cl100k splits text at
newlines before merging, so the sum is the count of the joined block (tests check it against a direct count).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from functools import cache
from typing import Any

log = logging.getLogger(__name__)

ENCODING = "cl100k_base"
CACHE_NAME = "inject-tokens.json"
_CACHE_LIMIT = 50_000


class TokenizerUnavailable(RuntimeError):
    """``bpe-openai`` is not installed, or installed without its compiled bindings."""


@cache
def _tokenizer(encoding: str = ENCODING) -> Any:
    """The compiled tokenizer alone (``import bpe_openai`` spends ~0.6 s building a registry we do not need)."""
    import importlib.machinery
    import importlib.util

    module = sys.modules.get("bpe_openai._bindings")
    if module is None:
        spec = importlib.util.find_spec("bpe_openai")
        if spec is None or not spec.submodule_search_locations:
            raise TokenizerUnavailable("bpe-openai is not installed (pip install bpe-openai)")
        for location in spec.submodule_search_locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                candidate = os.path.join(location, f"_bindings{suffix}")
                ext = importlib.util.spec_from_file_location("bpe_openai._bindings", candidate)
                if os.path.isfile(candidate) and ext is not None and ext.loader is not None:
                    module = importlib.util.module_from_spec(ext)
                    ext.loader.exec_module(module)
                    break
            if module is not None:
                break
    if module is None:
        raise TokenizerUnavailable("bpe-openai is installed without its compiled bindings; reinstall it")
    return module.tokenizer_for_encoding(encoding)


def count(text: str) -> int:
    """The exact cl100k count of ``text``."""
    return int(_tokenizer().count(text))


class LineCounter:
    """Counts lines (each with its newline), remembering counts across processes."""

    name = ENCODING

    def __init__(self, cache_dir: str | None = None) -> None:
        self.path = os.path.join(cache_dir, CACHE_NAME) if cache_dir else None
        self.known: dict[str, int] = {}
        self.dirty = False
        if self.path:
            try:
                with open(self.path, "rb") as fh:
                    loaded = json.loads(fh.read())
                if isinstance(loaded, dict):
                    self.known = loaded
            except (OSError, ValueError):
                pass

    def line(self, text: str) -> int:
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = count(text + "\n")
            self.dirty = True
        return found

    def save(self) -> None:
        if not (self.dirty and self.path):
            return
        from ctxops_contracts.shared.files import atomic_write

        known = self.known
        if len(known) > _CACHE_LIMIT:
            known = dict(list(known.items())[-_CACHE_LIMIT // 2 :])
        try:
            atomic_write(self.path, json.dumps(known, separators=(",", ":")), fsync=False)
            self.dirty = False
        except OSError as exc:
            log.warning("token cache not saved: %s", exc)
