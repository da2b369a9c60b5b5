"""Take ctxops's own injected blocks out of a captured prompt: what ctxops wrote is never stored as the user's.

An agent may hand a hook's ``additionalContext`` back inside the next prompt: Gemini CLI 0.61 prepends
SessionStart's context to the first BeforeAgent ``prompt`` as ``<hook_context>…</hook_context>\\n\\n``
(and BeforeAgent's own as a separate part); a user may paste an earlier injection. Stored as the prompt,
it would open every digest, be written to ``.meta/memory/`` and be injected again next session — a loop
that feeds on itself — and it hides a correction that opens the prompt. So every adapter passes its prompt
text through ``strip_injected`` before anything is stored, and the capture pipeline does so on the whole
prompt before the payload is windowed (a block cut in half by the window is then never half-kept).

What is removed:

- a ``<hook_context>…</hook_context>`` block: a hook's output, never the user's words;
- a ``<ctxops-memory>…</ctxops-memory>`` frame (memory-inject's block);
- blocks nest: the outermost open tag to its matching close tag goes, whatever is inside;
- a close tag with no open tag before it goes alone;
- an open tag never closed (a cut copy) goes with the run of lines after it that read like ctxops's block
  (its header, ``- id kind: title`` entries, indented digest lines, ``## `` headings, ``(…)`` notices,
  blank lines); the user's text after that run stays;
- a prompt holding more than ``MAX_TAGS`` tags (hostile: no agent frames a prompt that often) loses the
  tags only, in a few C-speed passes;
- the same run of lines when it starts with ctxops's header but has no frame at all (the legacy
  ``ctxops memory: one line per memory …`` block of earlier versions, or a frame whose tags were lost).

Linear in the text's length whatever it holds (docs/security.md, promise 2): one left-to-right scan with
``str.find`` and bounded ``startswith`` checks, no regular expression. Only ``str`` methods: this module
is on the hook path.
"""

from __future__ import annotations

# Gemini CLI 0.61 hands the block to the model HTML-escaped inside its <hook_context>: a copy of that is
# caught too.
OPEN_TAGS = ("<hook_context>", "<ctxops-memory>", "&lt;hook_context&gt;", "&lt;ctxops-memory&gt;")
CLOSE_TAGS = ("</hook_context>", "</ctxops-memory>", "&lt;/hook_context&gt;", "&lt;/ctxops-memory&gt;")
# More tags than this in one prompt is not an agent's doing: see strip_injected.
MAX_TAGS = 64
# The first line of ctxops's block, in the forms memory-inject has written (current first).
HEADERS = ("Notes ctxops recorded in earlier sessions", "ctxops memory:")
# Lines that continue a ctxops block: entries, indented digest bodies, section headings, notices.
_BLOCK_LINE_STARTS = ("- ", "  ", "## ", "(")


def _tag_at(text: str, at: int) -> tuple[int, int]:
    """(+1 open / -1 close / 0 none, length) for the tag starting at ``at``."""
    for tag in OPEN_TAGS:
        if text.startswith(tag, at):
            return 1, len(tag)
    for tag in CLOSE_TAGS:
        if text.startswith(tag, at):
            return -1, len(tag)
    return 0, 0


