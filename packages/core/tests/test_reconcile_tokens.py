"""``ctx mem reconcile`` (the git hooks, after a pull) counts the pulled memories' lines for the inject hook.

Without it the agent's next hook loaded the tokenizer (20-25 ms of CPU) whenever the new prompt brought up a
pulled memory (issue 23, item 4). Real store, real snapshot, the real tokenizer; no git needed: files written
into the memory directory are what a pull leaves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ctxops_contracts import MemoryEntry, new_ulid
from ctxops_core.cli import main
from ctxops_memory_inject import precount
from ctxops_memory_inject.tokens import TokenTable, line_key
from ctxops_memory_store import MemoryStore, snapshot
from ctxops_memory_store.catalog import parse_file
from ctxops_memory_store.entry_file import file_name, render_entry


def _write(memory: Path, title: str, body: str) -> MemoryEntry:
    entry = MemoryEntry(id=new_ulid(), kind="lesson", title=title, body=body, created_at=datetime.now(UTC))
    (memory / file_name(entry)).write_text(render_entry(entry), encoding="utf-8")
    return entry


def test_reconcile_counts_the_pulled_memories_lines(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    memory = root / ".meta" / "memory"
    memory.mkdir(parents=True)
    for n in range(snapshot.MIN_FILES + 10):  # a store past the snapshot's threshold
        _write(memory, f"Note {n} on the billing export", f"The export number {n} runs nightly.")
    MemoryStore(root).sync_snapshot()
    precount.precount(str(root))  # the detached job has run: the table knows the store's lines
    table = TokenTable(str(root / ".meta" / "index"))

    pulled = _write(memory, "Vendored wheels live in third_party", "Never pip install them. " * 30)
    parsed = parse_file(str(memory / file_name(pulled)), file_name(pulled))["entry"]  # as the snapshot keeps it
    assert isinstance(parsed, dict)
    lines = precount.forms(parsed)
    assert len(lines) == 2  # a long lesson: whole and summarized
    assert not table.lookup(line_key(line) for line in lines)

    assert main(["mem", "--root", str(root), "reconcile"]) == 0
    assert set(table.lookup(line_key(line) for line in lines)) == {line_key(line) for line in lines}
