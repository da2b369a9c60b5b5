"""Every file's extraction, hashed: proves a hot-path change leaves the scan's rows unchanged, file by file.

    uv run python bench/extract_digest.py DIR --out A.json            # this checkout's code-scan
    PYTHONPATH=<main's src dirs> uv run python bench/extract_digest.py DIR --out B.json   # the peer's
    uv run python bench/extract_digest.py --compare A.json B.json     # exit 0 when every file is the same

Runs `scan_bytes` (what a build's workers run) on every file `discover` finds, in this process, and keeps
a SHA-256 of the symbols, references, imports, type rows and status it returns. Finer than comparing two
built indexes (`cq_index_compare.py`): the type rows and receiver types are compared before the graph
reads them, and a difference names its file. Also prints the extraction's CPU seconds (one process).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path


def digests(root: Path) -> tuple[dict[str, str], float]:
    import msgspec
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.scan import scan_bytes

    enc = msgspec.json.Encoder()
    out: dict[str, str] = {}
    cpu = 0.0
    for f in discover(root).files:
        data = (root / f.path).read_bytes()
        t0 = time.process_time()
        res = scan_bytes(f.path, f.lang, data, size=len(data), mtime_ns=0)
        cpu += time.process_time() - t0
        blob = enc.encode([res.file, res.symbols, res.references, res.imports, res.types])
        out[f.path] = hashlib.sha256(blob).hexdigest()
    return out, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path, nargs="?")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", type=Path, nargs=2)
    args = ap.parse_args()
    if args.compare:
        a, b = (json.loads(p.read_text()) for p in args.compare)
        differ = sorted(p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
        print(json.dumps({"files": len(a.keys() | b.keys()), "differ": len(differ), "first": differ[:20]}))
        return 1 if differ else 0
    if args.root is None or args.out is None:
        ap.error("DIR and --out, or --compare A B")
    found, cpu = digests(args.root.resolve())
    args.out.write_text(json.dumps(found, sort_keys=True))
    print(json.dumps({"files": len(found), "extract_cpu_s": round(cpu, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
