"""Misses as fast as hits, options in either order at the same speed, and edit-then-query freshness:
`cq def` as a fresh process on the CPython stdlib and on Debian's Go tree (/usr/share/gocode), side by
side in the same run.

    uv run python bench/cq_miss.py                    # both corpora
    uv run python bench/cq_miss.py --corpus stdlib    # one

Per corpus: the index is built once (`cq index`, timed: the full build); then, alternating, a hit
(`cq def NAME` for names that exist), a miss (a typo of such a name, and a made-up name: `no matches`
with suggestions, exit 1), and the hit again with the options first (`cq --root R --json def NAME`).
Figures are medians; the targets are miss <= 2x hit with no deadline expiry (exit 3), and options-first
within 1.2x of command-first. Finally, three times: append a function to a file, then time a fresh
`cq def` of it (it must be found on that first query), then undo the edit and time a fresh `cq def` of
the same name (it must be gone: exit 1), each as a share of the full build (target <= 5%), with the CPU
seconds of the `cq` process and the update it waited for (less sensitive to the machine's load).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
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


def children_cpu() -> float:
    """CPU seconds of the finished children (and the grandchildren they waited for, such as an update)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_for_quiet_index(root: Path, seconds: float = 300.0) -> None:
    """Let a detached update still running from the previous query commit before the next edit."""
    lock = root / ".meta" / "index" / "code-update.lock"
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done = subprocess.run(["flock", "-n", str(lock), "true"], check=False, capture_output=True)
        if done.returncode == 0 or not lock.exists():
            return
        time.sleep(0.2)


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
    # Edit, then the first query of a fresh process must see the new name; undo, and it must be gone.
    files_of = sorted(root.rglob("*.py" if label == "stdlib" else "*.go"))
    targets = [p for p in files_of if ".meta" not in p.parts][:: max(1, len(files_of) // 3)][:3]
    name = "bench_fresh_name_xyz" if label == "stdlib" else "BenchFreshNameXyz"
    added = (
        "\n\ndef bench_fresh_name_xyz():\n    return 1\n"
        if label == "stdlib"
        else ("\n\nfunc BenchFreshNameXyz() int {\n\treturn 1\n}\n")
    )
    edits: list[tuple[str, float, float, int]] = []  # (what, wall s, CPU s, exit code)
    for target in targets:
        original = target.read_text()
        wait_for_quiet_index(root)
        try:
            target.write_text(original + added)
            cpu0 = children_cpu()
            edit_s, edit_rc, _ = run([*CQ, "def", name, "--root", str(root)], root)
            edits.append(("add", edit_s, children_cpu() - cpu0, edit_rc))
        finally:
            target.write_text(original)
        wait_for_quiet_index(root)
        cpu0 = children_cpu()
        gone_s, gone_rc, _ = run([*CQ, "def", name, "--root", str(root)], root)
        edits.append(("delete", gone_s, children_cpu() - cpu0, gone_rc))
    wait_for_quiet_index(root)
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
    for what, expected, word in (("add", 0, "found"), ("delete", 1, "gone")):
        runs = [e for e in edits if e[0] == what]
        ok = sum(1 for e in runs if e[3] == expected)
        wall = statistics.median(e[1] for e in runs)
        cpu = statistics.median(e[2] for e in runs)
        print(
            f"  {'add a function' if what == 'add' else 'undo the edit'}, then a fresh cq def of it: {word} in {ok}"
            f" of {len(runs)} (exits {[e[3] for e in runs]}); median {wall * 1000:.0f} ms wall ="
            f" {100 * wall / build_s:.1f}% of the full build (target <= 5%), {cpu * 1000:.0f} ms CPU"
            f" (walls {[round(e[1], 2) for e in runs]})"
        )
    edit_s = statistics.median(e[1] for e in edits)
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
