"""detect-secrets (Yelp) as a redactor, the peer measured beside ``redact()``.

    uv run --with detect-secrets python bench/redaction_corpus.py --peer redaction_peer:redact

Each sample is written to a file and scanned as detect-secrets scans a repository's files (``scan_file``,
default plugins and filters). Every finding is masked on its line; detect-secrets reports some tokens by
their first group only (``ghp`` of a GitHub token), so the mask runs over the whole token holding the value
(up to a space, a quote or a separator), which is what a redactor built on it would have to hide.
"""

from __future__ import annotations

import os
import re
import tempfile

_TOKEN_CHAR = re.compile(r"[^\s'\"`,;<>(){}\[\]]")


def _mask(line: str, value: str) -> str:
    start = line.find(value)
    if start < 0 or not value:
        return line
    end = start + len(value)
    while start > 0 and _TOKEN_CHAR.match(line[start - 1]) and line[start - 1] not in "=:":
        start -= 1
    while end < len(line) and _TOKEN_CHAR.match(line[end]):
        end += 1
    return line[:start] + "[REDACTED]" + line[end:]


def redact(text: str) -> str:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sample.txt")  # noqa: PTH118 - a throw-away file
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        with default_settings():
            found = [(s.line_number, s.secret_value) for s in scan_file(path)]
    if not found:
        return text
    lines = text.split("\n")
    for number, value in found:
        if value and 0 < number <= len(lines):
            lines[number - 1] = _mask(lines[number - 1], value)
    return "\n".join(lines)
