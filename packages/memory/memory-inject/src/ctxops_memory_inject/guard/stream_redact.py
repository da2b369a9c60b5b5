"""Redaction of a stream: text arrives in pieces, redacted text leaves, no secret slips through a seam.

``redact`` works on whole texts. A stream is cut into chunks, and a secret (a token, a ``password:`` line
and its value, a PEM block) may straddle a cut. The rule here: a cut at position ``c`` of the buffer is
*safe* when redacting the window ``[c - overlap, c + overlap)`` finds nothing, or finds the same as
redacting its two halves apart; anything shorter than ``overlap`` that crosses ``c`` would make the two
differ. Cuts are tried at line ends first, then at whitespace, then anywhere, walking back from the
chunk's end; a buffer with no safe cut grows up to ``max_buffer`` and is then cut with the window around
the cut withheld (a marker says so): withholding beats writing what may be half a secret.

Each character is redacted about once plus the windows (linear in the stream), and ``redact`` itself is
linear; a chunk costs one window redaction on top of its own.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

CHUNK = 65_536
OVERLAP = 8_192  # longer than a PEM block of a 4096-bit RSA key (~3.3 kB) and any token format
MAX_BUFFER = 1_048_576
_TRIES = 8


_ENGINE: list[Callable[[str], str]] = []


def _lazy_redact(text: str) -> str:
    """``redact``, imported on first use: a command with no output pays nothing for the engine."""
    if not _ENGINE:
        from ctxops_hooks_capture.redact import redact

        _ENGINE.append(redact)
    return _ENGINE[0](text)


class StreamRedactor:
    """``feed(text)`` returns the redacted text that is final so far; ``finish()`` returns the rest."""

    def __init__(
        self,
        redact: Callable[[str], str] | None = None,
        *,
        chunk: int = CHUNK,
        overlap: int = OVERLAP,
        max_buffer: int = MAX_BUFFER,
    ) -> None:
        self._redact = redact or _lazy_redact
        self.chunk, self.overlap, self.max_buffer = chunk, overlap, max(max_buffer, chunk + 2 * overlap)
        self._buf = ""
        self.withheld = 0

    def feed(self, text: str) -> str:
        self._buf += text
        out: list[str] = []
        while len(self._buf) >= self.chunk + self.overlap:
            cut = self._safe_cut()
            if cut is None:
                if len(self._buf) < self.max_buffer:
                    break  # wait for more text: the seam may resolve once the secret ends
                out.append(self._forced_cut())
                continue
            out.append(self._redact(self._buf[:cut]))
            self._buf = self._buf[cut:]
        return "".join(out)

    @property
    def buffered(self) -> int:
        """Characters held back, not yet emitted."""
        return len(self._buf)

    def idle(self) -> str:
        """The input paused: emit what can be emitted safely now (all but the last ``overlap`` characters,
        at a safe cut), so a command that prints and then works does not leave it all for :meth:`finish`."""
        if len(self._buf) < 2 * self.overlap + 1:
            return ""
        cut = self._safe_cut(min_piece=1)
        if cut is None:
            return ""
        out = self._redact(self._buf[:cut])
        self._buf = self._buf[cut:]
        return out

    def finish(self) -> str:
        rest, self._buf = self._buf, ""
        return self._redact(rest) if rest else ""

    # -- cuts ------------------------------------------------------------------------------------------

    def _candidates(self, min_piece: int | None = None) -> list[int]:
        """Cut positions to try, best first: line ends, then whitespace, then plain offsets, each at least
        ``overlap`` characters from the buffer's end (so the window's right half is all there)."""
        buf, limit = self._buf, len(self._buf) - self.overlap
        # keep each emitted piece at least ~a chunk long (fewer window checks), unless asked otherwise
        low = max(self.overlap, limit - self.chunk) if min_piece is None else max(min_piece, self.overlap // 8)
        seen: list[int] = []
        for sep in ("\n", " ", "\t"):
            end = limit
            while len(seen) < _TRIES and end > low:
                at = buf.rfind(sep, low, end)
                if at < 0:
                    break
                if at + 1 not in seen:
                    seen.append(at + 1)
                end = at
            if len(seen) >= _TRIES:
                break
        step = max(1, (limit - low) // _TRIES)
        seen += [p for p in range(limit, low, -step)[:_TRIES] if p not in seen]
        return seen

    def _safe(self, cut: int) -> bool:
        left = self._buf[max(0, cut - self.overlap) : cut]
        right = self._buf[cut : cut + self.overlap]
        whole = left + right
        redacted = self._redact(whole)
        if redacted == whole:
            return True  # nothing secret near the seam: nothing can straddle it
        return redacted == self._redact(left) + self._redact(right)

    def _safe_cut(self, min_piece: int | None = None) -> int | None:
        for cut in self._candidates(min_piece):
            if self._safe(cut):
                return cut
        return None

    def _forced_cut(self) -> str:
        """No safe cut in a buffer of ``max_buffer``: emit all but the last ``2 * overlap`` characters
        (redacted) and withhold those: the seam's window, whose halves may each be part of one secret."""
        keep = len(self._buf) - 2 * self.overlap
        head = self._redact(self._buf[:keep])
        self._buf = ""
        self.withheld += 2 * self.overlap
        return f"{head}\n[ctxops: {2 * self.overlap} characters withheld: a secret may cross a chunk boundary]\n"
