"""First-party vendored code is indexed; what is left out is listed by `cq status` with the key that includes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ctxops_code_query.graph_backend import build_index


def _cq(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CQ_ROOT"}
    return subprocess.run(
        [sys.executable, "-m", "ctxops_code_query", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )


def test_own_vendor_code_is_found_and_status_names_what_is_left_out(tmp_path: Path) -> None:
    root = tmp_path / "trpc"
    (root / ".git").mkdir(parents=True)
    files = {
        "src/vendor/unpromise/unpromise.ts": "export class Unpromise {\n  then() {}\n}\n",
        "src/index.ts": (
            'import { Unpromise } from "./vendor/unpromise/unpromise";\nexport const u = new Unpromise();\n'
        ),
        "third_party/lib/package.json": "{}\n",
        "third_party/lib/index.js": "export function libfn() {}\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    build_index(root)
    found = _cq(root, "def", "Unpromise")
    assert found.returncode == 0 and found.stdout.startswith("src/vendor/unpromise/unpromise.ts:1"), found.stdout
    status = _cq(root, "status")
    assert status.returncode == 0, status.stderr
    assert (
        'third_party/ left out, has its own lib/package.json (index it: code.include_vendored = ["third_party"]'
        in status.stdout
    )
    assert _cq(root, "def", "libfn").returncode == 1
