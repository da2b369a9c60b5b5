"""A memory's fields redacted together: a value hidden in one is hidden in all of them.

``ctx mem add "remember password = kafka123" --title "t kafka123" --file notes/kafka123.txt`` says the secret
in four fields and marks it in one; the title, files, scope, tags and source are written to disk (the title
names the file), so each is redacted alone and then what any of them hid is hidden in every other
(``ctxops_contracts.redaction.record.hide_found``). Standard library and contracts only: ``fastadd`` (the
quick ``ctx mem add``) and the store share it and so write the same record.
"""

from __future__ import annotations

from ctxops_contracts.redaction.engine import redact, redact_label, redact_path
from ctxops_contracts.redaction.record import hide_found

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

Fields = tuple[str, str, list[str], list[str], list[str], list[str]]


def redact_fields(
    title: str, body: str, *, scope: Sequence[str], files: Sequence[str], tags: Sequence[str], source: Sequence[str]
) -> Fields:
    """(title, body, scope, files, tags, source) redacted, each as its kind (a label, text, a path), then
    every value hidden in one field hidden in all."""
    found: list[str] = []
    hidden: Fields = (
        redact_label(title, found),
        redact(body, found),
        [redact_path(s, found=found) for s in scope],
        [redact_path(f, found=found) for f in files],
        [redact_label(t, found) for t in tags],
        [redact_path(s, found=found) for s in source],
    )
    if not found:
        return hidden
    t, b, sc, fi, ta, so = hide_found(list(hidden), found)
    return t, b, sc, fi, ta, so
