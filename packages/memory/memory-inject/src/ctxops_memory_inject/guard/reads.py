# ruff: noqa: PTH108, SIM105
# os.path on the hook path: pathlib is not imported there (startup time).
"""Read tool outputs: unchanged re-reads answered briefly, very large reads cut to an outline plus the
requested region.

Claude Code (checked with 2.1.332 through tests/agent_harness) sends the full text again when a file is
re-read unchanged, so the dedupe here is not a duplicate of a native one. The state is per session in
``.meta/.state/guard/`` and is dropped at session start and compaction, when the model no longer holds
the earlier text.
"""

from __future__ import annotations

import os

from ctxops_contracts.shared import jsonlite, regex
from ctxops_contracts.shared.confine import read_regular
from ctxops_contracts.shared.files import atomic_write
from ctxops_contracts.shared.layout import STATE_DIR, ensure_meta, meta_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Outline = Callable[[str, str], "str | None"]  # (path, text) -> outline text, e.g. core's code-map brief


_SAFE = regex.compile(r"[^A-Za-z0-9_.-]")
_DEFINITION = regex.lazy(
    r"^(?P<indent>[ \t]{0,8})"
    r"(?:export\s+(?:default\s+)?|pub(?:\(\w+\))?\s+|public\s+|private\s+|protected\s+|static\s+|async\s+|abstract\s+)*"
    r"(?:def|class|function\*?|func|interface|type|struct|enum|impl|fn|trait|module|namespace|object|"
    r"(?:const|let|var)\s+\w+\s*=\s*(?:async\s*)?(?:\(|function))\b"
    r"|^#{1,4} \S"
)
_MAX_OUTLINE = 200


class ReadState:
    """Which (file, region) the session has read, with the content hash and the step it was read at."""

    def __init__(self, root: str, session_id: str) -> None:
        self.path = meta_path(root, STATE_DIR, "guard", f"session-{_SAFE.sub('_', session_id or 'none')[:80]}.json")
        self.root = root
        self.step = 0
        self.reads: dict[str, list[Any]] = {}
        try:
            data = jsonlite.loads(read_regular(self.path, 16_000_000))
            self.step = int(data.get("step", 0))
            self.reads = dict(data.get("reads", {}))
        except (OSError, ValueError, TypeError, AttributeError):
            pass

    def save(self) -> None:
        ensure_meta(self.root)
        # atomic: a parallel tool call's hook never reads half a file
        atomic_write(self.path, jsonlite.dumps({"step": self.step, "reads": self.reads}), fsync=False)

    def seen(self, key: str, digest: str) -> int | None:
        """The step at which this region was read with this content, or None."""
        entry = self.reads.get(_stored(key))
        if entry and entry[0] == digest:
            return int(entry[1])
        return None

    def remember(self, key: str, digest: str) -> None:
        self.reads[_stored(key)] = [digest, self.step]


def _stored(key: str) -> str:
    """The key as stored: a digest of the path and region, never the path itself (a file name can be a
    secret, and this state file is written on every read)."""
    return "k" + digest(key)


def reset(root: str, session_id: str) -> None:
    """Forget what the session read (session start, compaction)."""
    state = ReadState(root, session_id)
    try:
        os.unlink(state.path)
    except FileNotFoundError:
        pass


def region_key(file_path: str, start: int, num_lines: int) -> str:
    return f"{file_path}\0{start}\0{num_lines}"


def whole_key(real_path: str) -> str:
    """The key of a whole file however it was read (a full Read, ``cat FILE``)."""
    return f"{real_path}\0whole"


def digest(text: str) -> str:
    from ctxops_contracts.shared.digest import blake2b_hex

    return blake2b_hex(text.encode("utf-8", "surrogatepass"), 12)


def outline(path: str, text: str, outline_fn: Outline | None = None) -> str:
    """An outline of ``text``: ``outline_fn`` when core passes one (the code map's brief), else a
    language-agnostic one: definition-looking and heading lines with their line numbers."""
    if outline_fn is not None:
        try:
            given = outline_fn(path, text)
        except Exception:  # the caller's outline must never break the hook
            import logging

            logging.getLogger(__name__).exception("outline callable failed for %s", path)
            given = None
        if given:
            return given
    found: list[tuple[int, int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _DEFINITION.match(line)
        if match:
            indent = len((match.group("indent") or "").expandtabs(4))
            found.append((indent, number, line.strip()[:140]))
    if len(found) > _MAX_OUTLINE:  # too many: the outermost level only
        top = min(indent for indent, _, _ in found)
        found = [item for item in found if item[0] == top]
    rows = [f"{number:>6}  {text_}" for _, number, text_ in found[:_MAX_OUTLINE]]
    if len(found) > _MAX_OUTLINE:
        rows.append(f"   … {len(found) - _MAX_OUTLINE} more")
    return "\n".join(rows) if rows else "(no definitions or headings found)"
