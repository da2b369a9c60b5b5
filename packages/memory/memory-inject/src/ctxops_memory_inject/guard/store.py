# ruff: noqa: PTH108, PTH110, PTH118, SIM105
# os.path on the hook path: pathlib is not imported there (startup time).
"""Saved originals: the full text of each summarized tool output, redacted, under ``.meta/outputs/``.

No raw text is ever written, not even for a moment: it is redacted in this process, or handed to a
detached finalizer through a pipe (see :func:`save`).

One file per output (``<id>.txt``) plus a small ``<id>.json`` with what produced it. The directory is
git-ignored through ``ensure_meta`` and rotated: past ``max_outputs`` files the oldest are removed.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared import jsonlite, regex
from ctxops_contracts.shared.confine import checked_dir, ensure_dir, read_regular
from ctxops_contracts.shared.layout import OUTPUTS_DIR, STATE_DIR, ensure_meta, meta_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# The hook saves outputs through this module: no json, re or contextlib imports here (~10 ms of a fresh
# process); the counter and `ctx out` import json where they read.
_ID = regex.lazy(r"^[0-9a-f]{8,16}$")
MAX_OUTPUT_BYTES = 64_000_000  # a saved output is what one tool printed; a bigger file is read only this far


class OutputNotFound(LookupError):
    """No saved output has this id (never saved, or rotated away)."""


def outputs_dir(root: str) -> str:
    return meta_path(root, OUTPUTS_DIR)


def new_id() -> str:
    return os.urandom(4).hex()


def save(
    root: str,
    text: str,
    meta: dict[str, object],
    *,
    max_outputs: int = 200,
    max_bytes: int = 2_000_000,
    defer: bool = False,
    redacted: bool = False,
) -> str:
    """Keep ``text`` (redacted) and return its id; outputs beyond ``max_outputs`` are rotated away.

    ``redacted`` says the text is redacted already (a wrapped command's spool): it is written as it is.
    Otherwise it is redacted before its first byte is written. With ``defer`` that happens in a detached
    process (redacting 100 kB costs more than the hook's whole budget): the raw text travels to it through
    a pipe (kernel memory), never a file; only an empty mark, ``.meta/.state/guard/pending/<id>.wait``
    (0600, the finalizer's pid), is on disk meanwhile. :func:`load` waits for a pending output, so the id
    works at once; a finalizer killed before it wrote leaves no text anywhere, and its mark is swept.
    """
    ensure_meta(root)
    sweep(root)
    output_id = new_id()
    body = (
        text
        if len(text) <= max_bytes
        else text[:max_bytes] + f"\n[ctxops: cut at {max_bytes} characters of {len(text)}]\n"
    )
    info: dict[str, object] = {
        "id": output_id,
        "ts": time.time(),
        "lines": body.count("\n") + 1,
        "chars": len(body),
        "max_outputs": max_outputs,
        **meta,
    }
    if not redacted and defer and _hand_off(root, output_id, _dumps(info) + "\n" + body):
        return output_id
    if not redacted:
        from ctxops_hooks_capture.redact import redact

        body = redact(body)
    write_output(root, output_id, body, info)
    return output_id


def _dumps(info: dict[str, object]) -> str:
    """``json.dumps(info, default=str)``, through jsonlite when every value is JSON already."""
    try:
        return jsonlite.dumps(info)
    except (TypeError, ValueError):
        import json

        return json.dumps(info, default=str)


def staging_dir(root: str) -> str:
    """``.meta/.state/guard/pending`` (0700): the finalizers' marks and the token counter's jobs."""
    return ensure_dir(meta_path(root, STATE_DIR, "guard", "pending"))  # a symlinked .meta/.state is refused


def write_output(root: str, output_id: str, body: str, info: dict[str, object]) -> None:
    """Write a redacted ``body`` and its ``info`` (redacted here) to ``.meta/outputs/`` (0600); rotate."""
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_hooks_capture.redact import redact_value

    folder = ensure_dir(outputs_dir(root))  # 0700; a symlinked .meta/outputs is refused
    max_outputs = int(str(info.pop("max_outputs", 200)))
    atomic_write(os.path.join(folder, f"{output_id}.txt"), body, fsync=False, mode=0o600)
    atomic_write(os.path.join(folder, f"{output_id}.json"), _dumps(redact_value(info)), fsync=False, mode=0o600)
    rotate(folder, max_outputs)


def _hand_off(root: str, output_id: str, payload: str) -> bool:
    """Start a detached finalizer and hand it ``payload`` through its stdin pipe; False when the process
    cannot start or dies before it has read it all (the caller then redacts in process).

    The finalizer starts first and the payload is written after: what fits the pipe (up to
    ``pipe-max-size``, 1 MiB by default on Linux) returns at once, a larger payload only waits for the
    finalizer to read it (its start-up, ~50 ms), never for the redaction itself."""
    data = payload.encode("utf-8", "replace")
    if not hasattr(os, "posix_spawn"):  # pragma: no cover - Windows
        return False
    read_end, write_end = os.pipe()  # both close-on-exec; the child gets the read end as its stdin
    try:
        if len(data) > 65_536:
            _grow_pipe(write_end, len(data))
        mark = os.path.join(staging_dir(root), f"{output_id}.wait")
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            import sys

            argv = [sys.executable, "-P", "-m", "ctxops_memory_inject.guard.store", root, output_id]
            actions = [
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ]
            try:
                pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
            except OSError:
                os.unlink(mark)
                return False
            os.write(fd, f"{pid}\n".encode())
        finally:
            os.close(fd)
        os.close(read_end)
        read_end = -1
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
        except OSError:  # the finalizer died before reading it all (EPIPE): nothing of it was written
            try:
                os.unlink(mark)
            except FileNotFoundError:
                pass
            return False
        return True
    finally:
        os.close(write_end)
        if read_end >= 0:
            os.close(read_end)


def _grow_pipe(fd: int, size: int) -> None:
    """Make the pipe hold ``size`` bytes where the system allows (Linux ``F_SETPIPE_SZ``), else what it can."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except (ImportError, AttributeError, OSError):  # no such call (macOS), or above pipe-max-size
        try:
            import fcntl

            with open("/proc/sys/fs/pipe-max-size", "rb") as fh:
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, min(size, int(fh.read().strip() or 0)))
        except (ImportError, AttributeError, OSError, ValueError):
            pass


def _finalize_stdin(root: str, output_id: str) -> int:
    """The detached finalizer: read the payload from stdin, redact it, write it, drop the mark."""
    import sys

    from ctxops_hooks_capture.redact import redact

    mark = os.path.join(staging_dir(root), f"{output_id}.wait")
    try:
        data = sys.stdin.buffer.read().decode("utf-8", "replace")
        header, _, body = data.partition("\n")
        try:
            info = jsonlite.loads(header)
        except ValueError:
            info = None
        write_output(root, output_id, redact(body), info if isinstance(info, dict) else {"id": output_id})
    finally:
        try:
            os.unlink(mark)
        except FileNotFoundError:
            pass
    return 0


def _pending_pid(mark: str) -> int | None:
    try:
        with open(mark, "rb") as fh:
            text = fh.read(32).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not reaped: the hook that spawned it is still running) is not alive
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


_MARK_GRACE = 30.0  # a mark without a pid yet: its hook is between creating it and starting the finalizer


def sweep(root: str) -> int:
    """Clear what killed processes left in the staging directory: marks of finalizers that are gone, and
    raw text staged by versions before 0.3 (redacted into ``.meta/outputs/`` now). Runs on every save and
    every counter start; returns how many entries it cleared."""
    try:
        entries = list(os.scandir(staging_dir(root)))
    except OSError:
        return 0
    cleared = 0
    for entry in entries:
        name = entry.name
        try:
            if name.endswith(".wait"):
                pid = _pending_pid(entry.path)
                if pid is None and time.time() - entry.stat().st_mtime < _MARK_GRACE:
                    continue
                if not _alive(pid):
                    os.unlink(entry.path)
                    cleared += 1
            elif name.endswith(".raw"):
                cleared += finalize(root, name[:-4])
        except OSError:
            continue
    return cleared


def finalize(root: str, output_id: str) -> bool:
    """Redact raw text an older version staged (``pending/<id>.raw``) into ``.meta/outputs/``; False when
    there is none under the id."""
    from ctxops_hooks_capture.redact import redact

    if not _ID.match(output_id):
        return False  # not a name the guard stages under (a repository can put files there)
    raw = os.path.join(staging_dir(root), f"{output_id}.raw")
    try:  # a regular file only, capped: never a symlink, FIFO or device a repository put there
        if not checked_dir(staging_dir(root)):
            return False
        text = read_regular(raw, MAX_OUTPUT_BYTES).decode("utf-8", "replace")
        header, _, body = text.partition("\n")
    except FileNotFoundError:
        return False
    try:
        info = jsonlite.loads(header)
    except ValueError:
        info = {"id": output_id}
    if not isinstance(info, dict):
        info = {"id": output_id}
    write_output(root, output_id, redact(body), info)
    try:
        os.unlink(raw)
    except FileNotFoundError:
        pass
    return True


def finalize_all(root: str) -> int:
    """Sweep the staging directory (the background counter's first step)."""
    return sweep(root)


def wait_pending(root: str, output_id: str, timeout: float = 30.0) -> None:
    """Wait while a detached finalizer of ``output_id`` runs (at most ``timeout`` s)."""
    mark = os.path.join(staging_dir(root), f"{output_id}.wait")
    deadline = time.monotonic() + timeout
    delay = 0.005
    while os.path.exists(mark) and time.monotonic() < deadline:
        pid = _pending_pid(mark)
        if pid is not None and not _alive(pid):
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def rotate(folder: str, max_outputs: int) -> int:
    """Remove the oldest saved outputs past ``max_outputs``; return how many were removed."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".txt")]
    except OSError:
        return 0
    if len(entries) <= max_outputs:
        return 0
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    removed = 0
    for entry in entries[: len(entries) - max_outputs]:
        for suffix in (".txt", ".json"):
            try:
                os.unlink(os.path.join(folder, entry.name[:-4] + suffix))
            except FileNotFoundError:
                pass
        removed += 1
    return removed


def _path(root: str, output_id: str, suffix: str) -> str:
    if not _ID.match(output_id):
        raise OutputNotFound(output_id)
    return os.path.join(outputs_dir(root), output_id + suffix)


def _read(root: str, output_id: str, suffix: str) -> str:
    """A saved file, read only as a regular file directly in a real ``.meta/outputs`` (UnsafePath else)."""
    path = _path(root, output_id, suffix)
    if not checked_dir(outputs_dir(root)):
        raise FileNotFoundError(path)
    return read_regular(path, MAX_OUTPUT_BYTES).decode("utf-8", "replace")


def load(root: str, output_id: str) -> str:
    if _ID.match(output_id) and not os.path.lexists(_path(root, output_id, ".txt")):
        wait_pending(root, output_id)  # its finalizer is still redacting it
        finalize(root, output_id)  # staged by an older version
    try:
        return _read(root, output_id, ".txt")
    except FileNotFoundError:
        raise OutputNotFound(output_id) from None


def load_meta(root: str, output_id: str) -> dict[str, object]:
    try:
        data = jsonlite.loads(_read(root, output_id, ".json"))
    except (FileNotFoundError, ValueError):
        return {"id": output_id}
    return data if isinstance(data, dict) else {"id": output_id}


def select(
    text: str, *, lines: tuple[int, int] | None = None, grep: re.Pattern[str] | None = None
) -> list[tuple[int, str]]:
    """Numbered lines of ``text``: all, a 1-based inclusive range, or those matching ``grep``."""
    numbered = list(enumerate(text.splitlines(), start=1))
    if lines is not None:
        start, end = lines
        numbered = numbered[max(0, start - 1) : end]
    if grep is not None:
        numbered = [(n, line) for n, line in numbered if grep.search(line)]
    return numbered


if __name__ == "__main__":  # the detached finalizer: python -P -m ctxops_memory_inject.guard.store ROOT ID
    import sys

    sys.exit(_finalize_stdin(sys.argv[1], sys.argv[2]) if len(sys.argv) == 3 else 2)
