# ruff: noqa: PTH100, PTH110, PTH116, PTH118
# os.path, as the hook that imports it (no pathlib).
"""Count the lines the inject hook may show, before it needs them (issue 23, item 4).

A new prompt brings up memories never shown before; their lines' counts were the only reason the hook loaded
the tokenizer (20-25 ms of CPU, a third of the hook). ``precount`` renders every active memory of the read
snapshot in each form the hook may give it (whole, summarized; a digest's lines) and writes the counts into
the token table (``tokens.TokenTable``), once per file version (name, inode, time in ``counted``).

Run detached (``python -m ctxops_memory_inject.precount ROOT``) when a hook had to count, and in the
foreground by ``ctx mem reconcile`` after a pull (core), bounded to ``FOREGROUND_FILES`` files. Lines the
table does not know (a memory whose tied code changed carries a review mark; files a reader parsed on top of
the snapshot) are still counted by the hook: the table saves tokenizer loads, never decides a count.
"""

from __future__ import annotations

import os
import sqlite3
import sys

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.lazylog import get_logger

from .tokens import MAX_LINES, TokenTable, count, line_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxops_memory_store.snapshot import Record

log = get_logger(__name__)

STARTED = "inject-tokens.precount-started"
EVERY_S = 60.0  # at most one detached precount started per this many seconds
FOREGROUND_FILES = 200  # the git hook counts this many files' lines itself; more are the detached job's
_BATCH = 2_000  # files per transaction (a hook's lookup never waits behind a long one: WAL)


def forms(entry: Record) -> list[str]:
    """Every line the hook may show of ``entry`` without a review mark (``build.renderings``, digests)."""
    from .build import digest_lines, renderings

    if entry.get("kind") == "summary":
        return digest_lines(entry)
    return [line for lines in renderings(entry) if lines for line in lines]


def _uncounted(snapshot_path: str, con: sqlite3.Connection, since: int) -> tuple[list[tuple[str, int, int]], int]:
    """The snapshot's document files (name, inode, time) past document ``since`` whose lines the table has not
    counted, and the last document's number (a write adds documents at the end: after a pull, its files)."""
    from ctxops_contracts.shared.confine import refuse_symlink

    snap = sqlite3.connect(f"file:{refuse_symlink(snapshot_path)}?mode=ro", uri=True)
    try:
        files = snap.execute(
            "SELECT f.file, f.ino, f.mtime_ns FROM docs d JOIN files f ON f.file = d.file WHERE d.doc > ?", (since,)
        ).fetchall()
        last = int(snap.execute("SELECT coalesce(max(doc), 0) FROM docs").fetchone()[0])
    finally:
        snap.close()
    out: list[tuple[str, int, int]] = []
    for start in range(0, len(files), 500):
        chunk = files[start : start + 500]
        marks = ",".join("?" * len(chunk))
        done = set(
            con.execute(f"SELECT file, ino, mtime_ns FROM counted WHERE file IN ({marks})", [f for f, _, _ in chunk])
        )
        out += [(str(f), int(i or 0), int(m or 0)) for f, i, m in chunk if (f, i, m) not in done]
    return out, last


