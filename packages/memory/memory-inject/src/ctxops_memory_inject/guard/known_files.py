# ruff: noqa: PTH113, PTH118, PTH202
"""Patches that add a whole file the agent can Read as it is now.

``git log -p`` and ``git show`` on a young history are mostly hunks that create files (``@@ -0,0 +1,N @@``);
when the working tree still holds that file with the same text, the hunk's N lines say nothing one Read
would not, so they become one line naming the file. When only a few lines differ (a later, uncommitted
edit), those lines of the patch are kept with their line numbers, so the patch can still be rebuilt
exactly: the file as Read, with those lines put back. Anything else (a file gone, changed line counts,
undecodable text, a missing newline that differs) leaves the hunk as it is.
"""

from __future__ import annotations

import os

from ctxops_contracts.shared import regex

_DIFF_HEAD = regex.compile(r"^diff --git a/(\S+) b/(\S+)$")
_NEW_HUNK = regex.compile(r"^@@ -0,0 \+1(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"
MIN_LINES = 8  # shorter additions cost about as much as the line that would name them
MAX_DIFFERENT = 3  # more lines differing than this: the patch is kept as it is
_MAX_BYTES = 2_000_000


def fold_known_files(lines: list[str], worktree: str) -> list[str]:
    """``lines`` of a patch with each whole-file addition that matches ``worktree`` named, not repeated."""
    out: list[str] = []
    path = ""
    new_file = False
    i = 0
    while i < len(lines):
        line = lines[i]
        head = _DIFF_HEAD.match(line)
        if head:
            path, new_file = head.group(2), False
        elif line.startswith("new file mode"):
            new_file = True
        hunk = _NEW_HUNK.match(line) if new_file and path else None
        if hunk:
            count = int(hunk.group(1) or 1)
            body = lines[i + 1 : i + 1 + count]
            end = i + 1 + count
            no_newline = end < len(lines) and lines[end] == _NO_NEWLINE
            if count >= MIN_LINES and len(body) == count and all(b.startswith("+") for b in body):
                folded = _against_worktree(path, [b[1:] for b in body], not no_newline, worktree)
                if folded is not None:
                    out.append(line)
                    out.extend(folded)
                    i = end + (1 if no_newline else 0)
                    new_file = False
                    continue
        out.append(line)
        i += 1
    return out


def _against_worktree(path: str, added: list[str], final_newline: bool, worktree: str) -> list[str] | None:
    text = _read(worktree, path)
    if text is None:
        return None
    patch_text = "\n".join(added) + ("\n" if final_newline else "")
    where = f"{path} in the working tree"
    if text == patch_text:
        return [f"[{len(added)} added lines = the whole of {where}, identical now: Read it for the text]"]
    current = text.split("\n")
    if text.endswith("\n") != final_newline or "\r" in text:
        return None
    if final_newline:
        current.pop()
    if len(current) != len(added):
        return None
    different = [n for n, (a, b) in enumerate(zip(added, current, strict=True)) if a != b]
    if not different or len(different) > MAX_DIFFERENT:
        return None
    numbers = ", ".join(str(n + 1) for n in different)
    out = [
        f"[{len(added)} added lines = the whole of {where}, identical now except line"
        f"{'s' if len(different) > 1 else ''} {numbers}, which the patch adds as:]"
    ]
    out.extend(f"[line {n + 1}]+{added[n]}" for n in different)
    return out


def _read(worktree: str, path: str) -> str | None:
    """The file's text if it is a regular UTF-8 file inside ``worktree``; None otherwise."""
    full = os.path.realpath(os.path.join(worktree, path))
    top = os.path.realpath(worktree)
    if not full.startswith(top + os.sep) or not os.path.isfile(full):
        return None
    try:
        if os.path.getsize(full) > _MAX_BYTES:
            return None
        with open(full, "rb") as handle:
            data = handle.read()
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
