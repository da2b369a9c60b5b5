# ruff: noqa: PTH119
# os.path on the hook path: the capture command does without importing pathlib.
"""A Codex shell command's exit code, from the rollout file Codex names in every hook payload.

Codex 0.171's PostToolUse carries a shell command's output only (``tool_response`` is a string). Its rollout
(``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``, the payload's ``transcript_path``) records the
finished command before the hook runs, as an ``item_completed`` event whose item is a ``CommandExecution``
with ``id`` = the hook's ``tool_use_id`` and ``exit_code``. Only the file's tail is read (a bounded
amount), only a regular file named ``rollout-*.jsonl``, and only an integer is taken from it; anything
else (no file, another layout, no such item) gives None: the exit status stays unknown, never a guessed 0.
"""

from __future__ import annotations

import os

from ctxops_contracts.shared.confine import UnsafePath, open_regular

from ctxops_hooks_capture import jsontext

TAIL_BYTES = 1 << 20  # the last MiB: a command's item is written just before its hook runs
_MARK = b'"item_completed"'


def rollout_exit_code(transcript_path: str | None, call_id: str | None) -> int | None:
    """The exit code Codex recorded for ``call_id`` in the rollout at ``transcript_path``, or None."""
    if not transcript_path or not call_id or len(call_id) > 200:
        return None
    name = os.path.basename(transcript_path)
    if not (name.startswith("rollout-") and name.endswith(".jsonl")):
        return None
    try:
        fd = open_regular(transcript_path)
    except (OSError, UnsafePath):
        return None
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - TAIL_BYTES)
        data = os.pread(fd, size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    needle = jsontext.line(call_id).strip()  # the id as JSON writes it, quotes included
    end = len(data)
    while end > 0:  # the lines naming the call, newest first (found by C-speed searches, not line by line)
        at = data.rfind(needle, 0, end)
        if at < 0:
            return None
        begin = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        line = data[begin : len(data) if stop < 0 else stop]
        end = begin
        if _MARK not in line:
            continue
        try:
            record = jsontext.parse(line.decode("utf-8", "replace"))
        except ValueError:
            continue
        code = _exit_code(record, call_id)
        if code is not None:
            return code
    return None


def _exit_code(record: object, call_id: str) -> int | None:
    payload = record.get("payload") if isinstance(record, dict) else None
    item = payload.get("item") if isinstance(payload, dict) else None
    if not isinstance(item, dict) or item.get("id") != call_id or item.get("type") != "CommandExecution":
        return None
    code = item.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None
