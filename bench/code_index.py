"""Code index benchmark: ctxops's code map against universal-ctags, ripgrep, `ast` and jedi, side by side.

Corpus: the running interpreter's standard library (no site-packages) copied into a temporary git
repository, plus the bundled example order service. Prints every figure and its ratio to the peer.

    uv sync --group bench
    uv run python bench/code_index.py            # the whole standard library
    uv run python bench/code_index.py --quick    # a tenth of it, for a smoke run
    uv run python bench/code_index.py --full-only --rounds 3   # the cold build vs ctags only, alternated
    uv run python bench/code_index.py --full-only --baseline ../before   # ... and another checkout's build
    uv run python bench/code_index.py --full-only --rounds 3 --floor     # ... and the parse + query floor

Measures: cold full index wall time and peak RSS vs `ctags -R --languages=Python`; one changed file
reflected in the index in-process (as the watcher does it) and end to end (edit, then a fresh process
looks up a symbol the edit added, no watcher) as % of the full build; a fresh process's definition
lookup vs `rg`; definition recall/precision against `ast`; call edges against jedi on a sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "packages" / "code" / "code-scan" / "tests"))

from ast_oracle import compare, python_definitions  # noqa: E402

# Children run as an installed tool would: with byte-code caching (some shells export PYTHONDONTWRITEBYTECODE,
# which makes every fresh process compile its imports from source).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


LAST_CPU: dict[str, float] = {}  # CPU seconds (user + system, children included) of the last run, by argv[0]


def peak_rss_of(argv: list[str]) -> tuple[float, int, str]:
    """Run in a fresh `python` so RUSAGE_CHILDREN is this command's alone (its CPU seconds go to LAST_CPU:
    on a loaded machine they compare two tools better than wall time does)."""
    code = (
        "import json, resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "e = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'rc': p.returncode, 'elapsed': e, 'rss': u.ru_maxrss, 'cpu': u.ru_utime + u.ru_stime,"
        " 'out': p.stdout, 'err': p.stderr[-2000:]}))\n"
    )
    res = json.loads(
        subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, env=CHILD_ENV
        ).stdout
    )
    if res["rc"] != 0:
        raise RuntimeError(f"{argv[0]} failed: {res['err']}")
    LAST_CPU[argv[0]] = res["cpu"]
    return res["elapsed"], res["rss"], res["out"]


def make_corpus(dest: Path, quick: bool) -> int:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and "__pycache__" not in p.parts)
    if quick:
        files = files[::10]
    for src in files:
        target = dest / src.relative_to(stdlib)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dest, check=True)
    (dest / ".gitignore").write_text(".meta/\n")
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True, env=GIT_ENV)
    subprocess.run(["git", "commit", "-q", "-m", "stdlib"], cwd=dest, check=True, env=GIT_ENV)
    return len(files)


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def baseline_build(root: Path, checkout: Path) -> tuple[float, float, dict[str, float]]:
    """The full build by another checkout's code (its code line and contracts first on PYTHONPATH)."""
    srcs = ["contracts/src", "packages/code/code-scan/src", "packages/code/code-graph/src"]
    saved = CHILD_ENV.get("PYTHONPATH")
    CHILD_ENV["PYTHONPATH"] = os.pathsep.join(str(checkout / src) for src in srcs)
    try:
        seconds, _rss, stdout = peak_rss_of(
            [sys.executable, "-m", "ctxops_code_graph", "index", str(root), "--full", "--json"]
        )
    finally:
        if saved is None:
            del CHILD_ENV["PYTHONPATH"]
        else:
            CHILD_ENV["PYTHONPATH"] = saved
    return seconds, LAST_CPU[sys.executable], json.loads(stdout).get("phases_cpu", {})


