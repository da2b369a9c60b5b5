# ruff: noqa: PTH104, PTH108, PTH118, PTH208, PTH120, SIM105
# os.path on the hook path: pathlib is not imported there (startup time).
"""Savings measured, not estimated: each guard event's tokens before and after, counted with the offline
cl100k tokenizer (bpe-openai), appended as a ``ContextRecord`` (action ``guard``) to
``<user data dir>/context/context-YYYY-MM.jsonl`` for the ledger.

Loading the tokenizer and msgspec costs far more than the hook's budget, so the hook only writes a small
job file (``.meta/.state/guard/pending/``) and starts this module detached (``accounting = "background"``,
the default); ``inline`` counts in the hook process (tests, benchmarks); ``off`` records nothing. A job
left behind by a killed counter is picked up by the next run.
"""

from __future__ import annotations

import os
import sys

from ctxops_contracts.shared import jsonlite
from ctxops_contracts.shared.confine import ensure_dir, open_regular, read_regular
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.layout import STATE_DIR, meta_path

# On the hook's side (``submit``) this module imports no ``json``, ``re``, ``subprocess``, ``contextlib`` or
# ``functools``: a guard answer (a summary, an unchanged re-read) pays for this module on every such event.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


TOKENIZER = "cl100k_base"


def _log() -> Any:
    import logging

    return logging.getLogger(__name__)


def pending_dir(root: str) -> str:
    return meta_path(root, STATE_DIR, "guard", "pending")


MAX_JOB_BYTES = 64_000_000  # a job holds one tool output at most
MAX_FILE_BYTES = 64_000_000


def submit(root: str, job: dict[str, Any], mode: str) -> None:
    """Record one guard event: ``job`` has ``id``, ``ts``, ``tool_name``, ``command``, ``session_id``,
    ``agent``, ``after`` (the text the model got) and ``before`` or ``before_output`` (a saved output id).
    Its texts are redacted before the job is written, unless ``job["redacted"]`` says they are already
    (counts are of the redacted text: a marker costs a few tokens more or less than the secret it hides)."""
    if mode == "off":
        return
    if not job.pop("redacted", False):  # the job file is on disk until counted: no raw text in it either
        from ctxops_hooks_capture.redact import redact

        for field in ("after", "before", "command"):
            if isinstance(job.get(field), str):
                job[field] = redact(job[field])
    folder = ensure_dir(pending_dir(root))  # 0700; a symlinked .meta/.state is refused
    path = os.path.join(folder, f"{job['id']}.json")
    atomic_write(path, jsonlite.dumps(job), fsync=False, mode=0o600)  # the counter never sees a half-written job
    if mode == "inline":
        process(root)
        return
    if counter_running(root):
        return  # the running counter drains the queue, this job included (or the next event's counter does)
    from ctxops_contracts.shared.detach import python_module_argv, spawn_detached

    try:  # detached (own session, null stdio): the hook returns while the counter loads the tokenizer
        spawn_detached(python_module_argv("ctxops_memory_inject.guard.accounting", root))  # -P: not from cwd
    except OSError:
        _log().exception("could not start the guard's token counter; the job stays in %s", folder)


def _lock_path(root: str) -> str:
    return os.path.join(os.path.dirname(pending_dir(root)), "counter.lock")


