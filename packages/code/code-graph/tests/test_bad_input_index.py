"""Every kind of bad input through a whole build: nothing crashes, and status says what happened."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo


def test_bad_inputs_are_reported_not_fatal(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "bad",
        {
            "good.py": "def fine():\n    return 1\n",
            "broken.py": "def ok():\n    pass\n\ndef broken(:\n    pass\n",
            "empty.py": "",
            "latin.py": "s = 'caf\xe9'\n".encode("latin-1"),
            "binary.py": b"\x00\x01\x02\x03",
            "huge.js": "var x = '" + "z" * (10 * 1024 * 1024) + "';",
            "gen_pb2.py": "X = 1\n",
        },
    )
    (root / "loop").symlink_to(root / "loop")
    (root / "outside.py").symlink_to("/etc/hostname")
    ix = CodeIndex(root)
    report = ix.build()
    assert report.mode == "full"
    st = ix.status()
    assert st.files_by_language == {"python": 4}
    assert st.skipped_by_reason == {
        "binary": 1,
        "too-large": 1,
        "generated": 1,
        "symlink-loop": 1,
        "symlink-outside": 1,
    }
    problems = {f.path: (f.parse_status, f.error) for f in st.parse_problems}
    assert problems["broken.py"][0] == "partial" and "syntax" in (problems["broken.py"][1] or "")
    assert problems["latin.py"][0] == "partial" and "UTF-8" in (problems["latin.py"][1] or "")
    assert "empty.py" not in problems and "good.py" not in problems
    assert ix.definitions("ok") and ix.definitions("fine") and ix.definitions("s")
    text = subprocess.run(
        [sys.executable, "-m", "ctxops_code_graph", "index", str(root), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    payload = json.loads(text)
    assert {p["path"] for p in payload["parse_problems"]} == {"broken.py", "latin.py"}


def test_a_file_nested_past_the_bound_is_indexed_up_to_it_and_status_says_why(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "deep",
        {
            "deep.ts": "export function kept() {}\n" + "g((x) => {\n" * 5_000 + "});\n" * 5_000,
            "broken.py": "def ok():\n    pass\n\ndef broken(:\n    pass\n",
        },
    )
    ix = CodeIndex(root)
    ix.build()
    st = ix.status()
    assert ix.definitions("kept")
    problems = {f.path: (f.parse_status, f.error or "") for f in st.parse_problems}
    assert problems["deep.ts"][0] == "partial" and "nested deeper than" in problems["deep.ts"][1]
    line = next(t for t in st.describe() if t.startswith("parse problems"))
    assert "deep.ts [partial: nested deeper than 128 brackets]" in line
    assert "broken.py [partial: syntax errors]" in line