def bench_full(
    root: Path, out: dict[str, object], rounds: int = 1, baseline: Path | None = None, floor: bool = False
) -> float:
    """ctags and the full build, alternated `rounds` times (a shared machine's load drifts): medians. With
    `baseline` (another checkout, say main before a change), its full build runs in each round too; with
    `floor`, so does tree-sitter's parse and tags query alone (bench/parse_floor.py)."""
    tags = root.parent / "tags"
    ctags_runs: list[tuple[float, float, int]] = []
    ours_runs: list[tuple[float, float, int]] = []
    base_runs: list[tuple[float, float, dict[str, float]]] = []
    floor_runs: list[tuple[float, float]] = []
    loads = [os.getloadavg()[0]]
    for i in range(rounds):
        ctags_s, ctags_rss, _ = peak_rss_of(["ctags", "-R", "--languages=Python", "-f", str(tags), str(root)])
        ctags_runs.append((ctags_s, LAST_CPU["ctags"], ctags_rss))
        # With a baseline, the two builds swap places every round (ABBA): a load that drifts during the run
        # weighs on both alike.
        if baseline is not None and i % 2 == 0:
            base_runs.append(baseline_build(root, baseline))
            print(f"  round {i + 1}: baseline {fmt_s(base_runs[-1][0])} / {base_runs[-1][1]:.1f} CPU-s")
        ours_s, ours_rss, stdout = peak_rss_of(
            [sys.executable, "-m", "ctxops_code_graph", "index", str(root), "--full", "--json"]
        )
        ours_runs.append((ours_s, LAST_CPU[sys.executable], ours_rss))
        if baseline is not None and i % 2 == 1:
            base_runs.append(baseline_build(root, baseline))
            print(f"  round {i + 1}: baseline {fmt_s(base_runs[-1][0])} / {base_runs[-1][1]:.1f} CPU-s")
        if floor:
            floor_s, _rss, _out = peak_rss_of([sys.executable, str(HERE / "parse_floor.py"), str(root)])
            floor_runs.append((floor_s, LAST_CPU[sys.executable]))
        loads.append(os.getloadavg()[0])
        if rounds > 1:
            print(
                f"  round {i + 1}: ctxops {fmt_s(ours_s)} / {ours_runs[-1][1]:.1f} CPU-s,"
                f" ctags {fmt_s(ctags_s)} / {LAST_CPU['ctags']:.2f} CPU-s, load {loads[-1]:.1f}"
            )
    ctags_s = statistics.median(r[0] for r in ctags_runs)
    ours_s = statistics.median(r[0] for r in ours_runs)
    LAST_CPU["ctags"] = statistics.median(r[1] for r in ctags_runs)
    LAST_CPU[sys.executable] = statistics.median(r[1] for r in ours_runs)
    if floor_runs:
        floor_s = statistics.median(r[0] for r in floor_runs)
        floor_cpu = statistics.median(r[1] for r in floor_runs)
        print(
            f"  floor (tree-sitter parse + tags query only, {os.cpu_count()} processes): {fmt_s(floor_s)} /"
            f" {floor_cpu:.1f} CPU-s = {floor_s / ctags_s:.1f}x ctags wall, {floor_cpu / LAST_CPU['ctags']:.1f}x CPU;"
            f" the build is {ours_s / floor_s:.1f}x the floor"
        )
        out.update(floor_s=floor_s, floor_cpu_s=floor_cpu, floor_ratio=floor_s / ctags_s)
    ctags_rss, ours_rss = max(r[2] for r in ctags_runs), max(r[2] for r in ours_runs)
    print(f"  load average (1 min) during the runs: {min(loads):.1f}-{max(loads):.1f}")
    out.update(load_average=[min(loads), max(loads)], rounds=rounds)
    if base_runs:
        base_s = statistics.median(r[0] for r in base_runs)
        base_cpu = statistics.median(r[1] for r in base_runs)
        print(
            f"  baseline {baseline}: {fmt_s(base_s)} / {base_cpu:.1f} CPU-s"
            f" ({base_s / statistics.median(r[0] for r in ctags_runs):.1f}x ctags wall,"
            f" {base_cpu / LAST_CPU['ctags']:.1f}x CPU); phases CPU s: "
            + ", ".join(f"{k} {v:.2f}" for k, v in base_runs[-1][2].items())
        )
        out.update(baseline_s=base_s, baseline_cpu_s=base_cpu, baseline_phases_cpu=base_runs[-1][2])
    ctags_count = sum(1 for line in tags.read_text(errors="replace").splitlines() if not line.startswith("!_"))
    report = json.loads(stdout)
    status = report["status"]
    print(f"full cold index: ctxops {fmt_s(ours_s)} vs ctags {fmt_s(ctags_s)} -> ratio {ours_s / ctags_s:.1f}x")
    ours_cpu, ctags_cpu = LAST_CPU[sys.executable], LAST_CPU["ctags"]
    print(
        f"  CPU seconds (user + system, workers included): ctxops {ours_cpu:.1f} vs ctags {ctags_cpu:.2f}"
        f" -> ratio {ours_cpu / ctags_cpu:.1f}x (less sensitive to the machine's load than wall time)"
    )
    print(
        f"  ctxops: {status['files']} files, {status['symbols']} symbols, {status['references']} references,"
        f" {status['edges']} edges {status['edges_by_confidence']}, skipped {status['skipped_by_reason']}"
    )
    print(f"  ctags: {ctags_count} tags (definitions only)")
    phases, cpu = report.get("phases", {}), report.get("phases_cpu", {})
    order = ["discover", "scan", "load", "resolve", "rank", "snapshot", "publish"]  # the JSON's keys are sorted
    phases = {k: phases[k] for k in sorted(phases, key=lambda k: order.index(k) if k in order else len(order))}
    if phases:
        print(
            "  phases (wall / CPU s, scan workers included): "
            + ", ".join(f"{name} {phases[name]:.2f}/{cpu.get(name, 0.0):.2f}" for name in phases)
        )
    print(f"  peak RSS: ctxops {ours_rss / 1024:.0f} MiB (largest process) vs ctags {ctags_rss / 1024:.0f} MiB")
    out.update(
        full_s=ours_s,
        ctags_s=ctags_s,
        full_ratio=ours_s / ctags_s,
        cpu_s=ours_cpu,
        ctags_cpu_s=ctags_cpu,
        cpu_ratio=ours_cpu / ctags_cpu,
        rss_mib=ours_rss / 1024,
        ctags_rss_mib=ctags_rss / 1024,
        symbols=status["symbols"],
        references=status["references"],
        edges=status["edges"],
        files=status["files"],
        index_bytes=status["index_bytes"],
        phases=report.get("phases", {}),
        phases_cpu=report.get("phases_cpu", {}),
    )
    return ours_s


