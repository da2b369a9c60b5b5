# ruff: noqa: PTH107, PTH110, PTH114, PTH118
# os.path on the hook path: the hook does without importing pathlib.
"""Exact cl100k token counts from the bundled offline tokenizer (``bpe-openai``), kept per line in a table.

Loading the encoding costs 20-25 ms of CPU (~100 ms on a busy machine), a third of the inject hook. An
injection is made of lines that repeat from prompt to prompt (one per memory), so each line's count is kept
in ``.meta/index/inject-tokens.sqlite`` (line hash -> count) and the tokenizer loads only for lines never
counted. The table is filled ahead of the hook too: ``precount`` counts every memory's rendered lines once,
detached, and after a pull in the git hook, so a new prompt that brings up memories never shown before finds
their counts (issue 23). A block's count is the sum of its lines' counts, each line counted with its newline:
cl100k splits text at newlines before merging, so the sum is the count of the joined block (tests check it
against a direct count). Derived data: a missing or unreadable table means the tokenizer counts.
"""

from __future__ import annotations

import os
import sqlite3

from ctxops_contracts.shared.bpe import TokenizerUnavailable
from ctxops_contracts.shared.digest import blake2b_hex
from ctxops_contracts.shared.lazylog import get_logger

__all__ = ["ENCODING", "LineCounter", "TokenTable", "TokenizerUnavailable", "count", "line_key"]

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

log = get_logger(__name__)

