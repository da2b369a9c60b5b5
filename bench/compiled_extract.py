"""What compiling the extraction as it stands buys: code-scan's hot modules built with mypyc, run beside the
pure-Python ones on the same tree, output compared file by file (issue 24 item 5: "if compiled code is what it
takes, say so with the profile").

    uv run --with setuptools python bench/compiled_extract.py DIR [--rounds 3]

Copies `packages/code/code-scan/src` to a temporary directory, compiles `MODULES` there with mypyc (gcc and the
Python headers needed; `records.py` stays Python: mypyc cannot compile msgspec's Struct classes), then runs
`bench/extract_digest.py` (every file through `scan_bytes` in one process, the extraction's CPU seconds) with the
compiled copy first on `PYTHONPATH` and without it, alternating, and compares the two digests: a compiled build
that changed one row would say so. Prints both sides' CPU seconds per round and the median ratio.

Not a shipping path: ctxops installs as pure Python everywhere; this measures how far compiling the same code
goes against the parse floor (`bench/parse_floor.py`), which is what decides whether the sweep itself has to be
written natively.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "packages" / "code" / "code-scan" / "src"
DIGEST = REPO / "bench" / "extract_digest.py"
# The modules a build's scan workers spend their Python time in (`build_cpu_profile.py`).
MODULES = (
    "extract",
    "receiver_types",
    "type_exprs",
    "py_scopes",
    "brace_scopes",
    "scan",
    "lang_rules",
    "operators",
    "depth",
    "imports",
)


def compile_copy(work: Path) -> Path:
    """code-scan's sources under `work`, `MODULES` compiled in place; returns the directory to put on the path."""
    dest = work / "src"
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    targets = [f"ctxops_code_scan/{m}.py" for m in MODULES]
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *targets], cwd=dest, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise SystemExit(f"mypyc failed (exit {done.returncode}):\n{tail}")
    built = sorted(p.name for p in (dest / "ctxops_code_scan").glob("*.so"))
    if len(built) != len(MODULES):
        raise SystemExit(f"mypyc built {len(built)} of {len(MODULES)} modules: {built}")
    return dest


def digest_run(root: Path, out: Path, pythonpath: str | None) -> float:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run(
        [sys.executable, str(DIGEST), str(root), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1])["extract_cpu_s"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    try:
        import setuptools  # noqa: F401  (mypyc builds through it)
    except ImportError:
        raise SystemExit("needs setuptools: uv run --with setuptools python bench/compiled_extract.py DIR") from None
    with tempfile.TemporaryDirectory(prefix="cq-mypyc-") as tmp:
        work = Path(tmp)
        compiled = compile_copy(work)
        pure_cpu: list[float] = []
        compiled_cpu: list[float] = []
        for n in range(args.rounds):
            compiled_cpu.append(digest_run(args.root, work / "compiled.json", str(compiled)))
            pure_cpu.append(digest_run(args.root, work / "pure.json", None))
            print(f"round {n + 1}: pure {pure_cpu[-1]:.2f} CPU-s, compiled {compiled_cpu[-1]:.2f} CPU-s", flush=True)
        cmp = subprocess.run(
            [sys.executable, str(DIGEST), "--compare", str(work / "pure.json"), str(work / "compiled.json")],
            capture_output=True,
            text=True,
            check=False,
        )
        same = json.loads(cmp.stdout.strip().splitlines()[-1])
    p, c = statistics.median(pure_cpu), statistics.median(compiled_cpu)
    print(
        json.dumps(
            {
                "files": same["files"],
                "differ": same["differ"],
                "pure_cpu_s": p,
                "compiled_cpu_s": c,
                "compiled_over_pure": round(c / p, 3),
            }
        )
    )
    return 0 if same["differ"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
