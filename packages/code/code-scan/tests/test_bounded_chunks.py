"""A parallel scan's chunks hold a bounded amount of source whatever the corpus (issue 24 item 5): a worker
holds one chunk's records at once, so fixed-count chunks grew its memory with the corpus (362 MiB a worker
at 32k files)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from ctxops_code_scan import scan
from ctxops_code_scan.records import ScanResult, Skipped


def chunk_bytes(outcomes: list[ScanResult | Skipped]) -> tuple[int, int]:
    """(source bytes, files) of one chunk, computed where it was scanned (module level: picklable)."""
    return sum(o.file.size for o in outcomes if isinstance(o, ScanResult)), len(outcomes)


def collector_state(outcomes: list[ScanResult | Skipped]) -> tuple[bool, int]:
    """(the cyclic collector on?, files) where a chunk was encoded."""
    return gc.isenabled(), len(outcomes)


def _tree(root: Path, n: int, size: int) -> list[tuple[str, str]]:
    items = []
    for i in range(n):
        rel = f"pkg{i % 5}/mod_{i}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        head = f"def f{i}(x):\n    return x\n"
        (root / rel).write_text(head + "#" * (size - len(head) - 1) + "\n")
        items.append((rel, "python"))
    return items


def test_chunks_stay_under_the_source_budget_as_the_corpus_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "CHUNK_SOURCE_BYTES", 64_000)
    items = _tree(tmp_path, 300, 4_000)  # 1.2 MB: 16 fixed chunks would hold ~75 KB each
    chunks = list(scan.scan_chunks(tmp_path, items, chunk_bytes, workers=2))
    assert sum(n for _, n in chunks) == len(items)
    assert max(b for b, _ in chunks) <= 64_000 + 4_000  # the budget, plus one file at most
    assert len(chunks) >= 1_200_000 // 68_000


def test_dealt_chunks_cover_every_file_once_largest_spread() -> None:
    sizes = {f"f{i}": (i * 7919) % 5000 + 1 for i in range(997)}
    todo = sorted(((p, "python") for p in sizes), key=lambda item: -sizes[item[0]])
    chunks = scan.deal_chunks(todo, sizes, at_least=16, max_bytes=40_000)
    assert sorted(x for c in chunks for x in c) == sorted(todo)
    total = sum(sizes.values())
    assert len(chunks) >= max(16, total // 40_000)
    assert max(sum(sizes[p] for p, _ in c) for c in chunks) <= 40_000 + max(sizes.values())
    # small corpora keep the fixed minimum (the stdlib's 16 chunks); never more chunks than files
    assert len(scan.deal_chunks(todo[:100], sizes, at_least=16, max_bytes=1 << 30)) == 16
    assert len(scan.deal_chunks(todo[:5], sizes, at_least=16, max_bytes=1)) == 5


def test_a_one_process_scan_runs_chunks_with_the_collector_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-worker build (`workers=1`, or fewer files than the pool's threshold) scans as a worker does: bounded
    chunks in order, the cyclic collector off for each and back on after (session 24's profile: ~10% of a
    one-worker stdlib build was the collector's passes)."""
    monkeypatch.setattr(scan, "CHUNK_SOURCE_BYTES", 64_000)
    items = _tree(tmp_path, 60, 4_000)
    assert gc.isenabled()
    chunks = list(scan.scan_chunks(tmp_path, items, collector_state, workers=1))
    assert gc.isenabled()
    assert sum(n for _, n in chunks) == len(items)
    assert not any(on for on, _ in chunks)
    assert len(chunks) == -(-240_000 // 64_000)
