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
