"""Whole-file additions in ``git log -p`` named by the file the working tree holds, checked losslessly:
the patch is rebuilt from the working-tree file plus the lines the summary kept, and must equal git's."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from ctxops_memory_inject.guard.hook import handle_post_tool_use
from ctxops_memory_inject.guard.known_files import fold_known_files
from ctxops_memory_inject.guard.summarize import summarize


def git(root: Path, *argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "a@example.com")
    git(root, "config", "user.name", "A")
    (root / "src").mkdir()
    (root / "src" / "same.py").write_text("".join(f"same = {i}\n" for i in range(40)))
    (root / "src" / "edited.py").write_text("".join(f"edited = {i}\n" for i in range(40)))
    (root / "src" / "grown.py").write_text("".join(f"grown = {i}\n" for i in range(40)))
    (root / "src" / "gone.py").write_text("".join(f"gone = {i}\n" for i in range(40)))
    (root / "src" / "tiny.py").write_text("x = 1\n")
    (root / "src" / "nonl.py").write_text("".join(f"nonl = {i}\n" for i in range(20)) + "last")
    git(root, "add", ".")
    git(root, "commit", "-qm", "add the sources")
    # later, uncommitted: one line edited, one file grown, one deleted
    edited = root / "src" / "edited.py"
    edited.write_text(edited.read_text().replace("edited = 7\n", "edited = seven\n"))
    (root / "src" / "grown.py").write_text((root / "src" / "grown.py").read_text() + "grown = 40\n")
    (root / "src" / "gone.py").unlink()
    (root / ".meta").mkdir()
    (root / ".meta" / "config.toml").write_text('[guard]\naccounting = "inline"\n', encoding="utf-8")
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CTXOPS_ROOT", raising=False)
    return root


def added_text(patch: str, path: str) -> str:
    """The text the patch adds for ``path`` (one whole-file hunk), as git printed it."""
    section = patch.split(f"+++ b/{path}\n", 1)[1].split("\ndiff --git", 1)[0]
    lines = section.split("\n")[1:]
    body = [line[1:] for line in lines if line.startswith("+")]
    no_newline = "\\ No newline at end of file" in lines
    return "\n".join(body) + ("" if no_newline else "\n")


def rebuilt(summary: str, root: Path, path: str) -> str | None:
    """The file's added text rebuilt from the summary: the working-tree file, the kept lines put back."""
    where = re.escape(f"{path} in the working tree")
    marker = re.search(rf"\[(\d+) added lines = the whole of {where}, ([^\]]*)\]", summary)
    if marker is None:
        return None
    lines = (root / path).read_text().split("\n")
    for number, text in re.findall(r"^\[line (\d+)\]\+(.*)$", summary.split(marker.group(0), 1)[1], re.M):
        lines[int(number) - 1] = text
    return "\n".join(lines)


def test_whole_file_additions_rebuild_exactly(history: Path) -> None:
    patch = git(history, "log", "-p", "-1")
    out = "\n".join(summarize("vcs", "git-log", patch, worktree=str(history)))
    assert len(out) < 0.8 * len(patch)  # three of six files folded
    for path in ("src/same.py", "src/edited.py", "src/nonl.py"):
        assert rebuilt(out, history, path) == added_text(patch, path), path
    assert "identical now: Read it" in out.split("src/same.py in the working tree")[1][:40]
    assert "[line 8]+edited = 7" in out  # the line the working tree no longer has
    for path in ("src/grown.py", "src/gone.py", "src/tiny.py"):
        assert rebuilt(out, history, path) is None  # kept as git printed it
    assert "+grown = 39" in out and "+gone = 39" in out and "+x = 1" in out
    assert out.startswith("6 files changed, +")  # the stat counts what git printed


def test_without_a_worktree_the_patch_is_kept(history: Path) -> None:
    patch = git(history, "log", "-p", "-1")
    out = "\n".join(summarize("vcs", "git-log", patch))
    assert "added lines = the whole of" not in out and "+same = 39" in out


def test_too_many_different_lines_keep_the_hunk(history: Path) -> None:
    same = history / "src" / "same.py"
    text = same.read_text()
    for i in range(1, 5):
        text = text.replace(f"same = {i}\n", f"s{i}\n")
    same.write_text(text)
    lines = git(history, "log", "-p", "-1").splitlines()
    folded = "\n".join(fold_known_files(lines, str(history)))
    assert "whole of src/same.py" not in folded and "+same = 4" in folded


def test_hook_folds_only_when_git_runs_in_the_root(history: Path) -> None:
    patch = git(history, "log", "-p", "-1")

    def run(command: str) -> str:
        payload = {
            "session_id": "s1",
            "cwd": str(history),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": patch, "stderr": "", "interrupted": False, "isImage": False},
        }
        out = handle_post_tool_use(payload)
        return patch if out is None else str(out["hookSpecificOutput"]["updatedToolOutput"]["stdout"])

    assert "[40 added lines = the whole of src/same.py in the working tree, identical now" in run("git log -p -1")
    for elsewhere in ("cd sub && git log -p -1", "git -C other log -p -1", "git log -p -1 --relative"):
        assert "added lines = the whole of" not in run(elsewhere), elsewhere


def _patch(path: str, added: list[str], *, final_newline: bool = True) -> list[str]:
    lines = [
        f"diff --git a/{path} b/{path}",
        "new file mode 100644",
        "index 0000000..1111111",
        "--- /dev/null",
        f"+++ b/{path}",
        f"@@ -0,0 +1,{len(added)} @@",
        *("+" + a for a in added),
    ]
    return lines if final_newline else [*lines, "\\ No newline at end of file"]


@pytest.mark.parametrize(
    ("name", "data", "final_newline"),
    [
        ("../outside.py", None, True),  # outside the work tree: never read
        ("latin1.py", "".join(f"x{i} = 'é'\n" for i in range(10)).encode("latin-1"), True),  # not UTF-8
        ("crlf.py", "".join(f"x{i} = 1\r\n" for i in range(10)).encode(), True),  # CRLF: not rebuilt from \n
        ("nonl.py", "".join(f"x{i} = 1\n" for i in range(10)).encode(), False),  # the final newline differs
        ("missing.py", None, True),
    ],
)
def test_patches_the_work_tree_cannot_rebuild_are_kept(
    tmp_path: Path, name: str, data: bytes | None, final_newline: bool
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    added = [f"x{i} = 1" for i in range(10)]
    if name == "../outside.py":
        (tmp_path / "outside.py").write_text("".join(a + "\n" for a in added))
    elif data is not None:
        (tree / name).write_bytes(data)
    lines = _patch(name, added, final_newline=final_newline)
    assert fold_known_files(lines, str(tree)) == lines


def test_no_newline_at_end_on_both_sides_folds(tmp_path: Path) -> None:
    added = [f"x{i} = 1" for i in range(10)]
    (tmp_path / "a.py").write_text("\n".join(added))
    folded = fold_known_files(_patch("a.py", added, final_newline=False), str(tmp_path))
    assert folded[-1].startswith("[10 added lines = the whole of a.py in the working tree, identical now")
    assert not any(line.startswith("\\ No newline") for line in folded)