def bench_incremental(root: Path, full_s: float, out: dict[str, object]) -> None:
    from ctxops_code_graph import CodeIndex
    from ctxops_code_graph.builder import IndexWriter

    writer = IndexWriter(root)
    writer.update([])  # as a running watcher: modules imported, stores opened once before
    preferred = ["json/decoder.py", "collections/__init__.py", "email/message.py", "asyncio/tasks.py", "argparse.py"]
    targets = [t for t in preferred if (root / t).exists()]
    if len(targets) < 3:  # a --quick corpus: any mid-sized modules will do
        candidates = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if ".meta" not in p.parts)
        targets += [t for t in candidates if 5_000 < (root / t).stat().st_size < 60_000][: 5 - len(targets)]
    timings = []
    for i, rel in enumerate(targets):
        path = root / rel
        if not path.exists():
            continue
        original = path.read_text()
        path.write_text(original + f"\n\ndef bench_added_{i}(x):\n    return len(x)\n")
        started = time.perf_counter()
        report = writer.update([rel], bound=None)
        timings.append(time.perf_counter() - started)
        found = CodeIndex(root, auto_update=False).definitions(f"bench_added_{i}")
        assert found and report.changed == [rel], (report, found)
        path.write_text(original)
        writer.update([rel], bound=None)
    inc = statistics.median(timings)
    print(
        f"incremental, in-process (watcher path): median {fmt_s(inc)} over {len(timings)} edits"
        f" = {inc / full_s * 100:.2f}% of the full build (target < 2%)"
    )

    e2e = []
    for i, rel in enumerate(targets[:3]):
        path = root / rel
        original = path.read_text()
        path.write_text(original + f"\n\ndef bench_e2e_{i}(x):\n    return x\n")
        code = (
            "import sys\nfrom ctxops_code_graph import CodeIndex\n"
            f"hits = CodeIndex({str(root)!r}).definitions('bench_e2e_{i}')\n"
            "print(f'{hits[0].path}:{hits[0].line}  {hits[0].signature}') if hits else sys.exit(1)\n"
        )
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=CHILD_ENV)
        e2e.append(time.perf_counter() - started)
        path.write_text(original)
        writer.update([rel], bound=None)
    end_to_end = statistics.median(e2e)
    print(
        f"edit + fresh-process lookup of the new symbol (no watcher): median {fmt_s(end_to_end)}"
        f" = {end_to_end / full_s * 100:.1f}% of the full build (target < 10%)"
    )
    out.update(
        incremental_s=inc, incremental_pct=inc / full_s * 100, e2e_s=end_to_end, e2e_pct=end_to_end / full_s * 100
    )


