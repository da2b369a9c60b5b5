"""Secret redaction, applied before anything touches disk: ``redact(text)`` and ``redact_value(json_value)``.

Three layers, cheapest first:

- provider formats (``secret_formats``): tokens whose shape gives them away (``ghp_...``, ``AKIA...``);
- context (``secret_context``): a value assigned to a secret-named variable, key, flag, query parameter or
  header (JSON, YAML, TOML, HCL, INI, ``.env``, shell), URLs with credentials, PEM blocks, prose such as
  "密码是 X", and long random strings next to a secret-like word;
- structure (``redact_value``): JSON keys named like secrets hide their value whatever its shape, and a
  private key split across list items (a diff's lines) is hidden as a block.

Each marker names what it hid (``[REDACTED:github-token]``). Every pattern runs in linear time; callers
on the hook path bound the input first (``redact_value(..., max_string=...)``, ``window``).
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import lazy

from .context import RULES as CONTEXT_RULES
from .context import (
    ends_in_freenet_request,
    is_base64_key,
    is_grouped_key,
    is_key_begin,
    is_key_end,
    is_random,
    private_keys,
    scan,
)
from .formats import FORMATS
from .names import (
    ASSET_EXTENSIONS,
    assigned_name,
    is_digest_slug,
    is_fake_name,
    is_hex,
    is_id_reference,
    is_key_name,
    is_malformed_token,
    is_placeholder,
    is_placeholder_token,
    is_public_key_der,
    is_secret_name,
    path_token,
    random_word,
    words,
)

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

SECRET = "[REDACTED:secret]"
KEY_MARKER = "[REDACTED:private-key]"
LABELS: tuple[str, ...] = (
    "private-key",
    "token",
    "path-token",
    *(label for label, _, _ in FORMATS),
    *dict.fromkeys(label for label, _, _, _ in CONTEXT_RULES),
)


# Every needle once: which are present is found in one pass over the list; then only the rules one of them
# gates are visited, in the rules' order (a generator and any() per rule cost the hook path about a
# millisecond per event; asking each of the ~100 rules whether the set meets its needles, ~0.1 ms).
_FORMAT_NEEDLES = tuple(dict.fromkeys(needle for _, needles, _ in FORMATS for needle in needles))
_CONTEXT_NEEDLES = tuple(dict.fromkeys(needle for _, required, _, _ in CONTEXT_RULES for needle in required or ()))
_FORMATS_OF: dict[str, list[int]] = {}  # needle -> the formats it gates, by index
for _index, (_label, _needles, _pattern) in enumerate(FORMATS):
    for _needle in dict.fromkeys(_needles):
        _FORMATS_OF.setdefault(_needle, []).append(_index)
_CONTEXT_OF: dict[str, list[int]] = {}  # needle -> the context rules it gates, by index
for _index, (_label, _required, _pattern, _handler) in enumerate(CONTEXT_RULES):
    for _needle in dict.fromkeys(_required or ()):
        _CONTEXT_OF.setdefault(_needle, []).append(_index)
_ALWAYS = [i for i, (_, required, _, _) in enumerate(CONTEXT_RULES) if required is None]


def _gated(present: set[str], rules_of: dict[str, list[int]], start: int = 0) -> list[int]:
    """Indexes (from ``start``, ascending) of the rules that a needle in ``present`` gates."""
    return sorted({i for needle in present for i in rules_of[needle] if i >= start})


def _marker(marker: str, hidden: list[str]) -> Callable[[re.Match[str]], str]:
    """The replacement of a provider format's match: the marker, unless the match is a documentation sample."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        after = match.string[match.end() : match.end() + 4]
        # ``ops_eyJzaWdu...`` in docs; ``xoxp-<ids>-####...``: the random part written masked, a sample
        truncated = after[:3] in {"...", "…"} or after in {"####", "****"}
        if truncated or is_placeholder_token(token) or is_malformed_token(token):
            return token  # a sample, or a provider's prefix without its documented shape: a look-alike
        if is_fake_name(assigned_name(match.string, match.start())):
            return token  # ``wrongLength := "<token>"``: a value written to fail
        hidden.append(token)
        return marker

    return replace


