"""The scan's reference rows at each missed or wrong site a bench/cq_resolution_ts.py run printed.

    uv run python bench/ts_miss_rows.py PACK_SRC_DIR OUTPUT_OF_THE_BENCH > rows.tsv

One line a site: missed/wrong, the function, the site, each same-named reference row's qualifier and
receiver type (rt=None: the scan typed no receiver; a type: the graph did not resolve it), the source line.
Reads the pack's sources where `npm pack` + tar left them (the bench's own copy is temporary). Used to
classify held-out IV's misses (docs/benchmarks.md, session 22).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SITE = re.compile(r"\s+(missed|wrong): (\S+) <- (\S+):(\d+)")


def main() -> int:
    from ctxops_code_scan.scan import scan_bytes

    root, out = Path(sys.argv[1]), Path(sys.argv[2])
    refs: dict[str, list] = {}
    for line in out.read_text().splitlines():
        found = SITE.match(line)
        if not found:
            continue
        kind, fn, path, ln = found[1], found[2], found[3], int(found[4])
        if path not in refs:
            data = (root / path).read_bytes()
            refs[path] = list(scan_bytes(path, "typescript", data, size=len(data), mtime_ns=0).references)
        name = fn.rsplit(".", 1)[-1]
        rows = [r for r in refs[path] if r.line == ln and r.symbol_name == name]
        desc = "; ".join(f"q={r.qualifier} rt={getattr(r, 'receiver_type', None)}" for r in rows) or "NO REF ROW"
        src = (root / path).read_text().splitlines()[ln - 1].strip()[:90]
        print(f"{kind}\t{fn}\t{path}:{ln}\t{desc}\t{src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
