"""Entries as Markdown files: stable names, round trips, clean diffs, broken files reported by path and line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ctxops_memory_store.entry_file import file_name, load_directory, parse_entry, render_entry
from ctxops_memory_store.frontmatter import FrontMatterError
from ctxops_memory_store.store import MemoryStore, new_entry

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_round_trip_keeps_every_field() -> None:
    entry = new_entry(
        kind="constraint",
        title='Never log card numbers "PAN"',
        body="Line one\n\n- a list\n- 中文",
        scope=["api/payments/**"],
        files=["api/payments/log.py"],
        tags=["pci"],
        source=["01EV"],
        pinned=True,
        now=NOW,
    )
    text = render_entry(entry)
    assert parse_entry(text, "x.md") == entry


def test_file_name_is_readable_and_stable(store: MemoryStore) -> None:
    entry = new_entry(kind="decision", title="Use Decimal for money!", now=NOW)
    name = file_name(entry)
    assert name.startswith("decision-use-decimal-for-money-") and name.endswith(f"{entry.id[-6:].lower()}.md")
    result = store.put(entry)
    store.pin(result.entry.id)
    assert [p.name for p in store.memory_dir.glob("*.md")] == [name]  # a change rewrites the same file


def test_a_status_change_is_a_small_diff(store: MemoryStore) -> None:
    entry = store.put(new_entry(kind="fact", title="The worker is written in Go", body="See worker/.")).entry
    path = store.path_of(entry.id)
    assert path is not None
    before = path.read_text().splitlines()
    store.pin(entry.id)
    after = path.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [("pinned = false", "pinned = true")]


def test_broken_front_matter_is_reported_with_path_and_line_and_the_rest_load(store: MemoryStore) -> None:
    good = store.put(new_entry(kind="fact", title="Good entry")).entry
    broken = store.memory_dir / "fact-broken-aaaaaa.md"
    broken.write_text('+++\nid = "01ABC"\nkind = "fact"\ntitle = "unterminated\n+++\n\nbody\n')
    unclosed = store.memory_dir / "fact-unclosed-bbbbbb.md"
    unclosed.write_text('+++\nid = "01ABD"\nkind = "fact"\n')
    wrong_type = store.memory_dir / "fact-wrong-cccccc.md"
    wrong_type.write_text(
        '+++\nid = "01ABE"\nkind = "fact"\ntitle = "x"\npinned = "yes"\ncreated_at = 2026-11-29T12:00:00Z\n+++\n'
    )
    no_fence = store.memory_dir / "fact-nofence-dddddd.md"
    no_fence.write_text("just text\n")
    loaded = load_directory(store.memory_dir)
    assert list(loaded.entries) == [good.id]
    errors = {Path(e.path).name: e for e in loaded.errors}
    assert errors["fact-broken-aaaaaa.md"].line == 4 and "invalid TOML" in errors["fact-broken-aaaaaa.md"].message
    assert errors["fact-unclosed-bbbbbb.md"].line == 4 and "never closed" in str(errors["fact-unclosed-bbbbbb.md"])
    assert errors["fact-wrong-cccccc.md"].line == 5 and "pinned" in str(errors["fact-wrong-cccccc.md"])
    assert errors["fact-nofence-dddddd.md"].line == 1
    assert all(isinstance(e, FrontMatterError) for e in loaded.errors)
    assert str(errors["fact-broken-aaaaaa.md"]).startswith(f"{store.memory_dir / 'fact-broken-aaaaaa.md'}:4:")


def test_a_hand_written_entry_is_read(store: MemoryStore) -> None:
    store.memory_dir.mkdir(parents=True)
    (store.memory_dir / "convention-branch-names.md").write_text(
        "+++\n"
        'id = "01M8KQ36TH6DY0W1GYQM9MGHWE"\n'
        'kind = "convention"\n'
        'title = "Branch names start with the issue number"\n'
        "created_at = 2026-11-01T09:00:00Z\n"
        "+++\n\n"
        "Like `123-refund-endpoint`.\n"
    )
    (entry,) = store.entries()
    assert entry.kind == "convention" and entry.status == "active" and entry.body == "Like `123-refund-endpoint`."
    assert store.search("branch names")[0].id == entry.id