def redact(text: str, found: list[str] | None = None) -> str:
    """``text`` with every secret the rules know replaced by a labelled marker. Idempotent.

    Text that holds escaped line breaks, tabs or quotes (a command echoing a Python ``repr``, JSON inside
    JSON, a log line of an escaped string) is also read with them unescaped, so the context around a value
    (``\\n[DEBUG] Using Key=...``) is seen as it was written; a value hidden there is hidden in the text.
    With ``found``, the values hidden are appended to it (``record.redact_record`` hides them in a record's
    other fields)."""
    if not text:
        return text
    if "\\" in text:
        decoded = _unescape(text)
        if decoded != text:  # what the unescaped reading hides is hidden first, before markers split it
            hidden: list[str] = []
            _redact(decoded, hidden)
            if found is not None:
                found.extend(hidden)
            text = _hide_copies(text, [value for value in hidden if "\n" not in value])
    hidden = []
    text = _redact(text, hidden)
    if found is not None:
        found.extend(hidden)
    return _hide_printable(text, paths=True, found=found) if "/" in text else text


_ESCAPES = (("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ('\\"', '"'), ("\\'", "'"))


def _unescape(text: str) -> str:
    """Escaped line breaks, tabs and quotes as the characters they stand for (repeatedly: ``\\\\n`` too)."""
    for _ in range(3):
        before = text
        text = text.replace("\\\\", "\\")
        for escaped, plain in _ESCAPES:
            text = text.replace(escaped, plain)
        if text == before:
            break
    return text


def _redact(text: str, hidden: list[str]) -> str:
    """One pass of every layer; each value a rule hid (8+ characters, one line) is appended to ``hidden``."""
    text = private_keys(text)
    todo = _gated({needle for needle in _FORMAT_NEEDLES if needle in text}, _FORMATS_OF)
    at = 0
    while at < len(todo):
        index = todo[at]
        at += 1
        label, _, pattern = FORMATS[index]
        redacted = pattern.sub(_marker(f"[REDACTED:{label}]", hidden), text)
        if redacted != text:  # the later rules look at the text as it is now
            text = redacted
            todo = _gated({needle for needle in _FORMAT_NEEDLES if needle in text}, _FORMATS_OF, index + 1)
            at = 0
    lowered = text.lower()  # context rules are gated on lower-case needles (a cheap C-level scan each)
    found = {needle for needle in _CONTEXT_NEEDLES if needle in lowered}
    for index in sorted({*_ALWAYS, *_gated(found, _CONTEXT_OF)}):
        _label, _required, handler_pattern, handler = CONTEXT_RULES[index]
        start = len(hidden)
        text = scan(text, handler_pattern, handler, hidden)
        # a value hidden once is hidden wherever else it appears, before a later rule cuts a copy in pieces
        if len(hidden) > start:
            text = _hide_copies(text, hidden[start:])
    return text


_COPIES_ONE_BY_ONE = 8  # more values than this are hidden by one pattern: a scan of the text each is quadratic


def _hide_copies(text: str, values: list[str]) -> str:
    """Every copy of each value (8+ characters, not a placeholder) in ``text`` replaced by a marker."""
    wanted = [value for value in dict.fromkeys(values) if len(value) >= 8 and not is_placeholder(value)]
    if len(wanted) <= _COPIES_ONE_BY_ONE:
        for value in wanted:
            if value in text:
                text = text.replace(value, SECRET)
        return text
    from .literals import literal_pattern  # thousands of values in one text (a dump of credentials)

    return literal_pattern(wanted, edges=False).sub(SECRET, text)


def _path_segment(part: str, digests: bool = False, found: list[str] | None = None) -> str:
    """One file or directory name: a token (its extension kept), else redacted as text. With ``digests`` (a
    git object store) a name of hex digits is a digest and kept. A token hidden is appended to ``found``."""
    stem, dot, ext = part.rpartition(".")
    if not dot or len(ext) > 6 or not stem:
        stem, ext, dot = part, "", ""
    if digests and is_hex(stem):
        return part
    if ext.lower() in ASSET_EXTENSIONS and is_digest_slug(stem):
        return part  # a fingerprinted asset: ``application-<sha256>.css``
    if path_token(stem) or random_word(stem, label=True) or is_grouped_key(stem):
        if found is not None:
            found.append(stem)
        return f"[REDACTED:path-token]{dot}{ext}"
    head, colon, tail = stem.rpartition(":")  # a reference ``s:<key>``: the part after the colon alone
    if colon and tail and (head in ID_TAGS and is_id_reference(tail)):
        return part  # ctxops's own `session:<uuid>`, `event:<ulid>` reference
    if colon and tail and (path_token(tail) or random_word(tail, label=True) or is_grouped_key(tail)):
        if found is not None:
            found.append(tail)
        return f"{head}:[REDACTED:path-token]{dot}{ext}"
    return _hide_words(redact(_hide_printable(part, found=found), found), found)


_WORD = lazy(r"(?<![A-Za-z0-9+/=_.~:-])[A-Za-z0-9+/=_.~:-]{12,8000}+(?![A-Za-z0-9+/=_.~:-])")
_WORD_EDGE = ".:=-_~/+"


def _hide_words(text: str, found: list[str] | None = None) -> str:
    """Every word of ``text`` that is a key standing alone (``random_word``, ``path_token``, an unmistakably
    random token) replaced by a marker; trailing punctuation is kept. Each word hidden is appended to ``found``."""
    if len(text) < 12:
        return text

    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        core = word.strip(_WORD_EDGE)
        if len(core) < 12 or "REDACTED" in word:
            return word
        lead = word[: word.find(core)]
        tail = word[len(lead) + len(core) :]
        stem, dot, ext = core.rpartition(".")
        if dot and stem and 1 <= len(ext) <= 6 and ext.isalnum() and not random_word(core, label=True):
            core, tail = stem, dot + ext + tail  # a file name: its extension is kept
        if len(core) >= 12 and (
            random_word(core, label=True)
            or path_token(core)
            or is_random(core)
            or is_grouped_key(core)
            or is_base64_key(core)
        ):
            if found is not None:
                found.append(core)
            return f"{lead}[REDACTED:token]{tail}"
        return word

    return _WORD.sub(replace, text)


_CHUNK = lazy(r"\S{32,20000}+")
# Maven's encrypted server password, an element of settings.xml alone on its line (guide-encryption): ciphertext
_MAVEN_ELEMENT = lazy(r"<pass(?:word|phrase)>\{[A-Za-z0-9+/]{11,400}+={0,2}\}</pass(?:word|phrase)>")
_MARKER = lazy(r"\[REDACTED:[a-z0-9-]{1,40}+\]")
_SRI_DIGEST = lazy(r"sha(?:256|384|512)-[A-Za-z0-9+/]{40,88}+={0,2}")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _letter_digit_turns(chunk: str) -> int:
    """How often a letter and a digit touch (``t64f``: 2): random text turns often, names and dates rarely."""
    kinds = [ch.isdigit() - ch.isalpha() for ch in chunk]  # 1 a digit, -1 a letter, 0 anything else
    return sum(1 for at in range(1, len(kinds)) if kinds[at] * kinds[at - 1] == -1)


def _printable_key(chunk: str) -> bool:
    """A generated password over all of printable ASCII (``k3#Q)w9&Zp{...``, 32+ characters with no space):
    capitals, small letters, digits (3+ each) and 4+ kinds of punctuation, at the entropy random text of that
    length reaches; or 40+ with no capital at all (Django's secret keys). Minified code, JSON and URLs repeat
    their few symbols and stay well under it."""
    if "[REDACTED:" in chunk:  # judged without the markers earlier rules put in it
        chunk = _MARKER.sub("", chunk)
        if len(chunk) < 32:
            return False
    if "://" in chunk:
        return False
    if "sha" in chunk:  # a subresource-integrity digest (``integrity="sha384-<base64>"``) is no password
        chunk = _SRI_DIGEST.sub("", chunk)
        if len(chunk) < 32:
            return False
    upper = lower = digits = 0
    marks: set[str] = set()
    for ch in chunk:
        if ch.isupper():
            upper += 1
        elif ch.islower():
            lower += 1
        elif ch.isdigit():
            digits += 1
        elif ch in _PUNCTUATION:
            marks.add(ch)
    if min(lower, digits) < 3 or len(marks) < 4 or (upper < 3 and (upper or len(chunk) < 40)):
        return False
    import math

    from .context import entropy

    # no capitals (Django's ``get_random_secret_key``: 50 of a-z, 0-9 and ``!@#$%^&*(-_=+)``): a smaller
    # alphabet, whose random text reaches a lower entropy
    if not upper and (_letter_digit_turns(chunk) < 4 or sum(ch in _PUNCTUATION for ch in chunk) < 6):
        return False  # ``button-group_2024-01-01_v3@latest``, ``application-<md5>.css">``: names, a digest
    slack = 0.75 if upper else 1.25
    return entropy(chunk) >= min(5.2, math.log2(len(chunk)) - slack)


def _mostly_digest(chunk: str) -> bool:
    """Most of ``chunk`` is a subresource-integrity digest (``integrity="sha384-<base64>"></script>``)."""
    found = _SRI_DIGEST.search(chunk) if "sha" in chunk else None
    return found is not None and 2 * len(found.group(0)) >= len(chunk)


def _hide_printable(text: str, *, paths: bool = False, found: list[str] | None = None) -> str:
    """Every run of 32+ non-space characters that is a generated password (``_printable_key``) as a marker: a
    label or a file name has no context to find it by, and the word rules split it at its punctuation. With
    ``paths`` (running text) only the names of a path are judged, each alone (``cat notes/<password>.txt``)."""
    if len(text) < 32:
        return text

    def replace(match: re.Match[str]) -> str:
        chunk = match.group(0)
        if not paths:
            if not _printable_key(chunk):
                return chunk
            if found is not None:
                found.append(chunk)
            return "[REDACTED:token]"
        if (
            "/" not in chunk
            or "ENC[" in chunk
            or "://" in chunk
            or _mostly_digest(chunk)
            or _MAVEN_ELEMENT.fullmatch(chunk)
        ):
            return chunk  # no path; SOPS ciphertext (``ENC[AES256_GCM,data:...]``); a URL (its own rules); a digest
        if is_public_key_der(chunk.strip("\"';,()")):
            return chunk  # a DER public key in base64 holds slashes: not a path
        parts = chunk.split("/")
        hidden = [
            "[REDACTED:path-token]"
            if len(part) >= 32 and _printable_key(part) and not (i == 0 and ends_in_freenet_request(part))
            else part
            for i, part in enumerate(parts)
        ]
        if found is not None:
            found.extend(part for part, kept in zip(parts, hidden, strict=True) if part != kept)
        return "/".join(hidden)

    return _CHUNK.sub(replace, text)


# A short key (8 to 11 characters, under the floor of a bare word) is hidden in a label only where its
# context marks it: a key-shaped name before it (``token: a8x3k29q0bz``, ``api key 7hq2m4x9lp``) or a
# known key prefix (``sk_9x2kq7mz``). A short word alone (``t 3k9x2lq8mzp``) cannot be told from an id.
_SHORT_KEY = lazy(
    r"(?:(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_.-]{1,40}+)[ \t]*+[:=]?[ \t]*+)?+"
    r"(?<![A-Za-z0-9_-])([A-Za-z0-9_-]{8,11}+)(?![A-Za-z0-9_.-])"
)
_KEY_PREFIXES = ("sk_", "sk-", "rk_", "pat_", "key_", "key-", "tok_", "api_", "api-", "secret_", "token_")


def _short_keys(text: str, found: list[str] | None = None) -> str:
    def replace(match: re.Match[str]) -> str:
        name, word = match.group(1), match.group(2)
        digits = sum(ch.isdigit() for ch in word)
        if digits < 2 or sum(ch.isalpha() for ch in word) < 2 or is_placeholder(word) or is_placeholder_token(word):
            return match.group(0)
        marked = word.lower().startswith(_KEY_PREFIXES) or (
            name is not None and (is_secret_name(name) or is_key_name(name) or words(name)[-1:] == ["key"])
        )
        if not marked:
            return match.group(0)
        if found is not None:
            found.append(word)
        return match.group(0)[: match.start(2) - match.start()] + "[REDACTED:token]"

    return _SHORT_KEY.sub(replace, text)


# Tags ctxops writes as `<kind>:<id>`, the id a session id (UUID) or an event or memory id (ULID).
ID_TAGS = frozenset({"session", "event", "memory"})


def redact_label(text: str, found: list[str] | None = None) -> str:
    """A short field a person names something with (a memory's title, a tag): ``redact``, and every word in
    it that is a key standing alone is hidden too (``deploy with 1zlu5oxgeyx5...``), a UUID included. In
    running text such a word may be an id or a digest and is judged by its context; a label has none. The
    values hidden are appended to ``found``."""
    if not text:
        return text
    prefix, colon, rest = text.partition(":")
    if colon and prefix in ID_TAGS and is_id_reference(rest):
        return text  # ctxops's own reference tag (a digest's `session:<uuid>`): looked up by, never a key
    hidden = _hide_words(redact(_hide_printable(text, found=found), found), found)
    return _short_keys(hidden, found) if len(hidden) >= 8 else hidden


def redact_path(path: str, *, keyed: bool = False, found: list[str] | None = None) -> str:
    """A file path (or a glob, a scope, a source reference) with any secret in it hidden.

    A path is text like any other: a token in a file name (``notes/ghp_....txt``), an assignment used as a
    directory name, credentials in a URL. With ``keyed``, a path that changed gets ``#`` and a short digest
    of the original appended, so two different secret-bearing paths stay two keys (the guard's read
    bookkeeping) without either being stored. The values hidden are appended to ``found``.
    """
    if not path or is_id_reference(path):
        return path  # a session id, an event id: the references ctxops records as a memory's source
    if "://" in path:  # a URL: credentials in its user part, tokens in its query
        hidden = redact(path, found)
    else:  # each file or directory name alone: a token is a whole name
        head, colon, tail = path.rpartition(":")  # ``s:<key>``: a base64 key holding '/' is one name, not a path
        if is_base64_key(path) or (colon and is_base64_key(tail)):
            if found is not None:
                found.append(tail if colon and not is_base64_key(path) else path)
            return (
                f"{head}{colon}[REDACTED:path-token]" if colon and not is_base64_key(path) else "[REDACTED:path-token]"
            )
        sep = "\\" if "\\" in path and "/" not in path else "/"
        digests = "/objects/" in path or "\\objects\\" in path  # .git/objects/3f/9a1c...: digests
        hidden = sep.join(_path_segment(part, digests, found) for part in path.split(sep))
    if hidden == path or not keyed:
        return hidden
    import hashlib  # only a path that held a secret pays for it

    return f"{hidden}#{hashlib.sha256(path.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


# --- bounded windows ----------------------------------------------------------------------------------

_EDGE = 256  # how far back a cut looks for whitespace, so no token is left half-visible at the edge


def _cut_head(text: str, size: int) -> str:
    """The first ``size`` characters, ending at whitespace (a token cut in half is dropped whole)."""
    piece = text[:size]
    space = max(piece.rfind(" ", size - _EDGE), piece.rfind("\n", size - _EDGE), piece.rfind("\t", size - _EDGE))
    return piece[: space + 1] if space >= 0 else piece[: max(0, size - _EDGE)]


def _cut_tail(text: str, size: int) -> str:
    """The last ``size`` characters, starting after whitespace."""
    piece = text[-size:]
    limit = min(len(piece), _EDGE)
    cuts = [i for i in (piece.find(" ", 0, limit), piece.find("\n", 0, limit), piece.find("\t", 0, limit)) if i >= 0]
    return piece[min(cuts) + 1 :] if cuts else piece[limit:]


def window(text: str, head: int, tail: int = 0) -> str:
    """``text`` when it is short, else its first ``head`` and last ``tail`` characters around a marker.

    Taken *before* redaction so huge text stays cheap; the cuts fall on whitespace, so a secret crossing
    a cut is dropped rather than stored as an unrecognisable fragment.
    """
    if len(text) <= head + tail + 64:
        return text
    first = _cut_head(text, head)
    last = _cut_tail(text, tail) if tail else ""
    omitted = len(text) - len(first) - len(last)
    return (
        f"{first}\n[... {omitted} characters omitted ...]\n{last}"
        if last
        else f"{first}\n[... {omitted} more characters]"
    )


# --- structure ----------------------------------------------------------------------------------------


class _Budget:
    """How much a bounded walk may still look at (characters of text and nodes), and what it hid (``found``)."""

    __slots__ = ("chars", "found", "nodes")

    def __init__(self, chars: int, nodes: int, found: list[str] | None = None) -> None:
        self.chars = chars
        self.nodes = nodes
        self.found = found


def _hide(item: Any, found: list[str] | None = None) -> Any:
    """The value of a secret-named key: hidden whatever its shape; empty values and placeholders stay. A
    string hidden is appended to ``found``."""
    if item is None or isinstance(item, bool) or (isinstance(item, (str, list, dict)) and not item):
        return item
    if isinstance(item, str) and (is_placeholder(item) or item.startswith("[REDACTED")):
        return item
    if found is not None and isinstance(item, (str, int)):
        found.append(str(item))
    return SECRET


def _lines_with_keys(items: list[Any]) -> list[Any]:
    """A list whose string items split a private key (``-----BEGIN``, body lines, ``-----END``): the whole
    block becomes markers, keeping a diff line's leading ``+``/``-``/space so line counts still add up."""
    inside = False
    out = list(items)
    ends = {i for i, item in enumerate(items) if isinstance(item, str) and is_key_end(item)}
    begins = {i for i, item in enumerate(items) if isinstance(item, str) and is_key_begin(item)}
    if not ends and not begins:
        return out
    if ends and (not begins or min(ends) < min(begins)):
        inside = True  # the list starts inside a key (its BEGIN was cut off)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            continue
        if i in begins:
            inside = True
        if inside:
            lead = item[:1] if item[:1] in {"+", "-", " "} and not item.startswith("-----") else ""
            out[i] = lead + KEY_MARKER
        if i in ends:
            inside = False
    return out


def _as_lines(items: list[str], found: list[str] | None = None) -> list[str]:
    """Items that are lines of one text (a diff hunk, output lines): redacted together as well, so a secret
    spanning lines (a YAML block, a multi-line assignment) is found. When that changes the number of
    lines, the list becomes the redacted text's lines: losing a line count beats keeping a secret."""
    joined = "\n".join(items)
    hidden = redact(joined, found)
    return items if hidden == joined else hidden.split("\n")


def redact_value(
    value: Any,
    *,
    max_string: int | None = None,
    max_items: int | None = None,
    max_depth: int | None = None,
    max_chars: int | None = None,
    found: list[str] | None = None,
) -> Any:
    """A copy of a JSON-like value with every secret hidden (each value hidden appended to ``found``).

    Strings are redacted; a value under a secret-named key (``password``, ``SecretAccessKey``, ``auth``,
    ``client_token``...) is hidden whatever its shape; a private key split across list items is hidden as
    a block. The bounds (all optional) make the walk's cost independent of the input's size: strings are
    windowed to ``max_string`` characters (head and tail) *before* redaction, lists and objects keep
    ``max_items`` entries, nesting stops at ``max_depth``, and after ``max_chars`` characters of text in
    all, further strings are omitted.
    """
    budget = _Budget(max_chars if max_chars is not None else -1, -1, found)
    return _walk(value, 0, budget, max_string=max_string, max_items=max_items, max_depth=max_depth)


def _walk(
    value: Any, depth: int, budget: _Budget, *, max_string: int | None, max_items: int | None, max_depth: int | None
) -> Any:
    if isinstance(value, str):
        if max_string is not None:
            value = window(value, max_string, max_string // 2)
        if budget.chars >= 0:
            if budget.chars == 0:
                return f"[{len(value)} characters omitted: size limit]"
            budget.chars = max(0, budget.chars - len(value))
        return redact(value, budget.found)
    if not isinstance(value, (dict, list)):
        return value
    if max_depth is not None and depth >= max_depth:
        return f"[{type(value).__name__} nested too deep]"
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for n, (key, item) in enumerate(value.items()):
            if max_items is not None and n >= max_items:
                out["[more]"] = f"{len(value) - max_items} more keys"
                break
            name = key if isinstance(key, str) else str(key)
            if is_secret_name(name):
                out[redact(name, budget.found) if len(name) > 12 else name] = _hide(item, budget.found)
            else:
                out[redact(name, budget.found) if len(name) > 12 else name] = _walk(
                    item, depth + 1, budget, max_string=max_string, max_items=max_items, max_depth=max_depth
                )
        return out
    items = _lines_with_keys(value if max_items is None else value[:max_items])
    walked = [
        _walk(item, depth + 1, budget, max_string=max_string, max_items=max_items, max_depth=max_depth)
        for item in items
    ]
    if len(walked) > 1 and all(isinstance(item, str) for item in walked):
        walked = _as_lines(walked, budget.found)
    if max_items is not None and len(value) > max_items:
        walked.append(f"[{len(value) - max_items} more items]")
    return walked
