"""`cq callers` and `cq refs` on Go code against go/types (bench/go_truth, built with Debian's golang-go).

    apt-get install golang-go golang-github-spf13-cobra-dev      # Go and outside code in /usr/share/gocode
    uv run python bench/cq_resolution_go.py [--sample 60] [--gopath /usr/share/gocode]

The GOPATH's `src/` is copied into a temporary git repository and indexed; bench/go_truth type-checks
every package of it (GOPATH mode, `GO111MODULE=off`) and lists each use of a function or method with
its definition. Functions and methods of the corpus with at least one resolved call site are sampled
and scored as bench/cq_resolution.py scores Python against jedi (same figures). go/types checks no
`_test.go` files, so answers in test files are not scored.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cq_resolution import GIT_ENV, score_uses

HERE = Path(__file__).resolve().parent


def go_packages(src: Path) -> list[str]:
    """Import paths of the directories holding non-test Go files (testdata and vendor left out)."""
    out = set()
    for f in src.rglob("*.go"):
        rel = f.relative_to(src)
        if f.name.endswith("_test.go") or {"testdata", "vendor", "internal"} & set(rel.parts):
            continue
        out.add(rel.parent.as_posix())
    return sorted(out)


def truth(gopath: Path, work: Path) -> list[dict[str, object]]:
    exe = work / "go_truth"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": str(gopath), "GOFLAGS": "", "GOCACHE": str(work / "gocache")}
    subprocess.run(["go", "build", "-o", str(exe), "."], cwd=HERE / "go_truth", check=True, env=env)
    src = gopath / "src"
    run = subprocess.run([str(exe), str(src), *go_packages(src)], check=True, env=env, capture_output=True, text=True)
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gopath", type=Path, default=Path("/usr/share/gocode"))
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        help="sample only functions defined under these folders of src/ (e.g. github.com/gorilla/mux);"
        " everything is indexed and type-checked still",
    )
    parser.add_argument("--each", action="store_true", help="also score each --only folder on its own (same build)")
    args = parser.parse_args()
    if shutil.which("go") is None or not (args.gopath / "src").is_dir():
        print("needs Go and a GOPATH: apt-get install golang-go golang-github-spf13-cobra-dev", file=sys.stderr)
        return 2
    from ctxops_code_graph import CodeIndex

    with tempfile.TemporaryDirectory(prefix="cq-resolution-go-") as tmp:
        work = Path(tmp)
        uses = truth(args.gopath, work)
        root = work / "src"
        shutil.copytree(args.gopath / "src", root, symlinks=False, ignore_dangling_symlinks=True)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
        (root / ".gitignore").write_text(".meta/\n")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=GIT_ENV)
        subprocess.run(
            ["git", "commit", "-q", "-m", "gocode"], cwd=root, check=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}
        )
        index = CodeIndex(root, auto_update=False)
        report = index.build(full=True)
        checked = {str(u["file"]) for u in uses}
        print(
            f"{args.gopath}/src: {report.scanned} files indexed in {report.elapsed_s:.1f} s;"
            f" go/types resolved {len(uses)} uses of functions in {len(checked)} files"
        )
        cpu = ", ".join(f"{phase} {sec:.2f}" for phase, sec in report.cpu.items())
        print(f"build CPU seconds per phase (workers included): {cpu}; total {sum(report.cpu.values()):.2f}")
        for u in uses:
            u["def_lines"] = [u["def_line"]]
        if args.only:
            prefixes = tuple(p.rstrip("/") + "/" for p in args.only)
            uses = [u for u in uses if str(u["def_file"] or "").startswith(prefixes)]
            print(f"sampled from {', '.join(args.only)}: {len(uses)} uses")
        total = score_uses(root, index, uses, "go", sample=args.sample, seed=args.seed, checked=checked)
        for prefix in args.only if args.each else []:
            mine = [u for u in uses if str(u["def_file"]).startswith(prefix.rstrip("/") + "/")]
            tally = score_uses(root, index, mine, "go", sample=args.sample, seed=args.seed, checked=checked)
            print(tally.line(f"go {prefix}"))
        index.close()
        print(total.line("go (go/types)"))
        for what, items in (("wrong", total.wrong), ("missed", total.missed), ("wrong ref", total.wrong_refs)):
            for item in items[: args.show]:
                print(f"    {what}: {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
