"""`cq export --scip` beside scip-python's index of the same code: symbols and occurrences matched, missed,
extra.

    uv run python bench/cq_scip_compare.py SDIST.tar.gz [--src SUBDIR]

The sdist (e.g. `pip download itsdangerous==2.2.0 --no-deps --no-binary :all:`) is unpacked into a git
repository; `cq export --scip` and `npx @sourcegraph/scip-python index` (an empty `--environment`, so it
indexes the project alone) write their indexes; both are parsed with SCIP's schema
(packages/code/code-graph/tests/scip.desc). Symbol strings differ between tools, so they are matched by
position: a cq symbol is the scip-python symbol defined at the same (path, line, columns). Occurrences
counted are definitions and references to symbols defined in the project (scip-python's `local N`
symbols, parameters and locals, which cq does not index, are left out, as are references to outside
packages and the built-ins).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DESC = HERE.parent / "packages/code/code-graph/tests/scip.desc"


def index_class() -> Any:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    files = descriptor_pb2.FileDescriptorSet.FromString(DESC.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("scip.Index"))


def timed(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, check=False, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, done.stdout


def occurrences(path: Path, prefix: str) -> tuple[dict[tuple[Any, ...], str], dict[tuple[Any, ...], str]]:
    """(definitions, references): position -> symbol, for documents under ``prefix``."""
    index = index_class()()
    index.ParseFromString(path.read_bytes())
    defs: dict[tuple[Any, ...], str] = {}
    refs: dict[tuple[Any, ...], str] = {}
    for doc in index.documents:
        if not doc.relative_path.startswith(prefix):
            continue
        for occ in doc.occurrences:
            if occ.symbol.startswith("local ") or len(occ.range) != 3:
                continue
            key = (doc.relative_path, occ.range[0], occ.range[1])  # the start: ranges of `a as a` differ
            (defs if occ.symbol_roles & 1 else refs)[key] = occ.symbol
    return defs, refs


def _unindexed(symbol: str) -> bool:
    return symbol.endswith(")") or symbol.endswith("__init__:")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("sdist", type=Path)
    ap.add_argument("--src", default="src", help="the package's source directory in the sdist (default src)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cq-scip-") as tmp:
        with tarfile.open(args.sdist) as tar:
            tar.extractall(tmp, filter="data")
        root = next(p for p in Path(tmp).iterdir() if p.is_dir())
        env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b"}
        env["GIT_COMMITTER_EMAIL"] = "b@e"
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "sdist"]):
            subprocess.run(cmd, cwd=root, check=True, env=env)
        cq_out = Path(tmp) / "cq.scip"
        cq_wall, cq_cpu, out = timed(
            [sys.executable, "-m", "ctxops_code_query", "--root", str(root), "--json", "export", "--scip", str(cq_out)],
            root,
        )
        cq_report = json.loads(out)
        (Path(tmp) / "env.json").write_text("[]")
        py_out = Path(tmp) / "scip-python.scip"
        py_wall, py_cpu, _ = timed(
            [
                "npx",
                "-y",
                "@sourcegraph/scip-python",
                "index",
                "--project-name",
                root.name,
                "--output",
                str(py_out),
                "--environment",
                str(Path(tmp) / "env.json"),
                "--quiet",
            ],
            root,
        )
        prefix = args.src.rstrip("/") + "/" if args.src else ""
        cq_defs, cq_refs = occurrences(cq_out, prefix)
        py_defs, py_refs = occurrences(py_out, prefix)
        project = set(py_defs.values())  # scip-python's symbols defined in the project
        all_py_refs = {k: v for k, v in py_refs.items() if v in project}
        # What cq indexes: not parameters (`f().(x)`) nor modules (`mod/__init__:`), which scip-python names.
        py_defs = {k: v for k, v in py_defs.items() if not _unindexed(v)}
        py_refs = {k: v for k, v in all_py_refs.items() if not _unindexed(v)}
        print(
            f"scip-python: {len(all_py_refs)} references to project symbols, {len(all_py_refs) - len(py_refs)} of them"
            " to parameters or modules (cq indexes neither): compared below without them"
        )
        # cq symbol -> scip-python symbol, by the position of their definitions.
        same = {cq_defs[k]: py_defs[k] for k in cq_defs.keys() & py_defs.keys()}
        d_match = len(cq_defs.keys() & py_defs.keys())
        r_pos = cq_refs.keys() & py_refs.keys()
        r_match = sum(1 for k in r_pos if same.get(cq_refs[k]) == py_refs[k])
        r_wrong = len(r_pos) - r_match
        print(f"corpus: {args.sdist.name} ({prefix or 'all'}), {cq_report['documents']} documents")
        print(f"{'tool':<22}{'wall':>9}{'CPU':>9}{'defs':>8}{'refs':>8}")
        print(f"{'cq export --scip':<22}{cq_wall:>8.2f}s{cq_cpu:>8.2f}s{len(cq_defs):>8}{len(cq_refs):>8}")
        print(f"{'scip-python 0.6.6':<22}{py_wall:>8.2f}s{py_cpu:>8.2f}s{len(py_defs):>8}{len(py_refs):>8}")
        print(
            f"definitions: {d_match} matched, {len(py_defs) - d_match} missed (scip-python's, not cq's),"
            f" {len(cq_defs) - d_match} extra (cq's only)"
        )
        print(
            f"references to project symbols: {r_match} matched (same position, same symbol), {r_wrong} at the same"
            f" position with another symbol, {len(py_refs) - len(r_pos)} missed, {len(cq_refs) - len(r_pos)} extra"
        )
        if py_refs:
            print(f"reference recall {r_match / len(py_refs):.3f}, precision {r_match / max(1, len(cq_refs)):.3f}")
        kinds = {"#": "types", ").": "functions and methods", ".": "variables and attributes"}
        by_kind: dict[str, int] = {}
        for k in py_refs.keys() - cq_refs.keys():
            kind = next((v for suffix, v in kinds.items() if py_refs[k].endswith(suffix)), "other")
            by_kind[kind] = by_kind.get(kind, 0) + 1
        print("missed by kind of symbol:", dict(sorted(by_kind.items(), key=lambda kv: -kv[1])))
        missed = sorted(k for k in py_refs.keys() - cq_refs.keys())[:8]
        extra = sorted(k for k in cq_refs.keys() - py_refs.keys())[:5]
        print("sample missed:", [f"{k[0]}:{k[1] + 1}:{k[2]} {py_refs[k].split(' ')[-1]}" for k in missed])
        wrong = sorted(k for k in r_pos if same.get(cq_refs[k]) != py_refs[k])[:5]
        print("sample other symbol:", [f"{k[0]}:{k[1] + 1}:{k[2]} {cq_refs[k]} | {py_refs[k]}" for k in wrong])
        print("sample extra:", [f"{k[0]}:{k[1] + 1}:{k[2]} {cq_refs[k].split(' ')[-1]}" for k in extra])


if __name__ == "__main__":
    main()
