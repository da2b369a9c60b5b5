"""Real processes: readers never fail while a writer updates and rebuilds; a killed build loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import ORDERS_PY, make_repo

READER = """
import json, sys, time
from ctxops_code_graph import CodeIndex
root, seconds, auto = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1"
ok = errors = 0
messages = []
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        ix = CodeIndex(root, auto_update=auto, lock_wait=0.05)
        assert ix.definitions("OrderStateMachine.transition"), "lost a definition"
        assert ix.callers("python shop/orders.py OrderStateMachine.can_transition().")
        ix.close()
        ok += 1
    except Exception as exc:
        errors += 1
        messages.append(f"{type(exc).__name__}: {exc}")
print(json.dumps({"ok": ok, "errors": errors, "messages": messages[:5]}))
"""

WRITER = """
import json, sys
from pathlib import Path
from ctxops_code_graph.builder import IndexWriter
root = Path(sys.argv[1])
modes = []
for i in range(int(sys.argv[2])):
    path = root / "shop" / f"gen{i % 3}.py"
    path.write_text(f"def generated_{i}():\\n    return {i}\\n")
    writer = IndexWriter(root, lock_timeout=30)
    report = writer.build(full=(i % 4 == 3))
    modes.append(report.mode)
print(json.dumps(modes))
"""


@pytest.mark.slow
def test_readers_and_a_writer_do_not_fail_each_other(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    CodeIndex(root).build()
    readers = [
        subprocess.Popen([sys.executable, "-c", READER, str(root), "6", auto], stdout=subprocess.PIPE, text=True)
        for auto in ("0", "1", "1")
    ]
    writer = subprocess.run(
        [sys.executable, "-c", WRITER, str(root), "8"], capture_output=True, text=True, timeout=120, check=False
    )
    assert writer.returncode == 0, writer.stderr
    modes = json.loads(writer.stdout)
    assert modes.count("full") == 2 and set(modes) <= {"full", "incremental", "noop"}
    for proc in readers:
        out, _ = proc.communicate(timeout=60)
        result = json.loads(out)
        assert result["errors"] == 0, result["messages"]
        assert result["ok"] > 5
    final = CodeIndex(root)
    assert final.definitions("generated_7") and final.stale_files() == []


@pytest.mark.slow
def test_a_killed_full_build_leaves_the_previous_index_usable(tmp_path: Path) -> None:
    files = dict(ORDERS_PY)
    body = "".join(f"def f{j}(x):\n    return g{j}(x)\n\n" for j in range(200))
    files.update({f"bulk/m{i}.py": body for i in range(150)})
    root = make_repo(tmp_path / "big", files)
    CodeIndex(root).build()
    layout = IndexLayout(root.resolve())
    before = layout.current_lookup()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxops_code_graph", "index", str(root), "--full", "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    building = layout.index_dir / "code-building.duckdb"
    deadline = time.monotonic() + 30
    while not building.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert layout.current_lookup() == before
    ix = CodeIndex(root, auto_update=False)
    assert ix.definitions("OrderStateMachine.transition") and len(ix.definitions("f3")) == 150
    report = CodeIndex(root).build()  # the lock died with the process; the next writer proceeds
    assert report.mode == "incremental" or report.mode == "noop"
    assert CodeIndex(root).build(full=True).mode == "full"
    assert not building.exists()


def test_an_early_update_is_waited_for_once_within_one_budget(tmp_path: Path) -> None:
    """`start_early` + `wait_early` (cq's fast path) and the adopting `DetachedUpdate` (the full path) share
    one wait budget, and the adopted child is the one started early, which then commits the edit."""
    from ctxops_code_graph import background
    from ctxops_code_graph.builder import IndexWriter
    from ctxops_code_graph.lock import WriterLock

    root = make_repo(tmp_path / "repo", ORDERS_PY)
    IndexWriter(root).build()
    (root / "shop" / "orders.py").write_text(ORDERS_PY["shop/orders.py"] + "\n\ndef added_early():\n    return 1\n")
    writer = WriterLock(IndexLayout(root).lock_path, timeout=5.0)
    writer.acquire()
    try:
        background.start_early(root)
        assert not background.wait_early(root, 0.2)  # the writer lock keeps it from committing
        proc, waited = background._EARLY[root.resolve()]
        assert proc is not None and waited >= 0.2
        adopter = background.DetachedUpdate(IndexLayout(root.resolve()), 50)
        adopter.start()
        assert adopter._proc is proc and adopter._waited == waited  # adopted, not a second child
        assert not adopter.wait(0.2)  # the 0.2 s were already spent: no second wait of its own
        assert adopter._waited == 0.0
    finally:
        writer.release()
    assert adopter.wait(120)
    report, error = adopter.outcome()
    assert error is None and report is not None and report.changed == ["shop/orders.py"]
    assert CodeIndex(root, auto_update=False).definitions("added_early")
    assert not background.wait_early(tmp_path, 0.0)  # nothing started early there
