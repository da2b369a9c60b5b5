"""The fields of a memory file's front matter, in the order they are written (no msgspec: the fast CLI path
renders a file from plain values with these, ``entry_file`` from records)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the fast CLI path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

# Front matter key order: what a reviewer reads first comes first.
FIELD_ORDER = (
    "id",
    "kind",
    "title",
    "status",
    "pinned",
    "scope",
    "files",
    "tags",
    "source",
    "created_at",
    "valid_from",
    "valid_until",
    "superseded_by",
    "folded_into",
    "history",
    "archive_reason",
    "hits",
    "last_used_at",
    "content_hash",
    "schema_version",
    "ties",  # last: TOML writes it as [[ties]] tables after the plain keys
)
DEFAULTS: dict[str, Any] = {"ties": [], "hits": 0, "history": [], "files": [], "tags": [], "source": [], "scope": []}


def slug(title: str, limit: int = 48) -> str:
    from ctxops_contracts.shared.regex import compile as re_compile

    text = re_compile(r"[^a-z0-9]+").sub("-", title.lower()).strip("-")
    return text[:limit].rstrip("-") or "entry"


def file_name_of(entry_id: str, kind: str, title: str) -> str:
    """``<kind>-<slug>-<last 6 of id>.md``: readable, sorted by kind, unique by id, stable after edits."""
    from ctxops_contracts.shared.regex import compile as re_compile

    # The id and kind come from front matter a repository may have written: only [a-z0-9-] reach the name.
    tail = re_compile(r"[^a-z0-9]+").sub("-", entry_id[-6:].lower()).strip("-") or "x"
    return f"{slug(kind, 24)}-{slug(title)}-{tail}.md"
