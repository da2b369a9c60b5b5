"""An index built once, reused by another clone: a cold build beside `cq index --import` + update.

    uv run python bench/code_index_portable.py [--quick] [--corpus DIR]

The corpus (default: this Python's standard library, copied into a git repository; `--corpus` copies
another tree of sources, e.g. an unpacked sdist) is built cold with `cq`'s builder (`python -m
ctxops_code_graph index --full`), exported with `cq index --export`, cloned with git, the clone's working
tree changed (files edited, added, renamed, removed: a teammate a few commits on), and the archive
imported there with `cq index --import` (verify, install, incremental update by content hash). Each run
is a fresh process: wall time and CPU seconds side by side, and the ratio (target: ready <= 10% of the
cold build).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from code_index import GIT_ENV, LAST_CPU, fmt_s, make_corpus, peak_rss_of  # noqa: E402

CQ = [sys.executable, "-m", "ctxops_code_query"]


def copy_corpus(src: Path, dest: Path) -> int:
    files = sorted(p for p in src.rglob("*") if p.is_file() and not p.is_symlink() and ".git" not in p.parts)
    for p in files:
        target = dest / p.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dest, check=True)
    (dest / ".gitignore").write_text(".meta/\n")
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True, env=GIT_ENV)
    subprocess.run(["git", "commit", "-q", "-m", "corpus"], cwd=dest, check=True, env=GIT_ENV)
    return len(files)


def diverge(clone: Path) -> dict[str, int]:
    """A teammate's tree a few commits on: 10 files edited, 3 added, 2 renamed, 2 removed (one commit)."""
    py = sorted(p for p in clone.rglob("*.py") if ".git" not in p.parts and ".meta" not in p.parts)
    step = max(1, len(py) // 20)
    picked = py[::step][:17]
    for i, p in enumerate(picked[:10]):
        p.write_text(p.read_text(errors="replace") + f"\n\ndef bench_added_{i}(x):\n    return x\n")
    for i in range(3):
        (clone / f"bench_new_{i}.py").write_text(f"def bench_new_{i}():\n    return {i}\n")
    for p in picked[10:12]:
        subprocess.run(["git", "mv", str(p), str(p.with_name("renamed_" + p.name))], cwd=clone, check=True)
    for p in picked[12:14]:
        subprocess.run(["git", "rm", "-q", str(p)], cwd=clone, check=True)
    subprocess.run(["git", "add", "-A"], cwd=clone, check=True, env=GIT_ENV)
    subprocess.run(["git", "commit", "-q", "-m", "teammate"], cwd=clone, check=True, env=GIT_ENV)
    return {"edited": 10, "added": 3, "renamed": 2, "removed": 2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="every tenth stdlib file")
    ap.add_argument("--corpus", type=Path, help="a source tree to copy instead of the stdlib")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cq-portable-") as tmp:
        origin = Path(tmp) / "origin"
        origin.mkdir()
        n = copy_corpus(args.corpus, origin) if args.corpus else make_corpus(origin, args.quick)
        name = str(args.corpus) if args.corpus else ("stdlib (every tenth file)" if args.quick else "stdlib")
        print(f"corpus: {name}, {n} files")

        cold_s, cold_rss, out = peak_rss_of(
            [sys.executable, "-m", "ctxops_code_graph", "index", str(origin), "--full", "--json"]
        )
        cold_cpu = LAST_CPU[sys.executable]
        archive = Path(tmp) / "index.tgz"
        export_s, _rss, out = peak_rss_of([*CQ, "--root", str(origin), "--json", "index", "--export", str(archive)])
        export_cpu = LAST_CPU[sys.executable]
        exported = json.loads(out)

        # A clone at the archive's commit (CI built main, a teammate clones main): a stat refresh by hash.
        same = Path(tmp) / "same"
        subprocess.run(["git", "clone", "-q", str(origin), str(same)], check=True)
        same_s, _rss, out = peak_rss_of([*CQ, "--root", str(same), "--json", "index", "--import", str(archive)])
        same_cpu = LAST_CPU[sys.executable]
        same_report = json.loads(out)

        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
        changes = diverge(clone)
        import_s, import_rss, out = peak_rss_of(
            [*CQ, "--root", str(clone), "--json", "index", "--import", str(archive)]
        )
        import_cpu = LAST_CPU[sys.executable]
        imported = json.loads(out)

        # The peer in the same run: the clone's own cold build (what a fresh clone pays without the archive).
        shutil.rmtree(clone / ".meta")
        clone_cold_s, clone_cold_rss, _out = peak_rss_of(
            [sys.executable, "-m", "ctxops_code_graph", "index", str(clone), "--full", "--json"]
        )
        clone_cold_cpu = LAST_CPU[sys.executable]

        print(
            f"archive: {exported['bytes'] / 1e6:.1f} MB for {exported['files']} files, commit {exported['commit'][:12]}"
        )
        print(f"clone diverged by one commit: {changes}")
        print(f"{'run (a fresh process each)':<34}{'wall':>10}{'CPU':>10}{'peak RSS':>12}")
        print(f"{'cold build (origin)':<34}{fmt_s(cold_s):>10}{cold_cpu:>9.2f}s{cold_rss / 1024:>9.0f} MiB")
        print(
            f"{'cold build (clone)':<34}{fmt_s(clone_cold_s):>10}{clone_cold_cpu:>9.2f}s"
            f"{clone_cold_rss / 1024:>9.0f} MiB"
        )
        print(f"{'export (update + archive)':<34}{fmt_s(export_s):>10}{export_cpu:>9.2f}s")
        print(
            f"{'import + update (same commit)':<34}{fmt_s(same_s):>10}{same_cpu:>9.2f}s"
            f"   (install {same_report['install_s']:.2f} s, update {same_report['update_s']:.2f} s,"
            f" {same_report['rescanned']} rescanned)"
        )
        print(
            f"{'import + update (clone)':<34}{fmt_s(import_s):>10}{import_cpu:>9.2f}s{import_rss / 1024:>9.0f} MiB"
            f"   (install {imported['install_s']:.2f} s, update {imported['update_s']:.2f} s,"
            f" {imported['rescanned']} rescanned, {imported['deleted']} removed)"
        )
        print(f"commit matches: {imported['commit_matches']}; notes: {imported['warnings']}")
        print(
            f"ready in {import_s / clone_cold_s:.1%} of the clone's cold build's wall time,"
            f" {import_cpu / clone_cold_cpu:.1%} of its CPU (target <= 10%); at the same commit"
            f" {same_s / clone_cold_s:.1%} wall, {same_cpu / clone_cold_cpu:.1%} CPU"
        )


if __name__ == "__main__":
    main()
