"""CPU time of ``redact()`` over a tree's docs and Python sources in 4 kB pieces (best of 3).

    uv run python bench/redaction_text_cost.py ROOT      # main's code first on PYTHONPATH for the peer

The same pieces for both sides when ROOT is the same tree (an exported main, not the tree measured).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ctxops_contracts.redaction import redact


def main() -> int:
    root = Path(sys.argv[1])
    paths = sorted(root.glob("docs/*.md")) + sorted((root / "contracts" / "src").rglob("*.py"))
    pieces: list[str] = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        pieces += [text[i : i + 4000] for i in range(0, len(text), 4000)]
    redact("warm up")
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for piece in pieces:
            redact(piece)
        best = min(best, time.process_time() - started)
    size = sum(map(len, pieces)) / 1e6
    each = 1e3 * best / len(pieces)
    print(f"{len(pieces)} pieces, {size:.1f} MB: CPU {best:.2f} s (best of 3), {each:.2f} ms a piece")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