def _entries(snapshot_path: str, names: list[str]) -> dict[str, Record]:
    from ctxops_contracts.shared.confine import refuse_symlink

    snap = sqlite3.connect(f"file:{refuse_symlink(snapshot_path)}?mode=ro", uri=True)
    out: dict[str, Record] = {}
    try:
        for start in range(0, len(names), 500):
            chunk = names[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for name, entry in snap.execute(f"SELECT file, entry FROM docs WHERE file IN ({marks})", chunk):
                value = jsonlite.loads(entry)
                if isinstance(value, dict):
                    out[str(name)] = value
    finally:
        snap.close()
    return out


def precount(root: str, *, limit: int | None = None) -> tuple[int, int]:
    """Count the lines of the snapshot's memories written since the last run (every one, the first time) that
    the table has not counted; ``limit`` (the git hook): nothing when more than ``limit`` files wait, or when
    the store was never counted (the caller starts the detached job). Returns (files waiting, lines counted)."""
    from ctxops_contracts.shared.confine import meta_is_safe
    from ctxops_contracts.shared.layout import INDEX_DIR, META_DIR
    from ctxops_memory_store import snapshot

    if not meta_is_safe(root):  # a symlinked or foreign .meta: nothing read from it, nothing written
        return 0, 0
    index_dir = os.path.join(root, META_DIR, INDEX_DIR)
    snapshot_path = snapshot.path_for(index_dir)
    if not os.path.exists(snapshot_path):
        return 0, 0
    table = TokenTable(index_dir)
    con = table.connect(write=True)
    if con is None and limit is None and os.path.exists(table.path):  # unreadable or another format: derived
        table.reset()
        con = table.connect(write=True)
    if con is None:
        return 0, 0
    counted = 0
    try:
        if limit is None and con.execute("SELECT count(*) FROM lines").fetchone()[0] > MAX_LINES:
            with con:  # old texts' lines piled up: start again (this run counts the store's)
                con.execute("DELETE FROM lines")
                con.execute("DELETE FROM counted")
                con.execute("DELETE FROM meta WHERE key = 'last_doc'")
        if limit is None:
            _fill_ranks(con)
        meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('last_doc', 'snapshot')").fetchall())
        identity = str(os.stat(snapshot_path).st_ino)
        if meta.get("snapshot") != identity:  # never counted, or the snapshot was made again: numbered anew
            meta.pop("last_doc", None)
        if limit is not None and "last_doc" not in meta:
            return limit + 1, 0  # the whole store is the detached job's
        # Documents are numbered in the order written: those past the last run's are the new ones (a pull's,
        # a put's). Fewer than the last run saw: rows were removed and numbered again, all are looked at.
        since = int(meta.get("last_doc", "0"))
        waiting, last = _uncounted(snapshot_path, con, since)
        if last < since:
            waiting, last = _uncounted(snapshot_path, con, 0)
        if limit is not None and len(waiting) > limit:
            return len(waiting), 0
        for start in range(0, len(waiting), _BATCH):
            batch = waiting[start : start + _BATCH]
            entries = _entries(snapshot_path, [name for name, _, _ in batch])
            lines = {line_key(line): line for entry in entries.values() for line in forms(entry)}
            if start == 0:
                from .build import fixed_lines

                lines.update((line_key(line), line) for line in fixed_lines())
            known: set[str] = set()
            keys = sorted(lines)
            for at in range(0, len(keys), 500):
                chunk = keys[at : at + 500]
                marks = ",".join("?" * len(chunk))
                known.update(k for (k,) in con.execute(f"SELECT hash FROM lines WHERE hash IN ({marks})", chunk))
            fresh = [(key, count(line + "\n")) for key, line in lines.items() if key not in known]
            with con:
                con.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?)", fresh)
                con.executemany("INSERT OR REPLACE INTO counted VALUES (?, ?, ?)", batch)
            counted += len(fresh)
        with con:
            done = [("last_doc", str(last)), ("snapshot", identity)]
            con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", done)
        return len(waiting), counted
    finally:
        con.close()


def _fill_ranks(con: sqlite3.Connection) -> None:
    """The encoding's tokens and ranks, once: the hook then counts a new ASCII line without loading the
    tokenizer (``bpe_table``)."""
    from .bpe_table import vocabulary
    from .tokens import _tokenizer

    if con.execute("SELECT value FROM meta WHERE key = 'ranks'").fetchone() is not None:
        return
    found = vocabulary(_tokenizer())
    if found is None:
        log.warning("token ranks not written: the tokenizer's vocabulary file is missing or disagrees with it")
        return
    with con:
        con.execute("DELETE FROM ranks")
        con.executemany("INSERT INTO ranks VALUES (?, ?)", found.items())
        con.execute("INSERT OR REPLACE INTO meta VALUES ('ranks', ?)", (str(len(found)),))


def request_precount(root: str, index_dir: str) -> bool:
    """Start one detached ``python -m ctxops_memory_inject.precount ROOT`` unless one started lately (the
    hook never waits for it)."""
    from ctxops_contracts.shared.detach import start_module_at_most_every

    try:
        return start_module_at_most_every(
            os.path.join(index_dir, STARTED), EVERY_S, "ctxops_memory_inject.precount", root
        )
    except OSError as exc:
        log.warning("token precount not started: %s", exc)
        return False


def after_reconcile(root: str) -> None:
    """After a pull (``ctx mem reconcile``): the pulled memories' lines counted now, so the agent's next hook
    loads no tokenizer for them; more than ``FOREGROUND_FILES`` waiting: the detached job counts them."""
    from ctxops_contracts.shared.bpe import TokenizerUnavailable
    from ctxops_contracts.shared.layout import INDEX_DIR, META_DIR

    try:
        waiting, _ = precount(root, limit=FOREGROUND_FILES)
        if waiting > FOREGROUND_FILES:
            request_precount(root, os.path.join(root, META_DIR, INDEX_DIR))
    except (OSError, sqlite3.Error, ValueError, TokenizerUnavailable) as exc:
        log.warning("token precount failed: %s", exc)


def main(argv: list[str]) -> int:
    """Count the lines of the repository at ``argv[0]`` (quietly; the detached job)."""
    from ctxops_contracts.shared.bpe import TokenizerUnavailable

    if len(argv) != 1:
        print("usage: python -m ctxops_memory_inject.precount ROOT", file=sys.stderr)
        return 2
    from ctxops_contracts.shared.detach import lower_priority

    lower_priority()  # a cache no one waits for (the hook counts what it misses): never ahead of the next hook
    try:
        precount(os.path.abspath(argv[0]))
    except (OSError, sqlite3.Error, ValueError, TokenizerUnavailable) as exc:
        log.warning("token precount failed: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
