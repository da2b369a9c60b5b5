"""Exact counts from the token table's ranks (``bpe_table``): a pulled memory shown by the hook after a `git
pull` without the git hooks loads no tokenizer, and every count equals the tokenizer's (issue 23, item 4)."""

from __future__ import annotations

import random
import sqlite3
import sys
import time
import unicodedata
from pathlib import Path

import pytest
from ctxops_memory_inject import bpe_table, build, precount, tokens
from ctxops_memory_inject.build import build_injection
from ctxops_memory_inject.tokens import LineCounter, TokenTable, count
from ctxops_memory_store import MemoryStore, new_entry, snapshot, trust
from ctxops_memory_store.entry_file import file_name, render_entry


@pytest.fixture(scope="module")
def ranks() -> dict[bytes, int]:
    found = bpe_table.vocabulary(tokens._tokenizer())
    assert found is not None and len(found) == 100_256
    return found


def _lookup(ranks: dict[bytes, int]):  # type: ignore[no-untyped-def]
    return lambda keys: {k: ranks[k] for k in keys if k in ranks}


def _no_tokenizer(text: str) -> int:
    raise AssertionError(f"the tokenizer was loaded for {text!r}")


def test_other_characters_are_never_letters_digits_or_space() -> None:
    assert all(unicodedata.category(c)[0] in "PS" for c in bpe_table.OTHER)


def test_counts_equal_the_tokenizers_on_source_lines(ranks: dict[bytes, int]) -> None:
    """Every line of some standard-library modules (code, prose, indentation, quotes), with its newline."""
    lookup = _lookup(ranks)
    counted = 0
    for name in ("argparse", "textwrap", "difflib", "email/_header_value_parser", "json/decoder", "string"):
        source = Path(sys.base_prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", f"{name}.py")
        if not source.exists():
            continue
        for line in source.read_text(encoding="utf-8").splitlines():
            found = bpe_table.count(line + "\n", lookup)
            if found is not None:
                counted += 1
                assert found == count(line + "\n"), line
    assert counted > 5_000


def test_counts_equal_the_tokenizers_on_random_text(ranks: dict[bytes, int]) -> None:
    """Random text of the characters cl100k's split treats apart: letters, digits, contractions, spaces, tabs,
    line ends, punctuation runs, the punctuation ``OTHER`` holds."""
    lookup = _lookup(ranks)
    rng = random.Random(23)
    alphabet = "aZq09 '\t\n\r.,!?-_/\\sdmtlvreLLVE(){}<>:;\"`~@#$%^&*+=|  \n" + "".join(sorted(bpe_table.OTHER))
    for _ in range(3_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert bpe_table.count(text, lookup) == count(text), repr(text)


def test_what_it_cannot_count_is_left_to_the_tokenizer(ranks: dict[bytes, int]) -> None:
    lookup = _lookup(ranks)
    assert bpe_table.count("café au lait\n", lookup) is None  # a letter outside ASCII
    assert bpe_table.count("x" * (bpe_table.MAX_PIECE + 1), lookup) is None
    assert bpe_table.count("a " * bpe_table.MAX_LINE, lookup) is None
    assert bpe_table.count("no ranks here\n", lambda keys: None) is None


def test_a_long_hostile_line_is_counted_in_linear_time(ranks: dict[bytes, int]) -> None:
    """Pieces of the longest length counted, none of whose pairs merge far: 16x the line within 64x the CPU."""
    lookup = _lookup(ranks)
    piece = "".join(chr(33 + (i * 7) % 15) for i in range(bpe_table.MAX_PIECE - 1))  # one punctuation run

    def cpu(repeats: int) -> float:
        text = (" " + piece) * repeats
        best = float("inf")
        for _ in range(3):
            began = time.process_time()
            assert bpe_table.count(text, lookup) == count(text)
            best = min(best, time.process_time() - began)
        return best

    small = cpu(6)
    assert cpu(96) <= 64 * max(small, 1e-3)


def _fill(repo: Path) -> None:
    store = MemoryStore(repo)
    store.put(new_entry(kind="decision", title="Money is decimal.Decimal", pinned=True))
    store.put(new_entry(kind="convention", title="Logs are structured JSON", body="one object per line"))
    store.put(new_entry(kind="lesson", title="Run migrations before API tests", body="no such table otherwise"))
    store.sync_snapshot()  # what the detached sync does: the hook reads the snapshot, precount counts it


@pytest.fixture
def small_is_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "SMALL", 2)
    monkeypatch.setattr(snapshot, "SMALL", 2)
    monkeypatch.setattr(snapshot, "RACY_NS", 0)


def test_a_pulled_memory_is_shown_without_the_tokenizer_when_no_git_hook_ran(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files git brought, not folded by a git hook: the agent's hook folds them, shows the new memory (its
    line holds the block's " — ") and counts it from the ranks; the count is the tokenizer's."""
    _fill(repo)
    precount.precount(str(repo))  # the detached job: the store's lines and the ranks
    build_injection(repo, "", budget=800)  # the frame's lines, counted once
    theirs = new_entry(
        kind="lesson", title="Vendored wheels live in third_party", body="Never pip install them; run “make vendor”."
    )
    (repo / ".meta" / "memory" / file_name(theirs)).write_text(render_entry(theirs), encoding="utf-8")
    trust.trust_repository(repo)
    monkeypatch.setattr(precount, "request_precount", lambda root, index_dir: True)  # no detached process here
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "count", _no_tokenizer)
        answer = build_injection(repo, "vendored wheels third_party", budget=800)
    assert theirs.id in answer.memory_ids and " — " in answer.text and "“make vendor”" in answer.text
    assert answer.tokens == count(answer.text) <= 800


def test_a_table_without_ranks_loads_the_tokenizer_once_asked(
    repo: Path, small_is_tiny: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older table (no ranks yet): the tokenizer counts, and the ranks are not asked for again."""
    _fill(repo)
    index_dir = str(repo / ".meta" / "index")
    precount.precount(str(repo))
    con = sqlite3.connect(Path(index_dir) / tokens.TABLE_NAME)
    with con:
        con.execute("DELETE FROM meta WHERE key = 'ranks'")
    con.close()
    asked: list[int] = []
    real = TokenTable.ranks

    def watched(self: TokenTable, wanted: set[bytes]) -> dict[bytes, int] | None:
        asked.append(len(wanted))
        return real(self, wanted)

    monkeypatch.setattr(TokenTable, "ranks", watched)
    counter = LineCounter(index_dir)
    assert counter.line("first new line") == count("first new line\n")
    assert counter.line("second new line") == count("second new line\n")
    assert len(asked) == 1  # (and the tokenizer counted both)
    precount.precount(str(repo))  # the next detached run writes them again
    counter, expected = LineCounter(index_dir), count("third new line\n")
    monkeypatch.setattr(tokens, "count", _no_tokenizer)
    assert counter.line("third new line") == expected  # from the ranks: the tokenizer would fail
