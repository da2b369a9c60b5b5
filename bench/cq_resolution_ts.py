"""`cq callers` and `cq refs` on TypeScript against the TypeScript compiler API (bench/ts_truth).

    uv run python bench/cq_resolution_ts.py [--pack rxjs@7] [--sample 60]

`npm pack` fetches the package (rxjs ships its TypeScript sources in `src/`) and `npm install` the
compiler into a temporary directory; the pack's `src/` becomes a temporary git repository that is
indexed; bench/ts_truth/ts_truth.js type-checks it once and lists every use of a function or method with
its declarations. Functions and methods with at least one call site are sampled and scored as
bench/cq_resolution.py scores Python against jedi (same figures). A definition the index does not hold
as exactly one function or method (an overload set whose implementation is elsewhere, an arrow function
in a `const`) is skipped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cq_resolution import GIT_ENV, score_uses

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pack", default="rxjs@7", help="an npm package that ships TypeScript sources")
    parser.add_argument("--src", default="src", help="the sources' folder inside the pack")
    parser.add_argument("--typescript", default="typescript@5")
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("needs node and npm", file=sys.stderr)
        return 2
    from ctxops_code_graph import CodeIndex

    with tempfile.TemporaryDirectory(prefix="cq-resolution-ts-") as tmp:
        work = Path(tmp)
        tgz = (
            subprocess.run(["npm", "pack", args.pack, "--silent"], check=True, cwd=work, capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", args.typescript],
            check=True,
            cwd=work,
            capture_output=True,
        )
        with tarfile.open(work / tgz) as tar:
            tar.extractall(work / "pack", filter="data")
        root = work / "repo"
        shutil.copytree(work / "pack" / "package" / args.src, root)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
        (root / ".gitignore").write_text(".meta/\n")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=GIT_ENV)
        subprocess.run(
            ["git", "commit", "-q", "-m", "pack"], cwd=root, check=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}
        )
        run = subprocess.run(
            ["node", str(HERE / "ts_truth" / "ts_truth.js"), str(work / "node_modules" / "typescript"), str(root)],
            check=True,
            cwd=root,
            capture_output=True,
            text=True,
        )
        uses = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
        index = CodeIndex(root, auto_update=False)
        report = index.build(full=True)
        print(
            f"{tgz} {args.src}/: {report.scanned} files indexed in {report.elapsed_s:.1f} s; the compiler resolved"
            f" {len(uses)} uses of functions and methods"
        )
        total = score_uses(root, index, uses, "typescript,tsx", sample=args.sample, seed=args.seed)
        index.close()
        print(total.line("typescript (compiler API)"))
        for what, items in (("wrong", total.wrong), ("missed", total.missed), ("wrong ref", total.wrong_refs)):
            for item in items[: args.show]:
                print(f"    {what}: {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
