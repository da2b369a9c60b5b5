"""The schema version carried by every persisted record and file header."""

from __future__ import annotations

SCHEMA_VERSION = "1.2"
SCHEMA_MAJOR = 1


class UnsupportedSchemaVersion(ValueError):
    """Raised when data was written with a schema major version this reader does not know."""


def check_schema_version(found: str, *, where: str = "record") -> None:
    """Refuse data of an unknown major version; minor versions only add optional fields."""
    major_text = found.split(".", 1)[0]
    if not major_text.isdigit():
        raise UnsupportedSchemaVersion(f"{where}: malformed schema_version {found!r} (expected 'MAJOR.MINOR')")
    major = int(major_text)
    if major != SCHEMA_MAJOR:
        newer = "newer" if major > SCHEMA_MAJOR else "older"
        raise UnsupportedSchemaVersion(
            f"{where}: schema_version {found} is from a {newer} ctxops (this reader knows {SCHEMA_MAJOR}.x); "
            f"upgrade ctxops-contracts to read it, or rebuild derived data"
        )