ENCODING = "cl100k_base"
TABLE_NAME = "inject-tokens.sqlite"
FORMAT = "1"
MAX_LINES = 400_000  # more rows than this (old texts' lines pile up): ``precount`` starts the table again
_CHUNK = 500  # SQL variables per lookup
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS lines (hash TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counted (file TEXT PRIMARY KEY, ino INTEGER, mtime_ns INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ranks (token BLOB PRIMARY KEY, rank INTEGER NOT NULL) WITHOUT ROWID;
"""


def _tokenizer(encoding: str = ENCODING) -> Any:
    from ctxops_contracts.shared.bpe import tokenizer

    return tokenizer(encoding)


def count(text: str) -> int:
    """The exact cl100k count of ``text``."""
    return int(_tokenizer().count(text))


def line_key(text: str) -> str:
    return blake2b_hex(text.encode("utf-8"), 10)


class TokenTable:
    """``.meta/index/inject-tokens.sqlite``: line hash -> exact count, and the memory files whose lines are in
    it (``counted``: name, inode, time, for ``precount``). Never through a symlink; every failure reads as
    "not known" (the tokenizer counts) and a write that would wait is skipped."""

    def __init__(self, index_dir: str) -> None:
        self.path = os.path.join(index_dir, TABLE_NAME)

    def connect(self, *, write: bool = False, wait: float = 0.5) -> sqlite3.Connection | None:
        from ctxops_contracts.shared.confine import refuse_symlink

        try:
            if not write:
                if not os.path.exists(self.path):
                    return None
                return sqlite3.connect(f"file:{refuse_symlink(self.path)}?mode=ro", uri=True, timeout=0.05)
            if not os.path.exists(self.path):  # private, as every file ctxops makes under .meta (its WAL follows)
                from ctxops_contracts.shared.confine import open_regular

                os.close(open_regular(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            con = sqlite3.connect(refuse_symlink(self.path), timeout=wait)
            con.execute("PRAGMA journal_mode=WAL")  # readers (hooks) never wait for a writer
            con.execute("PRAGMA synchronous=NORMAL")  # derived: a lost tail is counted again
            con.executescript(_SCHEMA)
            found = con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if found is None:
                with con:
                    con.executemany(
                        "INSERT OR REPLACE INTO meta VALUES (?, ?)", [("format", FORMAT), ("encoding", ENCODING)]
                    )
            elif found[0] != FORMAT:
                con.close()
                return None
            return con
        except (OSError, sqlite3.Error) as exc:
            log.debug("token table unavailable: %s", exc)
            return None

    def reset(self) -> None:
        """Remove an unreadable table (or one of another format) so the next write starts it again; a symlink
        is left alone (never followed, never used)."""
        for name in (self.path, self.path + "-wal", self.path + "-shm"):
            try:
                if not os.path.islink(name):
                    os.remove(name)
            except OSError:
                pass

    def lookup(self, keys: Iterable[str]) -> dict[str, int]:
        wanted = sorted(set(keys))
        con = self.connect()
        if con is None or not wanted:
            return {}
        out: dict[str, int] = {}
        try:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                out.update(con.execute(f"SELECT hash, n FROM lines WHERE hash IN ({marks})", chunk).fetchall())
        except sqlite3.Error as exc:  # an old or foreign file: nothing is known
            log.debug("token table not read: %s", exc)
            return {}
        finally:
            con.close()
        return out

    def ranks(self, tokens: set[bytes]) -> dict[bytes, int] | None:
        """The ranks of those of ``tokens`` that are tokens of the encoding (``bpe_table``); None when the
        table holds no ranks (``precount`` writes them with the tokenizer loaded) or cannot be read."""
        con = self.connect()
        if con is None:
            return None
        wanted = sorted(tokens)
        out: dict[bytes, int] = {}
        try:
            if con.execute("SELECT value FROM meta WHERE key = 'ranks'").fetchone() is None:
                return None
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                out.update(con.execute(f"SELECT token, rank FROM ranks WHERE token IN ({marks})", chunk).fetchall())
        except sqlite3.Error as exc:  # an older table (no ranks), a foreign file: the tokenizer counts
            log.debug("token ranks not read: %s", exc)
            return None
        finally:
            con.close()
        return out

    def add(self, counts: dict[str, int]) -> None:
        if not counts:
            return
        con = self.connect(write=True, wait=0.05)  # the hook: never waits long behind the precount's batch
        if con is None:
            return
        try:
            with con:
                con.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?)", list(counts.items()))
        except sqlite3.Error as exc:  # busy (another hook, the precount): the next one counts them again
            log.debug("token counts not saved: %s", exc)
        finally:
            con.close()


class LineCounter:
    """Counts lines (each with its newline), remembering counts across processes (``TokenTable``).

    ``prefetch`` the lines a block may hold first: one lookup for all of them; ``line`` then loads the
    tokenizer only for a line the table does not know and ``bpe_table`` cannot count from the table's ranks.
    ``counted``: how many lines it had to count."""

    name = ENCODING

    def __init__(self, cache_dir: str | None = None) -> None:
        self.table = TokenTable(cache_dir) if cache_dir else None
        self.known: dict[str, int] = {}
        self.new: dict[str, int] = {}
        self.counted = 0  # lines counted here (not found in the table)
        self.no_ranks = False

    def prefetch(self, lines: Iterable[str]) -> None:
        if self.table is None:
            return
        keys = {line_key(text) for text in lines} - self.known.keys()
        self.known.update(self.table.lookup(keys))

    def line(self, text: str) -> int:
        key = line_key(text)
        found = self.known.get(key)
        if found is None:
            found = self._from_ranks(text + "\n")
            if found is None:
                found = count(text + "\n")
            self.known[key] = self.new[key] = found
            self.counted += 1
        return found

    def _from_ranks(self, text: str) -> int | None:
        """The exact count of a plain line from the table's ranks, without the tokenizer (``bpe_table``)."""
        if self.table is None or self.no_ranks:
            return None
        from .bpe_table import count as table_count

        table = self.table

        def ranks(tokens: set[bytes]) -> dict[bytes, int] | None:
            found = table.ranks(tokens)
            self.no_ranks = found is None  # none written yet (an older table): not asked again in this process
            return found

        return table_count(text, ranks)

    def save(self) -> None:
        if self.table is not None and self.new:
            self.table.add(self.new)
            self.new = {}