class _Marks:
    """The next ``<`` or ``&`` at or after a position that only grows: each ``find`` result is kept until
    the position passes it, so the whole scan reads the text once (no rescans: linear time)."""

    __slots__ = ("amp", "lt", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lt = -2
        self.amp = -2 if "&lt;" in text else -1

    def next(self, start: int) -> int:
        if self.lt != -1 and self.lt < start:
            self.lt = self.text.find("<", start)
        if self.amp != -1 and self.amp < start:
            self.amp = self.text.find("&", start)
        found = [at for at in (self.lt, self.amp) if at >= 0]
        return min(found) if found else -1


def _is_header(text: str, at: int) -> bool:
    return any(text.startswith(header, at) for header in HEADERS)


def _is_block_line(text: str, at: int) -> bool:
    return text.startswith(_BLOCK_LINE_STARTS, at) or _is_header(text, at)


def _block_run_end(text: str, at: int) -> int:
    """Where the run of ctxops-block lines from the line starting at ``at`` ends (``at`` when none does).

    Blank lines inside the run are taken only when a block line follows them.
    """
    pos = kept = at
    size = len(text)
    while pos < size:
        end = text.find("\n", pos)
        stop = size if end < 0 else end
        if text[pos:stop].strip() == "":
            pos = stop + 1  # blank: kept only if a block line follows
            continue
        if not _is_block_line(text, pos):
            break
        pos = kept = min(stop + 1, size)
    return kept


def _strip_headers(text: str) -> str:
    """Remove unframed ctxops blocks: a header at a line's start and the block lines after it."""
    if not any(header in text for header in HEADERS):
        return text
    out: list[str] = []
    pos = 0
    nexts = dict.fromkeys(HEADERS, -1)  # each header's next line-start occurrence at or after pos
    while pos < len(text):
        for header in HEADERS:
            at = nexts[header]
            if -1 < at < pos or (at == -1 and nexts.get(header + "\0") is None):
                at = text.find(header, pos)
                while at > 0 and text[at - 1] != "\n":  # only at the start of a line
                    at = text.find(header, at + 1)
                nexts[header] = at
                if at < 0:
                    nexts[header + "\0"] = 0  # no more: never searched again
        found = min((at for at in (nexts[h] for h in HEADERS) if at >= 0), default=-1)
        if found < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:found])
        pos = max(_block_run_end(text, found), found + 1)
    return "".join(out)


def _unclosed_end(text: str, after: int) -> int:
    """Where an open tag's block ends when no close tag follows: the block lines after the tag (and the
    rest of the tag's own line when it is blank or starts with ctxops's header), never the user's text."""
    at = after
    size = len(text)
    while at < size and text[at] in " \t\r":
        at += 1
    if at >= size:
        return size
    if text[at] == "\n":
        return _block_run_end(text, at + 1)
    if _is_header(text, at):
        return _block_run_end(text, at)
    return after  # the tag's line goes on with other text: only the tag goes


def strip_injected(text: str) -> str:
    """``text`` without ctxops's injected blocks (see the module's docstring); whitespace left at either
    end is trimmed when something was removed. Returns ``text`` itself when it holds no tag or header."""
    if not text or ("<" not in text and "&lt;" not in text and not any(header in text for header in HEADERS)):
        return text
    if not any(tag in text for tag in OPEN_TAGS) and not any(tag in text for tag in CLOSE_TAGS):
        stripped = _strip_headers(text)
        return stripped.strip() if stripped != text else text
    if sum(text.count(tag) for tag in (*OPEN_TAGS, *CLOSE_TAGS)) > MAX_TAGS:
        # No agent writes hundreds of frames into one prompt: a hostile one loses its tags in C-speed
        # passes (what they framed stays, as text) instead of a Python step per tag.
        for tag in (*OPEN_TAGS, *CLOSE_TAGS):
            text = text.replace(tag, "")
        return _strip_headers(text).strip()
    cuts: list[tuple[int, int]] = []  # spans to remove: nested or disjoint
    opens: list[tuple[int, int]] = []  # (start, end) of open tags not closed yet
    marks = _Marks(text)
    scan = marks.next(0)
    while scan >= 0:
        kind, length = _tag_at(text, scan)
        if kind > 0:
            opens.append((scan, scan + length))
        elif kind < 0:
            start = opens.pop()[0] if opens else scan  # a close tag without an open one goes alone
            cuts.append((start, scan + length))
        scan = marks.next(scan + (length or 1))
    covered = 0
    for start, tag_end in opens:  # open tags never closed: each with the block lines after it
        if start >= covered:  # one inside an earlier one's lines goes with them (each line read once)
            covered = max(tag_end, _unclosed_end(text, tag_end))
            cuts.append((start, covered))
    cuts.sort()
    out: list[str] = []
    pos = 0
    for start, end in cuts:
        if start >= pos:
            out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return _strip_headers("".join(out)).strip()


def strip_all(texts: list[str]) -> list[str]:
    """``strip_injected`` of each text; texts left empty are dropped."""
    return [s for s in (strip_injected(t) for t in texts) if s]
