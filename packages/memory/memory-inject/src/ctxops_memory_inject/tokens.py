# ruff: noqa: PTH118
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
from typing import Any

from ctxops_contracts.shared.bpe import TokenizerUnavailable

__all__ = ["ENCODING", "LineCounter", "TokenizerUnavailable", "count"]

log = logging.getLogger(__name__)

ENCODING = "cl100k_base"
CACHE_NAME = "inject-tokens.json"
_CACHE_LIMIT = 50_000


def _tokenizer(encoding: str = ENCODING) -> Any:
    from ctxops_contracts.shared.bpe import tokenizer

    return tokenizer(encoding)


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
