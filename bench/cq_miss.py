"""Misses as fast as hits, options in either order at the same speed, and edit-then-query freshness:
`cq def` as a fresh process on the CPython stdlib and on Debian's Go tree (/usr/share/gocode), side by
side in the same run.

    uv run python bench/cq_miss.py                    # both corpora
    uv run python bench/cq_miss.py --corpus stdlib    # one

Per corpus: the index is built once (`cq index`, timed: the full build); then, alternating, a hit
(`cq def NAME` for names that exist), a miss (a typo of such a name, and a made-up name: `no matches`
with suggestions, exit 1), and the hit again with the options first (`cq --root R --json def NAME`).
Figures are medians; the targets are miss <= 2x hit with no deadline expiry (exit 3), and options-first
within 1.2x of command-first. Finally: append a function to a file, then time a fresh `cq def` of it
(it must be found on that first query) as a share of the full build (target <= 5%).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cq_corpus import make_corpus

HERE = Path(__file__).resolve().parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"CQ_NO_SERVER": "1"}
CQ = [sys.executable, "-m", "ctxops_code_query"]
GO_TREE = Path("/usr/share/gocode")
NAMES = {
    "stdlib": ["urlopen", "getaddrinfo", "dedent", "OrderedDict", "make_archive", "SequenceMatcher", "quote_plus"],
    "go": ["NewReader", "Unmarshal", "ParseFlags", "ServeHTTP", "NewClient", "Marshal", "Dial"],
}
MADE_UP = ["frobnicate_widget", "zzqxUnknownThing", "NoSuchHandlerAnywhere"]


def typo(name: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(name) - 1)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]  # two letters swapped


def run(argv: list[str], cwd: Path) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=ENV, timeout=600)
    return time.perf_counter() - t0, done.returncode, done.stdout


def go_corpus(dest: Path) -> Path:
    if (dest / ".corpus-done").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(GO_TREE, dest, symlinks=True)
    git = ["git", "-C", str(dest), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], check=True)
    (dest / ".git" / "info" / "exclude").write_text(".corpus-done\n.meta/\n")
    (dest / ".corpus-done").write_text("")
    return dest


def bench(label: str, root: Path, names: list[str], rounds: int) -> dict[str, float]:
    shutil.rmtree(root / ".meta" / "index", ignore_errors=True)
    build_s, rc, _ = run([*CQ, "index", "--root", str(root)], root)
    assert rc == 0, f"cq index failed on {root}"
    files = sum(1 for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and ".meta" not in p.parts)
    rng = random.Random(7)
    for name in names:  # warm-up: the names exist
        _, rc, _ = run([*CQ, "def", name, "--root", str(root)], root)
        assert rc == 0, f"{name} is not defined in {label}"
    hits: list[float] = []
    misses: list[float] = []
    first: list[float] = []
    miss_codes: list[int] = []
    suggested = 0
    for _ in range(rounds):
        for name in names:
            t, _, _ = run([*CQ, "def", name, "--root", str(root)], root)
            hits.append(t)
            t, _, _ = run([*CQ, "--root", str(root), "--json", "def", name], root)
            first.append(t)
            for missing in (typo(name, rng), rng.choice(MADE_UP)):
                t, rc, out = run([*CQ, "def", missing, "--root", str(root)], root)
                misses.append(t)
                miss_codes.append(rc)
                suggested += "did you mean" in out or "suggest" in out.lower()
    # Edit, then the first query of a fresh process must see the new name.
    target = next(p for p in sorted(root.rglob("*.py" if label == "stdlib" else "*.go")) if ".meta" not in p.parts)
    original = target.read_text()
    try:
        if label == "stdlib":
            target.write_text(original + "\n\ndef bench_fresh_name_xyz():\n    return 1\n")
        else:
            target.write_text(original + "\n\nfunc BenchFreshNameXyz() int {\n\treturn 1\n}\n")
        edit_s, edit_rc, _ = run(
            [*CQ, "def", "bench_fresh_name_xyz" if label == "stdlib" else "BenchFreshNameXyz", "--root", str(root)],
            root,
        )
    finally:
        target.write_text(original)
    hit = statistics.median(hits)
    miss = statistics.median(misses)
    opt_first = statistics.median(first)
    expired = sum(1 for c in miss_codes if c == 3)
    print(f"{label}: {files} files, full build {build_s:.1f} s")
    print(
        f"  cq def hit p50 {hit * 1000:.0f} ms; miss p50 {miss * 1000:.0f} ms -> {miss / hit:.2f}x hit (target <= 2x)"
    )
    print(
        f"  misses: {len(miss_codes)} runs, exit 1 in {miss_codes.count(1)}, deadline expired in {expired},"
        f" suggestions in {suggested}"
    )
    print(f"  options first (cq --root R --json def X) p50 {opt_first * 1000:.0f} ms -> {opt_first / hit:.2f}x")
    seen = "found" if edit_rc == 0 else "NOT found"
    print(
        f"  edit then a fresh cq def: {edit_s * 1000:.0f} ms, exit {edit_rc} ({seen}),"
        f" {100 * edit_s / build_s:.1f}% of the full build (target <= 5%)"
    )
    return {"hit": hit, "miss": miss, "first": opt_first, "build": build_s, "edit": edit_s}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["stdlib", "go", "both"], default="both")
    ap.add_argument("--work", default="/var/tmp/cq-miss-bench")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if args.corpus in ("stdlib", "both"):
        bench("stdlib", make_corpus(work / "stdlib"), NAMES["stdlib"], args.rounds)
    if args.corpus in ("go", "both"):
        if not GO_TREE.is_dir():
            print("no /usr/share/gocode (apt-get install golang-go's sources): Go corpus skipped")
        else:
            bench("go", go_corpus(work / "gocode"), NAMES["go"], args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
