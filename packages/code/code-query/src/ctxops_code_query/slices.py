"""`cq open`: a bounded slice of a file, with line numbers, never outside the repository."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ctxops_contracts import QueryHit

from .errors import UsageError
from .repo import safe_path

MAX_SLICE_LINES = 400  # a hard bound whatever the range asks for
DEFAULT_SLICE_LINES = 60
_RANGE = re.compile(r"^(\d+)(?:-(\d*))?$")
_SNIFF = 8192


@dataclass(frozen=True)
class Target:
    """What `cq open` was asked for: a path and either a line range or a symbol name."""

    path: str
    start: int | None = None
    end: int | None = None
    name: str | None = None


def parse_target(root: Path, spec: str) -> Target:
    """``FILE``, ``FILE:A``, ``FILE:A-B``, ``FILE:A-`` or ``FILE:NAME`` (a file named with ':' wins)."""
    if ":" in spec and not (root / spec).is_file():
        path, _, suffix = spec.rpartition(":")
        if not path:
            raise UsageError(f"bad target {spec!r}", fix="use FILE, FILE:A-B or FILE:NAME")
        m = _RANGE.match(suffix)
        if m:
            start = int(m.group(1))
            end = int(m.group(2)) if m.group(2) else None
            if start < 1 or (end is not None and end < start):
                raise UsageError(f"bad line range {suffix!r}", fix="lines count from 1 and A <= B, e.g. app.py:10-40")
            if end is None and m.group(2) is None and "-" not in suffix:
                end = start + DEFAULT_SLICE_LINES - 1
            return Target(path=path, start=start, end=end)
        if suffix:
            return Target(path=path, name=suffix)
    return Target(path=spec)


def read_text(path: Path, shown: str) -> list[str]:
    """The file's lines (non-UTF-8 bytes replaced); refuse directories and binary files."""
    if path.is_dir():
        raise UsageError(f"{shown} is a directory", fix=f"use cq brief or cq map {shown}")
    if not path.is_file():
        raise UsageError(f"no such file: {shown}", fix="check the path (cq map lists the indexed files)")
    data = path.read_bytes()
    if b"\x00" in data[:_SNIFF]:
        raise UsageError(f"{shown} is a binary file", fix="cq open reads text files only")
    return data.decode("utf-8", "replace").splitlines()


def slice_hits(root: Path, target_path: str, start: int | None, end: int | None) -> tuple[list[QueryHit], int, str]:
    """Hits for lines ``start..end`` (1-based, inclusive) of a file; returns (hits, file lines, rel path)."""
    absolute, rel = safe_path(root, target_path)
    lines = read_text(absolute, rel)
    first = start or 1
    last = min(end or len(lines), len(lines), first + MAX_SLICE_LINES - 1)
    if first > len(lines) and lines:
        raise UsageError(f"{rel} has {len(lines)} lines; line {first} is past its end", fix=f"use {rel}:1-{len(lines)}")
    hits = [QueryHit(path=rel, line=n, text=lines[n - 1]) for n in range(first, last + 1)]
    return hits, len(lines), rel