def bench_lookup(root: Path, out: dict[str, object]) -> None:
    rg = shutil.which("rg") or str(Path(sys.executable).parent / "rg")
    code = f"from ctxops_code_graph import CodeIndex\nCodeIndex({str(root)!r}).definitions('JSONDecoder')\n"
    ours, theirs, bare = [], [], []
    for _ in range(7):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=CHILD_ENV)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(
            [rg, "--no-config", "-n", r"(class|def) JSONDecoder\b", str(root)], check=False, capture_output=True
        )
        theirs.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, capture_output=True, env=CHILD_ENV)
        bare.append(time.perf_counter() - t)
    o, r, b = statistics.median(ours), statistics.median(theirs), statistics.median(bare)
    print(
        f"fresh-process definition lookup (incl. staleness check): {fmt_s(o)} vs rg {fmt_s(r)}"
        f" -> {o / r:.1f}x (bare `python -c pass`: {fmt_s(b)})"
    )
    out.update(lookup_s=o, rg_s=r, python_startup_s=b)


def bench_oracle(root: Path, out: dict[str, object]) -> None:
    from ctxops_code_graph import CodeIndex

    ix = CodeIndex(root, auto_update=False)
    indexed = {f.path for f in ix.files()}
    tp = expected_n = found_n = 0
    no_oracle = skipped = 0
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".meta/"):
            continue
        expected = python_definitions(path.read_bytes())
        if expected is None:
            no_oracle += 1
            continue
        if rel not in indexed:
            skipped += 1
            continue
        found = Counter((s.name, s.line) for s in ix.symbols_in_file(rel))
        a, b, c = compare(expected, found)
        tp, expected_n, found_n = tp + a, expected_n + b, found_n + c
    recall, precision = tp / expected_n, tp / found_n
    print(
        f"definitions vs ast: recall {recall * 100:.2f}%, precision {precision * 100:.2f}%"
        f" over {expected_n} definitions"
        f" ({skipped} files skipped by rule, {no_oracle} files ast cannot parse)"
    )
    out.update(def_recall=recall, def_precision=precision, def_total=expected_n)


