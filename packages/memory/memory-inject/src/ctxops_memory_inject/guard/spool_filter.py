# ruff: noqa: PTH105, PTH108, PTH118, SIM105
"""The redacting writer of a wrapped command's spool: ``python -P -m ctxops_memory_inject.guard.spool_filter
DIR ID``, started by the PreToolUse wrapper (``hook.WRAPPER``) beside the command.

The command's output reaches this process through the FIFO ``DIR/ID.fifo`` (a pipe with a name: its
bytes live in the kernel, never on disk) and leaves it redacted, in pieces, into ``DIR/ID.log`` (0600 in a
0700 directory). The raw text exists only in the pipe and in this process's memory; a ``kill -9`` of this
process leaves a partial *redacted* ``ID.part``, which the next hook sweeps (flock-ed while written, so a
sweeper can tell a live writer from a dead one); a finished spool is renamed ``ID.log``.

The FIFO is opened before anything else is imported: the shell's ``exec 9>FIFO`` blocks until a reader
opens it. The command ends → EOF → the rest is redacted and the process exits; the wrapper waits for it.
A background process that keeps the command's output open (a server started by a build) would hold the
FIFO forever: when the command ends, the wrapper sends SIGURG (ignored by default, so an early one is
harmless) and this process drains what the pipe holds and stops. No file but the spool is written.
"""

from __future__ import annotations

import os
import sys

READ = 65_536
IDLE = 0.1  # seconds between looks for the wrapper's "the command ended" signal while no output arrives


def paths(folder: str, spool_id: str) -> tuple[str, str, str]:
    """(fifo, partial spool, finished spool) of one wrapped run."""
    base = os.path.join(folder, spool_id)
    return base + ".fifo", base + ".part", base + ".log"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        return 2
    fifo, part, log = paths(argv[0], argv[1])
    import signal

    # Before the FIFO is opened: the shell's open returns with ours, the command may end a moment later,
    # and its "ended" signal must find the handler (SIGURG is ignored by default: an early one is lost).
    ended: list[int] = []
    signal.signal(signal.SIGURG, lambda signum, frame: ended.append(signum))
    try:
        source = os.open(fifo, os.O_RDONLY | os.O_CLOEXEC)  # blocks until the shell opens its end
    except OSError:
        return 1
    try:
        os.unlink(fifo)  # both ends are open: the name is no longer needed
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt ends the command; we finish its output
    try:
        sink = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        sink = -1
    try:
        if sink >= 0:
            _lock(sink)
        _pump(source, sink, ended)
        if sink >= 0:
            os.replace(part, log)  # finished: the wrapper shows it, the PostToolUse hook reads it
    finally:
        os.close(source)
        if sink >= 0:
            os.close(sink)
    return 0


def _lock(fd: int) -> None:
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (ImportError, OSError):
        pass


def _write(fd: int, text: str) -> None:
    if fd < 0 or not text:
        return
    view = memoryview(text.encode("utf-8", "replace"))
    while view:
        view = view[os.write(fd, view) :]


def _pump(source: int, sink: int, ended: list[int]) -> None:
    import codecs
    import select
    import time

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        from .stream_redact import StreamRedactor

        redactor: StreamRedactor | None = StreamRedactor()
    except Exception:  # no redactor: nothing of the output may be written
        redactor = None
    # (the engine itself is imported with the first text to redact; if that import fails, the text is
    # withheld like any text redaction fails on)
    withheld = 0
    poller = select.poll()
    poller.register(source, select.POLLIN | select.POLLHUP)
    draining = False
    looked = time.monotonic()
    while True:
        ready = draining or bool(poller.poll(IDLE * 1000))
        if not draining and (not ready or time.monotonic() - looked > IDLE):
            looked = time.monotonic()
            if ended:  # the command ended; a background process may keep the pipe open
                draining = True
                os.set_blocking(source, False)
            if not ready:
                if redactor is not None:  # a pause in the output: redact what is safe to now
                    try:
                        _write(sink, redactor.idle())
                    except OSError:
                        sink = -1
                    except Exception:
                        withheld += redactor.buffered
                        redactor = None
                continue
        try:
            data = os.read(source, READ)
        except BlockingIOError:
            data = b""
        if not data:
            break
        text = decoder.decode(data)
        if redactor is None:
            withheld += len(text)
            continue
        try:
            _write(sink, redactor.feed(text))
        except OSError:
            sink = -1  # a full disk: keep draining so the command is not blocked
        except Exception:
            redactor, withheld = None, withheld + len(text)
    text = decoder.decode(b"", final=True)
    try:
        if redactor is not None:
            _write(sink, redactor.feed(text) + redactor.finish())
        if withheld or (redactor is not None and redactor.withheld):
            total = withheld + (redactor.withheld if redactor is not None else 0)
            _write(sink, f"\n[ctxops: {total} characters of output withheld: they could not be redacted]\n")
    except Exception:
        _write(sink, "\n[ctxops: the end of the output withheld: it could not be redacted]\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
