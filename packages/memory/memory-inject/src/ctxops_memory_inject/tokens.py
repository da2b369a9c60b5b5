# ruff: noqa: PTH118
"""Exact cl100k token counts from the bundled offline tokenizer (``bpe-openai``), cached per line.

Loading the encoding costs ~100 ms on a busy machine, more than the inject hook may spend. An injection is
made of lines that repeat from prompt to prompt (one per memory), so each line's count is cached in
``.meta/index/inject-tokens.json`` and the tokenizer is loaded only for lines never counted before. A
block's count is the sum of its lines' counts, each line counted with its newline: cl100k splits text at
newlines before merging, so the sum is the count of the joined block (tests check it against a direct count).
"""

from __future__ import annotations

import os

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.bpe import TokenizerUnavailable
from ctxops_contracts.shared.digest import blake2b_hex
from ctxops_contracts.shared.lazylog import get_logger

__all__ = ["ENCODING", "LineCounter", "TokenizerUnavailable", "count"]

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

log = get_logger(__name__)

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
                from ctxops_contracts.shared.confine import read_regular

                loaded = jsonlite.loads(read_regular(self.path, 16_000_000))
                if isinstance(loaded, dict):
                    self.known = loaded
            except (OSError, ValueError):
                pass

    def line(self, text: str) -> int:
        key = blake2b_hex(text.encode("utf-8"), 10)
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
            atomic_write(self.path, jsonlite.dumps(known, compact=True), fsync=False)
            self.dirty = False
        except OSError as exc:
            log.warning("token cache not saved: %s", exc)