def counter_running(root: str) -> bool:
    """Whether a counter holds the queue's lock (a non-blocking probe: microseconds on the hook path)."""
    from ctxops_contracts.shared.locks import LockBusy, acquire_fd, release_fd

    try:
        fd = open_regular(_lock_path(root), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        acquire_fd(fd, timeout=0)
    except LockBusy:
        return True
    else:
        release_fd(fd)
        return False
    finally:
        os.close(fd)


def _count(text: str) -> int:
    return len(_encoding().encode_ordinary(text))


_ENCODING: list[Any] = []  # the tokenizer, loaded once per counter process


def _encoding() -> Any:
    if not _ENCODING:
        import bpe_openai

        _ENCODING.append(bpe_openai.get_encoding(TOKENIZER))
    return _ENCODING[0]


def records_path(ts: float) -> str:
    import time

    from ctxops_contracts.shared.layout import context_records_dir

    month = time.strftime("%Y-%m", time.gmtime(ts))
    return os.path.join(context_records_dir(), f"context-{month}.jsonl")


def process(root: str) -> int:
    """Count and record every pending job of ``root``; return how many were recorded."""
    import json

    from . import store

    store.finalize_all(root)
    folder = pending_dir(root)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except FileNotFoundError:
        return 0
    done = 0
    for name in names:
        path = os.path.join(folder, name)
        claimed = path + ".working"
        try:
            os.rename(path, claimed)  # one counter per job, even with two counters running
        except OSError:
            continue
        try:
            job = json.loads(read_regular(claimed, MAX_JOB_BYTES))  # never a FIFO or a symlink
            _record(root, job)
            done += 1
        except Exception:  # a bad job must not stop the others; it is logged and dropped
            _log().exception("guard accounting: job %s failed", name)
        finally:
            try:
                os.unlink(claimed)
            except FileNotFoundError:
                pass
    return done


def _record(root: str, job: dict[str, Any]) -> None:
    from datetime import UTC, datetime

    from ctxops_contracts.codec import encode_line
    from ctxops_contracts.ids import new_ulid
    from ctxops_contracts.records import ContextRecord
    from ctxops_contracts.shared.files import append_lines
    from ctxops_hooks_capture.redact import redact

    from . import store

    before_text = job.get("before")
    if before_text is None and job.get("before_output"):
        before_text = store.load(root, str(job["before_output"]))
    if before_text is None and job.get("before_file"):
        before_text = _file_region(root, job)
        if before_text is None:
            _log().info("guard accounting: %s changed before it was counted; event not recorded", job["before_file"])
            return
    record = ContextRecord(
        id=new_ulid(),
        ts=datetime.fromtimestamp(float(job["ts"]), UTC),
        action="guard",
        agent=job.get("agent"),
        session_id=job.get("session_id"),
        repo=root,
        hook="PostToolUse",
        tokens=_count(str(job.get("after", ""))),
        tokens_before=_count(str(before_text or "")),
        tool_name=job.get("tool_name"),
        command=redact(str(job["command"])) if job.get("command") else None,
        output_id=job.get("output_id"),
        tokenizer=TOKENIZER,
    )
    append_lines(records_path(float(job["ts"])), encode_line(record))


def drain(root: str) -> int:
    """Process jobs until the queue is empty, holding the counter lock so hooks start no second counter."""
    from ctxops_contracts.shared.locks import LockBusy, file_lock

    total = 0
    try:
        with file_lock(_lock_path(root), timeout=0):
            while True:
                done = process(root)
                total += done
                if not done:
                    return total
    except LockBusy:
        return total  # another counter is draining


def _file_region(root: str, job: dict[str, Any]) -> str | None:
    """The Read region the job names, if the file still holds what the model was spared."""
    from .reads import digest

    start, count = int(job.get("before_start", 1)), int(job.get("before_lines", 0))
    try:  # a job names a file of its repository: refused outside it, read only as a regular file, capped
        real = os.path.realpath(str(job["before_file"]))
        top = os.path.realpath(root)
        if not real.startswith(top.rstrip(os.sep) + os.sep):
            return None
        lines = read_regular(real, MAX_FILE_BYTES).decode("utf-8", "replace").splitlines(keepends=True)
    except OSError:
        return None
    text = "".join(lines[start - 1 : start - 1 + count])
    for candidate in (text, text.rstrip("\n")):
        if digest(candidate) == job.get("before_digest"):
            return candidate
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        return 2
    try:
        drain(args[0])
    except Exception:
        _log().exception("guard accounting failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
