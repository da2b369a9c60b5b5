"""A full build's CPU by phase, unprofiled: `IndexWriter(DIR).build(full=True, workers=N)` in this process.

    uv run python bench/build_phases_cpu.py DIR [--workers 1]

The line also gives the parent's own CPU (`parent_cpu_s`: with two workers, all but the extraction: the
chunks' load, resolution, rank, the snapshot, the compacted store).

With one worker the scan runs in this process, so the phases' CPU (`BuildReport.cpu`) adds up to the build's;
`build_cpu_profile.py` says where inside a phase, with cProfile's overhead on Python calls.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    from ctxops_code_graph.builder import IndexWriter

    cpu0 = time.process_time()
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    report = IndexWriter(args.root.resolve()).build(full=True, workers=args.workers)
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    parent = self1.ru_utime - self0.ru_utime + self1.ru_stime - self0.ru_stime
    print(
        json.dumps(
            {
                "cpu_s": round(time.process_time() - cpu0, 2),
                "parent_cpu_s": round(parent, 2),
                "phases_cpu_s": report.cpu,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