def bench_jedi(root: Path, out: dict[str, object], sample: int, seed: int = 7) -> None:
    try:
        import jedi
    except ImportError:
        print("call edges vs jedi: skipped (uv sync --group bench installs jedi)")
        return
    import sqlite3

    from ctxops_code_graph.layout import IndexLayout

    con = sqlite3.connect(IndexLayout(root.resolve()).current_lookup())  # type: ignore[arg-type]
    sites = con.execute(
        "SELECT r.rid, f.path, r.line, r.col, r.symbol_name FROM refs r JOIN files f ON f.fk = r.fk"
        " WHERE r.role = 'call' AND f.path NOT LIKE 'test/%' AND f.path NOT LIKE 'lib2to3/tests/%'"
    ).fetchall()
    random.Random(seed).shuffle(sites)
    defs_by_site: dict[int, set[tuple[str, int, str]]] = {}
    for rid, dst_path, dst_line, conf in con.execute(
        "SELECT e.rid, f.path, s.line, e.confidence FROM edges e JOIN symbols s ON s.sk = e.dst_sk"
        " JOIN files f ON f.fk = s.fk WHERE e.kind = 'call'"
    ):
        defs_by_site.setdefault(rid, set()).add((dst_path, dst_line, conf))
    project = jedi.Project(str(root), added_sys_path=[str(root)], smart_sys_path=False)
    judged = matched_sites = 0
    ours_total = Counter()
    ours_right = Counter()
    started = time.perf_counter()
    for rid, path, line, col, _name in sites:
        if judged >= sample or time.perf_counter() - started > 300:
            break
        try:
            script = jedi.Script(path=str(root / path), project=project)
            names = script.goto(line, col, follow_imports=True)
        except Exception:
            continue
        truth = set()
        for n in names:
            if n.module_path is None or n.line is None or n.type not in ("function", "class"):
                continue  # a local or attribute holding a callable: not a definition the map indexes
            try:
                rel = Path(n.module_path).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                continue  # a builtin or a file outside the corpus
            truth.add((rel, n.line))
        if not truth:
            continue
        judged += 1
        ours = defs_by_site.get(rid, set())
        if any((p, ln) in truth for p, ln, _ in ours):
            matched_sites += 1
        for p, ln, conf in ours:
            ours_total[conf] += 1
            ours_total["all"] += 1
            if (p, ln) in truth:
                ours_right[conf] += 1
                ours_right["all"] += 1
    if not judged:
        print("call edges vs jedi: jedi resolved no sampled call site")
        return
    recall = matched_sites / judged
    precision = ours_right["all"] / max(ours_total["all"], 1)
    per = ", ".join(
        f"{c} {ours_right[c] / ours_total[c] * 100:.0f}% of {ours_total[c]}"
        for c in ("exact", "import-resolved", "name-only")
        if ours_total[c]
    )
    print(
        f"call edges vs jedi on {judged} call sites jedi resolves to a function or class of the corpus:"
        f" recall {recall * 100:.1f}%, precision {precision * 100:.1f}% ({per})"
    )
    out.update(jedi_sites=judged, callers_recall=recall, callers_precision=precision)


def bench_example(out: dict[str, object]) -> None:
    with tempfile.TemporaryDirectory(prefix="ctxops-bench-ex-") as tmp:
        root = Path(tmp) / "order-service"
        subprocess.run(
            [sys.executable, str(HERE.parent / "examples" / "make_history.py"), str(root)],
            check=True,
            capture_output=True,
        )
        tags = Path(tmp) / "tags"
        ctags_s, _, _ = peak_rss_of(["ctags", "-R", "--languages=Python,Go,TypeScript", "-f", str(tags), str(root)])
        ours_s, _, stdout = peak_rss_of([sys.executable, "-m", "ctxops_code_graph", "index", str(root), "--json"])
        status = json.loads(stdout)["status"]
        print(
            f"examples/order-service: ctxops {fmt_s(ours_s)} vs ctags {fmt_s(ctags_s)} ({status['files']} files,"
            f" {status['symbols']} symbols, {status['edges']} edges; process start-up dominates at this size)"
        )
        out.update(example_s=ours_s, example_ctags_s=ctags_s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a tenth of the standard library")
    parser.add_argument("--jedi-sample", type=int, default=150, help="call sites to check against jedi")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--rounds", type=int, default=1, help="alternate ctags and the full build N times (medians)")
    parser.add_argument("--full-only", action="store_true", help="only the cold full build against ctags")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout (say main before a change): its full build in each round too"
    )
    parser.add_argument(
        "--floor", action="store_true", help="also time tree-sitter's parse + tags query alone in each round"
    )
    args = parser.parse_args()
    if shutil.which("ctags") is None:
        print("universal-ctags is required (apt-get install universal-ctags)", file=sys.stderr)
        return 2
    out: dict[str, object] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="ctxops-bench-") as tmp:
        root = Path(tmp) / "stdlib"
        root.mkdir()
        n = make_corpus(root, args.quick)
        lines = sum(p.read_bytes().count(b"\n") for p in root.rglob("*.py"))
        print(f"corpus: {n} files, {lines} lines of the Python {out['python']} standard library, {out['cpus']} CPUs")
        out.update(corpus_files=n, corpus_lines=lines)
        full_s = bench_full(root, out, max(1, args.rounds), args.baseline, args.floor)
        if not args.full_only:
            bench_incremental(root, full_s, out)
            bench_lookup(root, out)
            bench_oracle(root, out)
            bench_jedi(root, out, args.jedi_sample)
    if not args.full_only:
        bench_example(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
