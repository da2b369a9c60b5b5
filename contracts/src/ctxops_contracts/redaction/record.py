"""Cross-field redaction: a value hidden in one field of a record is hidden in all of its fields.

A payload or a memory says the same secret in several places, and only one of them may mark it: a Write
event holds ``password = kafka123`` in its content and ``notes/kafka123.txt`` as its file path; ``ctx mem
add`` gets the same word in its text and its title, ``--file`` and ``--source``. The engine hides the value
where its context gives it away; ``redact_record`` then hides it in every string and key of the record.

Two passes, linear in the record: the engine's walk (``redact_value``) collects what it hid; one pattern,
a trie of the values found (``literals``: a position costs at most the length of the longest value),
replaces them everywhere else. A value propagates only when it is a credential rather than a word
(``propagates``): 6+ characters (8+ when only letters), not a placeholder, a stock word or a secret's name
alone.
"""

from __future__ import annotations

from .context import FOUND_MIN
from .engine import LABELS, SECRET, redact_value
from .literals import WORD_CHARS, literal_pattern
from .names import is_id_reference, is_placeholder, is_stock_secret_name, is_stock_word

TYPE_CHECKING = False  # typing and re are not imported on the hook path; type checkers treat this as True
if TYPE_CHECKING:
    import re
    from typing import Any

FOUND_MAX = 256  # a longer value is a key its own shape gives away wherever it is; it bounds a match's cost
_MARKERS = "\n".join(f"[REDACTED:{label}]" for label in LABELS)  # a value inside a marker is never hunted
_UNRESERVED = WORD_CHARS | frozenset("-._~")


def propagates(value: str) -> bool:
    """``value`` (hidden somewhere) is hidden everywhere in its record: a credential, not a word. Short values
    (under 6 characters, under 8 of letters alone), placeholders (``changeme``, ``<token>``), stock words,
    a secret's name alone (``password``, ``api_key``) and bare UUIDs and ULIDs (ids) stay where they are."""
    if not FOUND_MIN <= len(value) <= FOUND_MAX or "\n" in value or "\r" in value:
        return False
    if "REDACTED" in value or value in _MARKERS or value != value.strip():
        return False
    if len(value) < 8 and value.isalpha():
        return False  # a short plain word (``dragon``, ``letmein``): hidden where assigned, a word elsewhere
    if is_id_reference(value):
        return False  # a UUID or ULID: the session and event ids a payload is keyed on (its transcript's name)
    # a secret's name alone (``password``, ``api_key``) must not blank that word elsewhere; a chosen value that
    # merely holds such a word (``ourTeamToken``) is carried like any other
    return not (is_placeholder(value) or is_stock_word(value) or is_stock_secret_name(value))


def _url_quoted(value: str, plus: bool = False) -> str:
    """``urllib.parse.quote(value, safe="")`` (``quote_plus`` with ``plus``), without importing urllib."""
    out = []
    for byte in value.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in _UNRESERVED:
            out.append(ch)
        elif plus and ch == " ":
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _forms(value: str) -> list[str]:
    """``value`` and the encodings a field may hold it in: URL-quoted (a query, a file name), JSON-escaped."""
    forms = [value]
    if any(ch not in _UNRESERVED for ch in value):
        forms += [_url_quoted(value), _url_quoted(value, plus=True)]
    if '"' in value or "\\" in value:
        forms.append(value.replace("\\", "\\\\").replace('"', '\\"'))
    return forms


def _parts(value: str) -> list[str]:
    """``value``, and when it is a URL or a path its last segment of 8+ characters: the secret part of a
    webhook hidden whole (``hooks.slack.com/services/T…/B…/<secret>``), written alone as a file name."""
    last = value.rstrip("/").rpartition("/")[2]
    return [value, last] if "/" in value and len(last) >= 8 and last != value else [value]


def matcher(found: list[str]) -> re.Pattern[str] | None:
    """One pattern matching every form of every value of ``found`` that ``propagates``, at word edges; None
    when none does. Its cost per position is bounded by ``FOUND_MAX``, whatever the number of values."""
    wanted = [part for value in dict.fromkeys(found) for part in _parts(value) if propagates(part)]
    values = {form for value in wanted for form in _forms(value)}
    return literal_pattern(sorted(values), edges=True) if values else None


def hide_found(value: Any, found: list[str]) -> Any:
    """``value`` (a string, or a JSON-like tree: strings, dict keys, lists) with every value of ``found``
    that ``propagates`` replaced by a marker wherever it occurs."""
    pattern = matcher(found)
    return value if pattern is None else _replace(value, pattern)


def _replace(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(SECRET, value)
    if isinstance(value, list):
        return [_replace(item, pattern) for item in value]
    if isinstance(value, tuple):
        return tuple(_replace(item, pattern) for item in value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = pattern.sub(SECRET, key) if isinstance(key, str) else key
            if name != key and name in out:  # two keys that each held a secret stay two keys
                name = f"{name}~{len(out)}"
            out[name] = _replace(item, pattern)
        return out
    return value


def redact_record(
    value: Any,
    *,
    max_string: int | None = None,
    max_items: int | None = None,
    max_depth: int | None = None,
    max_chars: int | None = None,
) -> Any:
    """``redact_value`` (with its bounds), then every value it hid hidden in every other field too: strings,
    dict keys, file paths, titles, ids."""
    found: list[str] = []
    safe = redact_value(
        value, max_string=max_string, max_items=max_items, max_depth=max_depth, max_chars=max_chars, found=found
    )
    return hide_found(safe, found) if found else safe
