"""Tokens to answer: navigation tasks over the CPython standard library, three strategies side by side.

  (a) grep, then read the whole matched files (at most 5, as an agent would);
  (b) vector retrieval as teams deploy it: the top-5 function-level chunks from a LanceDB index of the
      corpus embedded with all-MiniLM-L6-v2 (run by bench/vector_baseline.py in a separate virtual
      environment: this model is a benchmark-only dependency);
  (c) cq, following its own "... and N more" hint once when a task needs the complete list.

Every task has an expected answer derived independently with Python's `ast` (bench/cq_corpus.py);
each strategy's context is counted with the same tokenizer (cl100k via bpe-openai) and checked.

    uv run python bench/cq_tokens.py --vector-python /tmp/cqbench-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cq_corpus import Def, Oracle, build_oracle, make_corpus
from ctxops_code_query.ripgrep import find_rg
from ctxops_code_query.tokens import exact_counter

GREP_READ_FILES = 5
TOP_K = 5
CATEGORIES = ("def", "callers", "module", "impact", "behaviour")
PER_CATEGORY = {"def": 12, "callers": 10, "module": 8, "impact": 8, "behaviour": 12}


@dataclass
class Task:
    id: str
    category: str
    question: str
    subject: str  # NAME, module path, or behaviour text
    expect_sites: list[tuple[str, int, int]] = field(default_factory=list)  # (path, first line, last line)
    expect_files: list[str] = field(default_factory=list)
    expect_names: list[str] = field(default_factory=list)
    grep: str = ""  # the pattern strategy (a) uses


@dataclass
class Outcome:
    tokens: int
    correct: bool
    detail: str = ""


# ---------------------------------------------------------------------------------------------------
# Tasks from the oracle


def _is_test(path: str) -> bool:
    return "/test" in f"/{path}" or path.startswith("test")


def make_tasks(oracle: Oracle, seed: int = 7) -> list[Task]:
    rng = random.Random(seed)
    by_name: dict[str, list[Def]] = defaultdict(list)
    for d in oracle.defs:
        by_name[d.name].append(d)
    calls_by_name: dict[str, list] = defaultdict(list)
    for c in oracle.calls:
        calls_by_name[c.name].append(c)

    def unique_defs(kinds: set[str]) -> list[Def]:
        out = []
        for name, ds in by_name.items():
            d = ds[0]
            if (
                len(ds) == 1
                and len(name) >= 8
                and not name.startswith("_")
                and d.kind in kinds
                and not _is_test(d.path)
            ):
                out.append(d)
        return sorted(out, key=lambda d: (d.path, d.line))

    tasks: list[Task] = []
    defs = unique_defs({"function", "class", "method"})
    for d in rng.sample(defs, PER_CATEGORY["def"]):
        tasks.append(
            Task(
                id=f"def-{d.name}",
                category="def",
                question=f"Where is {d.name} defined?",
                subject=d.name,
                expect_sites=[(d.path, d.first_line, d.line)],
                grep=rf"^\s*(async\s+)?(def|class)\s+{d.name}\b",
            )
        )
    # Callers: functions defined once, called 2-6 times (by name), by at least 2 different functions.
    callable_ = [
        d
        for d in unique_defs({"function", "method"})
        if 2 <= len(calls_by_name[d.name]) <= 6 and len({c.enclosing for c in calls_by_name[d.name]}) >= 2
    ]
    picked = rng.sample(callable_, PER_CATEGORY["callers"] + PER_CATEGORY["impact"])
    for d in picked[: PER_CATEGORY["callers"]]:
        sites = sorted({(c.path, c.line, c.line) for c in calls_by_name[d.name]})
        tasks.append(
            Task(
                id=f"callers-{d.name}",
                category="callers",
                question=f"Who calls {d.name}?",
                subject=d.name,
                expect_sites=sites,
                grep=rf"\b{d.name}\(",
            )
        )
    for d in picked[PER_CATEGORY["callers"] :]:
        files = sorted({c.path for c in calls_by_name[d.name]})
        tasks.append(
            Task(
                id=f"impact-{d.name}",
                category="impact",
                question=f"What breaks if {d.name} changes?",
                subject=d.name,
                expect_files=files,
                grep=rf"\b{d.name}\(",
            )
        )
    # Modules: non-test files with 6-30 top-level definitions.
    tops: dict[str, list[str]] = defaultdict(list)
    for d in oracle.defs:
        if d.top_level:
            tops[d.path].append(d.name)
    modules = sorted(p for p, names in tops.items() if 6 <= len(set(names)) <= 30 and not _is_test(p))
    for path in rng.sample(modules, PER_CATEGORY["module"]):
        tasks.append(
            Task(
                id=f"module-{path}",
                category="module",
                question=f"What does {path} contain?",
                subject=path,
                expect_files=[path],
                expect_names=sorted(set(tops[path])),
            )
        )
    # Behaviour: unique functions with a distinctive first doc line; the question is that line.
    doc_count = Counter(d.doc for d in oracle.defs if d.doc)
    described = [
        d
        for d in unique_defs({"function", "method"})
        if d.doc and doc_count[d.doc] == 1 and 6 <= len(d.doc.split()) <= 16 and d.name.lower() not in d.doc.lower()
    ]
    word_df = Counter(w for d in oracle.defs if d.doc for w in set(re.findall(r"[a-z]{4,}", d.doc.lower())))
    for d in rng.sample(described, PER_CATEGORY["behaviour"]):
        text = d.doc.rstrip(".")
        rare = sorted(set(re.findall(r"[a-z]{4,}", text.lower())), key=lambda w: (word_df[w], w))[:1]
        tasks.append(
            Task(
                id=f"behaviour-{d.name}",
                category="behaviour",
                question=f"Find the code that does this: {text}",
                subject=text,
                expect_sites=[(d.path, d.first_line, d.line)],
                grep=rare[0] if rare else text.split()[0],
            )
        )
    return tasks


# ---------------------------------------------------------------------------------------------------
# Strategy (a): grep, then read the matched files


def strategy_grep(root: Path, task: Task, count) -> Outcome:
    if task.category == "module":
        listing = subprocess.run(
            [str(find_rg()), "--no-config", "--files", "-g", f"*{Path(task.subject).name}"],
            cwd=root, capture_output=True, text=True, check=False,
        ).stdout  # fmt: skip
        read = [task.subject]
        out = listing
    else:
        argv = [str(find_rg()), "--no-config", "-n", "--sort=path", "-i" if task.category == "behaviour" else "-s"]
        done = subprocess.run([*argv, "-e", task.grep, "."], cwd=root, capture_output=True, text=True, check=False)
        out = done.stdout
        files = list(
            dict.fromkeys(line.split(":", 1)[0].removeprefix("./") for line in out.splitlines() if ":" in line)
        )
        read = files[:GREP_READ_FILES]
    tokens = count(out) + sum(count((root / p).read_text(errors="replace")) for p in read)
    return Outcome(tokens, _covered_by_files(task, set(read)), f"read {len(read)} files")


def _covered_by_files(task: Task, files: set[str]) -> bool:
    if task.expect_sites:
        need = {p for p, _, _ in task.expect_sites}
        return len(need & files) / len(need) >= 0.8 if task.category == "callers" else bool(need & files)
    return set(task.expect_files) <= files


# ---------------------------------------------------------------------------------------------------
# Strategy (c): cq


def run_cq(root: Path, args: list[str]) -> str:
    cq = shutil.which("cq") or str(Path(sys.executable).parent / "cq")
    done = subprocess.run(
        [cq, *args, "--root", str(root), "--deadline", "30"], capture_output=True, text=True, check=False
    )
    return done.stdout


def cq_args(task: Task) -> list[str]:
    return {
        "def": ["def", task.subject],
        "callers": ["callers", task.subject],
        "impact": ["impact", task.subject],
        "module": ["brief", task.subject],
        "behaviour": ["search", task.subject],
    }[task.category]


_MORE = re.compile(r"^\.\.\. and (\d+) more", re.M)


def strategy_cq(root: Path, task: Task, count) -> Outcome:
    args = cq_args(task)
    out = run_cq(root, args)
    tokens = count(out)
    complete_needed = task.category in ("callers", "impact", "module")
    m = _MORE.search(out)
    if complete_needed and m and not _check_text(task, out):
        # Follow the hint once: ask for everything, with a budget to match. The cap must also cover the
        # hits already shown, which a budget cut leaves above 10 (`brief` has no 10-hit cap).
        more = int(m.group(1)) + 10
        budget = max(60 * (more + 10), 2 * count(out))
        out2 = run_cq(root, [*args, "--max", str(max(more + 10, 500)), "--budget", str(budget)])
        tokens += count(out2)
        out = out2
    return Outcome(tokens, _check_text(task, out), " ".join(args))


def _check_text(task: Task, text: str) -> bool:
    if task.category == "module":
        found = sum(1 for n in task.expect_names if re.search(rf"\b{re.escape(n)}\b", text))
        return found / len(task.expect_names) >= 0.9
    if task.category == "impact":
        return all(f in text for f in task.expect_files)
    hits = set(re.findall(r"^\s*([\w./-]+\.py):(\d+)", text, re.M))
    grouped = _grouped_sites(text)
    sites = {(p, int(n)) for p, n in hits} | grouped
    ok = [any(p == sp and lo <= n <= hi for sp, n in sites) for p, lo, hi in task.expect_sites]
    if task.category == "callers":
        return sum(ok) / len(ok) >= 0.8
    return any(ok)


def _grouped_sites(text: str) -> set[tuple[str, int]]:
    out: set[tuple[str, int]] = set()
    current = None
    for line in text.splitlines():
        if re.match(r"^[\w./-]+\.py$", line):
            current = line
        elif current and (m := re.match(r"^\s+(\d+)\s", line)):
            out.add((current, int(m.group(1))))
    return out


# ---------------------------------------------------------------------------------------------------
# Strategy (b): vector retrieval (computed in the bench venv by vector_baseline.py)


def strategy_vector(task: Task, chunks: list[dict], count) -> Outcome:
    text = "\n\n".join(f"# {c['path']}:{c['line']}-{c['end_line']}\n{c['text']}" for c in chunks)
    tokens = count(text)
    if task.category == "module":
        names = {c["name"] for c in chunks if c["path"] == task.subject}
        found = sum(1 for n in task.expect_names if n in names)
        ok = found / len(task.expect_names) >= 0.9
    elif task.category == "impact":
        ok = set(task.expect_files) <= {c["path"] for c in chunks}
    else:
        hit = [
            any(c["path"] == p and c["line"] <= hi and lo <= c["end_line"] for c in chunks)
            for p, lo, hi in task.expect_sites
        ]
        ok = sum(hit) / len(hit) >= 0.8 if task.category == "callers" else any(hit)
    return Outcome(tokens, ok, f"{len(chunks)} chunks")


def run_vector_baseline(python: str, root: Path, tasks: list[Task], work: Path) -> dict[str, list[dict]]:
    queries = work / "queries.json"
    queries.write_text(json.dumps([{"id": t.id, "query": t.question} for t in tasks]))
    out = work / "vector_results.json"
    script = Path(__file__).parent / "vector_baseline.py"
    subprocess.run(
        [python, str(script), "--corpus", str(root), "--db", str(work / "lancedb"), "--queries", str(queries),
         "--out", str(out), "--k", str(TOP_K)],
        check=True,
    )  # fmt: skip
    return json.loads(out.read_text())


# ---------------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/cq-bench", help="corpus, index and results live here")
    ap.add_argument("--vector-python", help="python of the bench venv with torch + sentence-transformers")
    ap.add_argument("--json", help="write per-task results here")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    root = make_corpus(work / "corpus")
    oracle = build_oracle(root)
    tasks = make_tasks(oracle)
    print(f"corpus: {len(oracle.files)} files, {sum(oracle.lines.values())} lines; {len(tasks)} tasks")
    t0 = time.perf_counter()
    index_out = subprocess.run(
        [shutil.which("cq") or "cq", "index", "--root", str(root)], capture_output=True, text=True, check=False
    )
    print(f"cq index: {time.perf_counter() - t0:.1f} s ({index_out.stdout.strip().splitlines()[-1:]})")
    counter = exact_counter("cl100k_base")
    count = counter.count
    vector: dict[str, list[dict]] = {}
    if args.vector_python:
        t0 = time.perf_counter()
        vector = run_vector_baseline(args.vector_python, root, tasks, work)
        print(f"vector baseline: {time.perf_counter() - t0:.0f} s")
    rows = []
    for task in tasks:
        row = {
            "task": asdict(task),
            "grep": asdict(strategy_grep(root, task, count)),
            "cq": asdict(strategy_cq(root, task, count)),
        }
        if vector:
            row["vector"] = asdict(strategy_vector(task, vector[task.id], count))
        rows.append(row)
    strategies = ["grep", "vector", "cq"] if vector else ["grep", "cq"]
    print()
    header = f"{'category':<10} {'n':>3} " + " ".join(f"{s + ' tok':>11} {s + ' acc':>9}" for s in strategies)
    print(header)
    for cat in (*CATEGORIES, "all"):
        sel = [r for r in rows if cat == "all" or r["task"]["category"] == cat]
        cells = []
        for s in strategies:
            toks = sum(r[s]["tokens"] for r in sel)
            acc = sum(r[s]["correct"] for r in sel) / len(sel)
            cells.append(f"{toks:>11} {acc:>9.0%}")
        print(f"{cat:<10} {len(sel):>3} " + " ".join(cells))
    total = {s: sum(r[s]["tokens"] for r in rows) for s in strategies}
    acc = {s: sum(r[s]["correct"] for r in rows) / len(rows) for s in strategies}
    med = {s: statistics.median(r[s]["tokens"] for r in rows) for s in strategies}
    print()
    print("median tokens per task: " + ", ".join(f"{s} {med[s]:.0f}" for s in strategies))
    print(f"cq / grep-and-read tokens: {total['cq'] / total['grep']:.1%} (target <= 15%)")
    if vector:
        print(f"cq / vector top-5 tokens:  {total['cq'] / total['vector']:.1%} (target <= 25%)")
    print("accuracy: " + ", ".join(f"{s} {acc[s]:.0%}" for s in strategies))
    failed = [r["task"]["id"] for r in rows if not r["cq"]["correct"]]
    if failed:
        print("cq missed: " + ", ".join(failed))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
