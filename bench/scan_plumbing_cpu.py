"""The full build's scan plumbing, part by part, in this process: CPU-s of each (no cProfile).

    uv run python bench/scan_plumbing_cpu.py DIR [--chunks 16] [--repeat 3]

DIR's files are discovered and scanned (`scan_file`: read, hash, extract) once, dealt into `--chunks` chunks as
`scan_chunks` deals them; then, best of `--repeat`, what a worker does with a chunk's outcomes
(`bulk_load.ChunkWriter`: the JSON lines, the snapshot shard's rows and SQLite file) and what the parent's
loader does with it (`bulk_load._load_chunk` into a fresh DuckDB store), each timed apart. The extraction's own
CPU is printed beside for scale.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _best(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        cpu0 = time.process_time()
        fn()
        best = min(best, time.process_time() - cpu0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--chunks", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import gc

    from ctxops_code_graph import bulk_load, duck_store
    from ctxops_code_scan.config import ScanConfig
    from ctxops_code_scan.discover import discover
    from ctxops_code_scan.scan import CHUNK_SOURCE_BYTES, deal_chunks, scan_file

    root = args.root.resolve()
    config = ScanConfig.load(root)
    disc = discover(root, config)
    todo = [(c.path, c.lang) for c in disc.files]
    sizes = {rel: (root / rel).stat().st_size for rel, _ in todo}
    todo.sort(key=lambda item: -sizes[item[0]])
    chunks = deal_chunks(todo, sizes, args.chunks, CHUNK_SOURCE_BYTES)
    gc.disable()
    cpu0 = time.process_time()
    outcomes = [[scan_file(root, rel, lang, config) for rel, lang in chunk] for chunk in chunks]
    scan_cpu = time.process_time() - cpu0
    keys = bulk_load.SnapshotKeys.for_paths([c.path for c in disc.files], config.max_file_bytes)
    work = Path(tempfile.mkdtemp(prefix="scan-plumbing-"))
    try:
        writer = bulk_load.ChunkWriter(str(work), keys)
        written: list[Any] = []

        def write() -> None:
            written.clear()
            for path in work.glob("*"):
                path.unlink()
            written.extend(writer(chunk) for chunk in outcomes)

        write_cpu = _best(write, args.repeat)
        no_shard = bulk_load.ChunkWriter(str(work), None)

        def write_json_only() -> None:
            for chunk in outcomes:
                made = no_shard(chunk)
                for name in (made.symbols_json, made.refs_json):
                    if name:
                        Path(name).unlink()

        json_cpu = _best(write_json_only, args.repeat)

        def load() -> None:
            store = work / "store.duckdb"
            store.unlink(missing_ok=True)
            con = duck_store.connect(store, memory_limit="256MB")
            duck_store.create_tables(con)
            con.execute("SET threads TO 1")
            con.execute(bulk_load.SCAN_IMPORTS_DDL)
            loader_dir = work / "copies"
            loader_dir.mkdir(exist_ok=True)
            con.execute("CREATE OR REPLACE TEMP TABLE lang_fam (lang VARCHAR, fam VARCHAR)")
            con.execute(
                "INSERT INTO lang_fam VALUES " + ", ".join("(?, ?)" for _ in bulk_load.BY_NAME), bulk_load._lang_fams()
            )
            first_rid, first_import = 1, 0
            for made in written:
                copy = made
                # `_load_chunk` deletes the JSON files it reads: it loads copies of them
                renamed = {}
                for attr in ("symbols_json", "refs_json"):
                    name = getattr(made, attr)
                    if name:
                        target = loader_dir / Path(name).name
                        shutil.copyfile(name, target)
                        renamed[attr] = str(target)
                copy = bulk_load.Chunk(**{**made.__dict__, **renamed})
                bulk_load._load_chunk(con, copy, first_rid, first_import)
                first_rid += made.n_refs
                first_import += len(made.imports)
            con.close()

        load_cpu = _best(load, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n_files = sum(len(c) for c in outcomes)
    print(
        f"files {n_files} in {len(chunks)} chunks: scan_file (read, hash, extract) {scan_cpu:.2f} CPU-s;"
        f" ChunkWriter {write_cpu:.2f} (JSON lines only {json_cpu:.2f}; shard rows and SQLite"
        f" {write_cpu - json_cpu:.2f}); DuckDB load of the chunks {load_cpu:.2f} (incl. file copies)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
