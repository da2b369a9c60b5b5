"""Secrets found by their context rather than their shape: assignments, flags, URLs, headers, prose, PEM blocks.

Each rule is a scan (``scan``) that finds a candidate with a linear-time pattern and lets a small handler
decide, by the name and the value's shape (``secret_names``), whether and what to hide. Names are kept and
values hidden, so an event still says *which* secret a command used.
"""

from __future__ import annotations

from bisect import bisect_left

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import lazy

from .names import (
    ASSET_EXTENSIONS,
    MAVEN_CIPHER,
    assigned_name,
    holds_documented_key,
    is_digest_slug,
    is_fake_name,
    is_hex,
    is_jose_header,
    is_key_name,
    is_malformed_token,
    is_password_class,
    is_placeholder,
    is_placeholder_token,
    is_public_key_der,
    is_public_name,
    is_public_token,
    is_random_token,
    is_secret_name,
    is_secret_value,
    is_sequence_sample,
    is_stock_word,
    looks_like_credential,
    path_token,
    random_word,
    sample_userinfo,
    spells_words,
    words,
)

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    # A handler gets the match and returns (replacement, end of the replaced span) or None to keep it.
    Handler = Callable[[re.Match[str]], tuple[str, int] | None]

SECRET = "[REDACTED:secret]"
_CJK_STOP = "，。；、）」』”’：！？　"
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "「": "」", "『": "』", "‘": "’"}
_MAX_VALUE = 400
FOUND_MIN = 6  # the shortest hidden value ``scan`` reports (the text's own copies are hidden from 8: ``engine``)
_LONG_VALUE = 20_000  # how far a quoted value longer than _MAX_VALUE may run to its closing quote


def scan(text: str, pattern: re.Pattern[str], handler: Handler, hidden: list[str] | None = None) -> str:
    """Replace what ``handler`` says to replace at each match of ``pattern``, left to right, in one pass.

    Each value hidden (what a marker replaced) is appended to ``hidden``, so the caller can hide its other
    copies in the text too (``token = 'x' ... echo 'x'``)."""
    out: list[str] = []
    last = pos = 0
    search = pattern.search
    while True:
        match = search(text, pos)
        if match is None:
            break
        verdict = handler(match)
        if verdict is None:
            pos = match.end() if match.end() > match.start() else match.start() + 1
            continue
        replacement, end = verdict
        if hidden is not None and "[REDACTED" in replacement:
            for under in under_markers(text[match.start() : max(end, match.end())], replacement):
                # a multi-line value (a YAML block) line by line: an escaped copy joins its lines with ``\n``
                for line in under.split("\n"):
                    value = line.strip("'\"` \t\r")
                    if len(value) >= FOUND_MIN:
                        hidden.append(value)
        out.append(text[last : match.start()])
        out.append(replacement)
        last = pos = max(end, match.end())
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def under_markers(span: str, replacement: str) -> list[str]:
    """What each marker of ``replacement`` stands for in ``span`` (the text it replaced): the literal pieces
    between markers are found in ``span`` in order (``k = "[REDACTED:secret]", "[REDACTED:secret]"`` over
    ``k = "a1", "b2"``: ``a1`` and ``b2``). Nothing when the pieces do not line up. Linear: each piece is
    looked for once, from where the previous one ended."""
    pieces: list[str] = []
    at = 0
    while True:
        start = replacement.find("[REDACTED", at)
        close = replacement.find("]", start) if start >= 0 else -1
        if close < 0:
            pieces.append(replacement[at:])
            break
        pieces.append(replacement[at:start])
        at = close + 1
    head, tail = pieces[0], pieces[-1]
    stop = len(span) - len(tail)
    if len(pieces) < 2 or stop < len(head) or not span.startswith(head) or not span.endswith(tail):
        return []
    values: list[str] = []
    pos = len(head)
    for piece in pieces[1:-1]:
        found = span.find(piece, pos, stop) if piece else -1  # two markers side by side: no telling apart
        if found < 0:
            return values
        values.append(span[pos:found])
        pos = found + len(piece)
    values.append(span[pos:stop])
    return values


# A bare value ends at whitespace, a quote, a bracket, a separator or CJK punctuation (and at \" in JSON).
# Matched with ``endpos`` = start + 400: possessive loops, no bounded alternation (it is ~10x slower).
_BARE_CLASS = r"[^\s'\"`,;()\[\]{}>&<" + _CJK_STOP + r"\\]"
_BARE_VALUE = lazy(_BARE_CLASS + r"*+(?:\\(?![\"'nrt])" + _BARE_CLASS + r"*+)*+")  # stops at an escaped \n
_PROSE_VALUE = lazy(r"[A-Za-z0-9!#$%*+\-./:=?@^_|~]*+")  # ASCII: it stops where Chinese text resumes
# The inside of a quoted value, up to its closing quote (escapes skipped) or the end of the line. No closing
# quote is special inside a character class, so none needs escaping (re.escape would cost importing re).
_QUOTED_VALUE = {
    quote: lazy(r"[^" + closer + r"\\\n]*+(?:\\[^\n][^" + closer + r"\\\n]*+)*+") for quote, closer in _QUOTES.items()
}


def read_value(text: str, at: int) -> tuple[int, int, bool]:
    """The value starting at ``at``: (start, end, quoted). A quoted value runs to its closing quote on the line;
    an unclosed one to the end of the line (or 400 characters)."""
    if at >= len(text):
        return at, at, False
    first = text[at]
    escaped = first == "\\" and text[at + 1 : at + 2] in {'"', "'"}
    opener = text[at + 1] if escaped else first
    closer = _QUOTES.get(opener)
    if closer is not None:
        start = at + (2 if escaped else 1)
        if escaped:  # JSON inside JSON: the value ends at the next \" (its content has no bare quote)
            stop = text.find("\\" + closer, start, start + _MAX_VALUE)
            line = text.find("\n", start, start + _MAX_VALUE)
            if stop >= 0 and (line < 0 or stop < line):
                return start, stop, True
            return start, line if line >= 0 else min(len(text), start + _MAX_VALUE), True
        body = _QUOTED_VALUE[opener].match(text, start, start + _MAX_VALUE)
        end = body.end() if body else start
        if end == start + _MAX_VALUE:  # longer than a value usually is: run on to its closing quote
            stop = text.find(closer, end, end + _LONG_VALUE)
            line = text.find("\n", end, end + _LONG_VALUE)
            end = stop if stop >= 0 and (line < 0 or stop < line) else (line if line >= 0 else end)
        return start, end, True
    match = _BARE_VALUE.match(text, at, at + _MAX_VALUE)
    end = match.end() if match else at
    if end == at + _MAX_VALUE:  # a token longer than a value usually is: hidden whole, not cut at 400
        longer = _BARE_VALUE.match(text, at, at + _LONG_VALUE)
        end = longer.end() if longer else end
    return at, end, False


def _line_start(text: str, at: int) -> bool:
    """True when only indentation or ``export``/``set``/``- `` precede ``at`` on its line."""
    begin = max(0, at - 24)
    head = text[begin:at]
    cut = head.rfind("\n")
    if cut >= 0:
        head = head[cut + 1 :]
    elif begin > 0:
        return False
    return head.strip() in {"", "export", "set", "-", "+", "setenv", "declare -x", "env"}  # "+": a diff line


# --- name = value ------------------------------------------------------------------------------------

_ASSIGN = lazy(
    r"(?:(?<![A-Za-z0-9_.$@\\-])|(?<=\\[nrt]))"  # also right after an escaped line break or tab
    r"(\.?+[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}+)"  # the name (possessive: never re-scanned); ``01_password:``,
    # a file's name as a key (``.dockercfg:``, Kubernetes' Secret data) too
    r"((?:\\?[\"'])?\]?)"  # the closing quote of a JSON key or a subscript: "password": / ["DB_PASSWORD"]=
    r"((?:[ \t]++(?:string|String|str|&str|\[\]byte|char\*?|bytes))?+"  # Go/C#/Rust: var xToken string = "..."
    r"[ \t]{0,8}+(?::{1,3}+=|\?=|\.=|\+=|\?\?=|=>|=(?!=)|:(?![:/])|：|＝"
    r"|[!=]==?+(?=[ \t]{0,8}+\\?[\"'`]))[ \t]{0,8}+)"  # a comparison with a quoted value: secret != "..."
)
_IDENTIFIER = lazy(r"(?<![A-Za-z0-9_])[a-z_][a-z_]*+")  # a snake_case name, no digit (JSON has none bare)
_CONSTANT = lazy(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*+(?:_[A-Z0-9]++)++")  # look-behind: a run is tried once
_COMPARISONS = frozenset({"==", "!=", "===", "!=="})
_BLOCK_SCALAR = frozenset({"|", ">", "|-", ">-", "|+", ">+"})


_LOWERED: list[object] = [None, ""]  # the last text a pair was looked up in, and its lower-case copy


def _paired_id(name: str, text: str) -> bool:
    """``acme_id`` (``acmeClientId``) in a text that also assigns ``acme_secret`` (``acmeClientSecret``): the
    id half of a credential pair, which a provider's API takes only together with the secret."""
    parts = words(name)
    if len(parts) < 2 or parts[-1] != "id":
        return False
    if _LOWERED[0] is not text:
        _LOWERED[0], _LOWERED[1] = text, text.lower()
    lowered: str = _LOWERED[1]  # type: ignore[assignment]
    stem = "".join(parts[:-1])
    snake = "_".join(parts[:-1])
    return any(f"{prefix}{sep}{word}" in lowered for prefix in {stem, snake} for sep in ("", "_", "-") for word in (
        "secret", "key", "token", "password"
    ))  # fmt: skip


def _in_name_list(text: str, at: int) -> bool:
    """``a, b, <name> = ...``: the name ends a list of names (a tuple assignment, ``_tuple_assign``'s)."""
    begin = max(0, at - 200)
    head = text[begin:at]
    cut = max(head.rfind("\n"), head.rfind(";"), head.rfind("{"))
    head = head[cut + 1 :].strip()
    if not head.endswith(",") or "(" in head or "[" in head:
        return False  # ``connect(host, password="...")``: a keyword argument, not a tuple
    for word in ("var ", "const ", "let "):
        head = head.removeprefix(word)
    return all(part.strip().isidentifier() for part in head[:-1].split(","))


def _in_arn(text: str, at: int) -> bool:
    """``arn:aws:secretsmanager:<region>:<account>:secret:<name>``: inside an ARN, ``secret:`` is the resource
    type (AWS's ARN format) and what follows names the secret, it is not its value."""
    if text[at - 1 : at] != ":":
        return False
    head = text[max(0, at - 200) : at]
    cut = max(head.rfind(stop) for stop in " \t\n'\"`=,([{>")
    return head.startswith("arn:", cut + 1)


# Freenet's request URI (its wiki, "Signed Subspace Key"): the address a freesite publishes for its readers. The
# insert URI, which holds the signing key, has `AQECAAE` in the third field: not matched.
_FREENET_REQUEST = lazy(r"[SU]SK@[A-Za-z0-9~-]{43},[A-Za-z0-9~-]{43},AQACAAE(?![A-Za-z0-9~-])")


def ends_in_freenet_request(part: str) -> bool:
    """Whether ``part`` (a path's name) ends in a Freenet request URI's keys: ``Identity="USK@<keys>,AQACAAE``."""
    found = _FREENET_REQUEST.search(part[-120:]) if "SK@" in part else None
    return found is not None and found.end() == len(part[-120:])


def _in_freenet_request(text: str, at: int) -> bool:
    """Whether ``at`` is inside the keys of a Freenet request URI (looked for in the 100 characters before)."""
    start = text.rfind("SK@", max(0, at - 100), at + 3) - 1
    if start < 0:
        return False
    found = _FREENET_REQUEST.match(text, start)
    return found is not None and at < found.end()


def _assignment(match: re.Match[str]) -> tuple[str, int] | None:
    if _in_arn(match.string, match.start()):
        return None
    if (
        match.start()
        and match.string[match.start() - 1 : match.start()] in {" ", ","}
        and _in_name_list(match.string, match.start())
    ):
        return None  # the tuple rule pairs each name with its own value
    name = match.group(1)
    if not is_secret_name(name):
        if is_fake_name(name):
            return None  # ``revokedKey``, ``invalid_id``: a value written to fail
        if is_key_name(name):
            return _lone_key(match)
        if _paired_id(name, match.string):
            return _pair_id(match)
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end())
    if not quoted and match.group(3).strip() not in _COMPARISONS:
        if text.startswith(_GO_BYTES, match.end()):
            inner = _wrapped_literal(text, match.end())
            if inner is None:
                return None  # ``[]byte(os.Getenv("KEY"))``: code
            start, end = inner
            quoted = True
        else:
            fallback = _FALLBACK.match(text, match.end(), match.end() + 400)
            if fallback is not None:
                return _value_after(fallback, name, head_from=match.start())
    if match.group(3).strip() in _COMPARISONS and not quoted:
        return None  # ``password == confirm``: two names compared, no value
    if quoted and end < len(text) and _QUOTES.get(text[start - 1 : start]) == text[end : end + 1]:
        end = _past_inner_quotes(text, start, end)
    value = text[start:end]
    head = text[match.start() : start]
    if not quoted and value in _BLOCK_SCALAR:
        return _block_scalar(text, match, end)
    if not quoted and text[end : end + 1] in _DOTENV_ON and match.group(3) == "=":
        end = _dotenv_end(text, match.start(), start, end)
        value = text[start:end]
    if not quoted and end < len(text) and text[end : end + 1] in {"(", "["}:
        return None  # a call or a subscript: code, not a value
    if quoted and "{" in value and text[end + 1 : end + 9] == ".format(":
        return None  # ``"prefix_{}".format(x)``: a format string, filled in at run time
    if not quoted and match.group(2)[:1] in {'"', "'"} and _IDENTIFIER.fullmatch(value):
        return None  # ``{"password": new_password}``: a quoted key and a bare name, a dict literal in code
    if not quoted and text[end : end + 1] == ";" and _CONSTANT.fullmatch(value):
        return None  # ``String password = DEFAULT_PASSWORD;``: a constant named, in a statement
    after = text[end : end + 3].lstrip(" ")
    if not quoted and after.startswith("=") and not after.startswith("=="):
        return None  # a chained assignment: ``passwd = acct = ''``
    sep = match.group(3)
    spaced = sep != sep.strip() or sep.strip() in {":", "："}  # ``key = value`` or ``key: value``, not ``NAME=value``
    if not quoted and value and spaced and _line_start(text, match.start()) and sep.strip() in {"=", ":", "：", "＝"}:
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        rest = text[end:line_end]
        comment = rest.find(" #")
        rest = rest[:comment] if comment >= 0 else rest
        if rest.strip() and not rest.lstrip().startswith(("#", "//", "&&", "||", ";", "|")):
            rest = rest.rstrip()
            if len(rest) <= _MAX_VALUE and not any(ch in rest for ch in "\"'`"):
                end += len(rest)
                value = text[start:end]
    if not is_secret_value(name, value, quoted=quoted):
        return None
    return head + SECRET, end


# Go's conversion ``[]byte("...")`` (the Go spec's Conversions) holds the string it converts: golang-jwt's
# examples keep an HMAC key so (``mySigningKey := []byte("AllYourBase")``).
_GO_BYTES = "[]byte("
# A default after Groovy's and Kotlin's Elvis operator (``a ?: b``), JavaScript's ``||`` and ``??`` (MDN: the
# right operand when the left is null or falsy) or Python's ``x or y``: the value the name takes when the
# environment or the settings have none. The left side: a name or member, with at most one quoted subscript or
# call of one literal (``env["PASS"]``, ``System.getenv("PW")``, ``os.environ.get("PW")``).
_FALLBACK = lazy(
    r"[A-Za-z_$][A-Za-z0-9_.$]{0,200}+(?:\[[\"'][A-Za-z0-9_.:-]{1,80}+[\"']\]"
    r"|\([ \t]*+(?:[\"'][A-Za-z0-9_.:-]{0,80}+[\"'])?+[ \t]*+\))?+"
    r"[ \t]*+(?:\?:|\|\||\?\?|or(?=[ \t]))[ \t]*+(?=[\"'])"
)


def _wrapped_literal(text: str, at: int) -> tuple[int, int] | None:
    """The quoted literal inside ``[]byte("...")`` at ``at`` (closed by ``)``), as (start, end), else None."""
    if not text.startswith(_GO_BYTES, at):
        return None
    start, end, quoted = read_value(text, at + len(_GO_BYTES))
    if not quoted or text[end + 1 : end + 2] != ")":
        return None
    return start, end


_DOTENV_ON = frozenset("&()<>")  # shell separators that a .env value holds (``SECRET_KEY=r&lv*k+q)=x``)
_DOTENV_VALUE = lazy(r"[^\s'\"`]*+")


def _dotenv_end(text: str, name_at: int, start: int, end: int) -> int:
    """A .env line ``NAME=value`` (the name first on its line): dotenv reads the unquoted value to the line's
    end, so a shell separator does not end it; a space, ``&&`` and ``$(`` do (a shell command line)."""
    if text[end : end + 2] in {"&&", "||"} or "$(" in text[start : end + 2] or not _line_start(text, name_at):
        return end
    match = _DOTENV_VALUE.match(text, end, end + _MAX_VALUE)
    if match is None or text[match.end() : match.end() + 1] not in {"", "\n", " ", "\t", "\r"}:
        return end  # ``TOKEN=os.environ.get("X")``: code, which a quote follows
    return match.end()


def _past_inner_quotes(text: str, start: int, end: int) -> int:
    """A quoted value whose closing quote is followed by more token characters (``'k3#Q'w9&...'``) held
    that quote: it runs to the next such quote that a space, a separator or the line's end follows (on its
    line, 20,000 characters at most)."""
    quote = text[end]
    line = text.find("\n", end, end + _LONG_VALUE)
    limit = line if line >= 0 else min(len(text), end + _LONG_VALUE)
    at = end
    while at >= 0:
        after = text[at + 1 : at + 2]
        if not after or after.isspace() or after in ',;)]}+.:&|#"`\\' or after == quote:
            return at
        at = text.find(quote, at + 1, limit)
    return end


def _pair_id(match: re.Match[str]) -> tuple[str, int] | None:
    """The id of a credential pair (``_paired_id``): hidden when it is a token, not a number or a word."""
    text = match.string
    start, end, _quoted = read_value(text, match.end())
    value = text[start:end].strip()
    if len(value) < 12 or not (
        is_random_token(value) or is_random(value) or is_random_narrow(value) or _short_random_id(value)
    ):
        return None
    return text[match.start() : start] + SECRET, end


_SHORT_ID = lazy(r"(?=[a-z0-9]{0,15}+[A-Z])(?=[A-Z0-9]{0,15}+[a-z])(?=[A-Za-z]{0,15}+[0-9])[A-Za-z0-9]{12,15}")


def _short_random_id(value: str) -> bool:
    """12-15 letters and digits of both cases, no words: a paired id too short for the random tests
    (Sumo Logic's access id, ``su`` + 12, beside its access key)."""
    return _SHORT_ID.fullmatch(value) is not None and not spells_words(value) and not is_placeholder_token(value)


def _lone_key(match: re.Match[str]) -> tuple[str, int] | None:
    """``Key=<random>``, ``key: '<random>'``: a bare "key" (or "secret id") holds a secret only when its value
    is token-shaped and random (``key: app.kubernetes.io/name`` and ``key=value`` stay)."""
    text = match.string
    start, end, _quoted = read_value(text, match.end())
    value = text[start:end]
    if not is_random_token(value) and not is_grouped_key(value):
        return None
    return text[match.start() : start] + SECRET, end


_GROUPED = lazy(r"[A-Z0-9]{3,8}+(?:-[A-Z0-9]{3,8}+){2,7}+")


def is_grouped_key(value: str) -> bool:
    """A licence- or key-shaped value in dash-separated groups of capitals and digits (``Q7X-LMB-2RT-WZK``,
    ``7KQ2M-X9P4R-...``), two groups or more mixing both: short, but a key (``BUILD-2024-ABC`` is not)."""
    value = value.strip().strip("'\"")
    if not _GROUPED.fullmatch(value) or is_placeholder(value) or is_placeholder_token(value):
        return False
    mixed = [g for g in value.split("-") if any(ch.isdigit() for ch in g) and any(ch.isalpha() for ch in g)]
    return len(mixed) >= 2 and sum(ch.isalpha() for ch in value) >= 4  # not ``BUILD-2024-ABC``


def _block_scalar(text: str, match: re.Match[str], end: int) -> tuple[str, int] | None:
    """``password: |`` followed by indented lines: the lines are the value."""
    line_begin = text.rfind("\n", 0, match.start()) + 1
    marker = text[line_begin] if text[line_begin] in "+-" else ""  # a diff line: "+secret: |"
    first = text[line_begin + len(marker) : match.start()]
    indent = len(first) - len(first.lstrip())
    pos = text.find("\n", end)
    if pos < 0:
        return None
    stop = pos
    while stop < len(text):
        nxt = text.find("\n", stop + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[stop + 1 : nxt]
        if marker and line.startswith(marker):
            line = line[1:]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        stop = nxt
        if stop - pos > 20_000:
            break
    if stop == pos:
        return None
    return text[match.start() : pos + 1] + " " * (indent + 2) + SECRET, stop


# A Kubernetes Secret (``kind: Secret``): every value under its ``data:`` (base64) or ``stringData:`` is the
# secret, whatever its key is called (``extra: YWRtaW46...``), as Kubernetes documents the object.
_K8S_DATA = lazy(r"(?m)^([ \t]*+)(?:data|stringData):[ \t]*+$")
_K8S_KIND = lazy(r"(?im)^[ \t]*+kind:[ \t]*+[\"']?secret[\"']?[ \t]*+$")
_K8S_KEY = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _k8s_secret(match: re.Match[str]) -> tuple[str, int] | None:
    text = match.string
    if not any(begin <= match.start() < end for begin, end in _secret_documents(text)):
        return None
    encoded = not match.group(0).rstrip().endswith("stringData:")
    indent = len(match.group(1))
    pos = match.end()
    out = [match.group(0)]
    changed = False
    while pos < len(text) and text[pos] == "\n":
        nxt = text.find("\n", pos + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[pos + 1 : nxt]
        lead = line[: len(line) - len(line.lstrip())]
        key, colon, value = line.lstrip().partition(":")
        if line.strip() and len(lead) <= indent:
            break
        if colon and key and len(lead) > indent and set(key) <= _K8S_KEY and value[:1] in {" ", "\t"}:
            value = value.strip().strip("'\"")
            # base64 of 8 bytes or more under ``data:`` (``Zm9vCg==``, "foo", is a sample); as written otherwise
            if (
                value
                and (len(value) >= 12 if encoded else is_secret_value("password", value, quoted=True))
                and not (is_placeholder(value))
            ):
                line = f"{lead}{key}: {SECRET}"
                changed = True
        out.append("\n" + line)
        pos = nxt
        if pos - match.end() > _LONG_VALUE:
            break
    # unchanged, the block is still passed over whole: a ``data:`` nested in it is not walked again
    return ("".join(out) if changed else text[match.start() : pos]), pos


_K8S_CACHE: list[object] = [None, ()]  # the last text looked at and the spans of its Secret documents


def _secret_documents(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the YAML documents (split at ``---``) of ``text`` that declare ``kind: Secret``; one pass."""
    if _K8S_CACHE[0] is not text:
        spans: list[tuple[int, int]] = []
        for kind in _K8S_KIND.finditer(text):
            if spans and kind.start() < spans[-1][1]:
                continue  # in the document already found
            begin = text.rfind("\n---", spans[-1][1] if spans else 0, kind.start()) + 1
            end = text.find("\n---", kind.end())
            spans.append((begin, len(text) if end < 0 else end))
        _K8S_CACHE[0], _K8S_CACHE[1] = text, tuple(spans)
    return _K8S_CACHE[1]  # type: ignore[return-value]


_XML = lazy(r"<([A-Za-z_][A-Za-z0-9_.:-]{0,60}+)>([^<]{1,400}+)</\1>")


def _in_settings_security(match: re.Match[str]) -> bool:
    """``<master>`` right inside Maven's ``<settingsSecurity>`` (``~/.m2/settings-security.xml``, which holds
    the master password); looked for in the 200 characters before, so many ``<master>`` tags stay linear."""
    return match.string.rfind("<settingsSecurity>", max(0, match.start() - 200), match.start()) >= 0


def _xml(match: re.Match[str]) -> tuple[str, int] | None:
    """``<password>value</password>``, the value on the same line or on its own lines between the tags."""
    name = match.group(1)
    inner = match.group(2)
    value = inner.strip()
    if not value or "\n" in value:
        return None
    cipher = MAVEN_CIPHER.fullmatch(value) is not None
    if name == "master" and (cipher or _in_settings_security(match)):
        # Maven's master password (settings-security.xml). Its `{...}` form is obfuscated with a key fixed in
        # Maven's code, not encrypted: hidden at any length, unlike a server's `{...}` (session 20)
        if not cipher and not is_secret_value("password", value, quoted=True):
            return None
        lead = inner[: len(inner) - len(inner.lstrip())]
        trail = inner[len(inner.rstrip()) :]
        return f"<master>{lead}{SECRET}{trail}</master>", match.end()
    if is_key_name(name) and not is_secret_name(name):  # ``<slackKey>``: a random token only
        if not is_random_token(value):
            return None
    elif not is_secret_name(name) or not is_secret_value(name, value, quoted=True):
        return None
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"<{name}>{lead}{SECRET}{trail}</{name}>", match.end()


# <add key="ClearTextPassword" value="..."/> (NuGet), <entry name="apiToken" value="..."/>, <param name= value=>
_XML_PAIR = lazy(
    r"(?i)\b(?:key|name)[ \t]*=[ \t]*([\"'])([A-Za-z_][A-Za-z0-9_.:-]{0,80}+)\1[ \t]++value[ \t]*=[ \t]*([\"'])"
)


def _xml_pair(match: re.Match[str]) -> tuple[str, int] | None:
    name = match.group(2)
    if not is_secret_name(name):
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end() - 1)
    if not is_secret_value(name, text[start:end], quoted=quoted):
        return None
    return text[match.start() : start] + SECRET, end


# A secret-named string, a comma, a value: System.setProperty("X_TOKEN", "..."), os.environ.setdefault(...),
# config.put("password", "..."), ["apiKey", "..."]. The value must look like a credential (a tuple of names
# such as ("username", "password", "email") stays).
# ``("name", "value")``: a setter's or an environment lookup's two arguments, the value after the name as
# its default too (django-environ's and decouple's ``env("SECRET_KEY", default="...")``)
_PAIR_ARGS = lazy(r"([\"'])([A-Za-z_][A-Za-z0-9_.-]{0,80}+)\1[ \t]*+,[ \t]*+(?:default[ \t]*+=[ \t]*+)?+(?=[\"'])")


def _pair_args(match: re.Match[str]) -> tuple[str, int] | None:
    name = match.group(2)
    if not is_secret_name(name):
        if is_key_name(name) and not is_fake_name(name):
            return _lone_key(match)  # ``set("acme_key", "<random>")``, judged as ``acme_key = "<random>"``
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end())
    if not is_secret_value(name, text[start:end], quoted=quoted, strict=True):
        return None
    return text[match.start() : start] + SECRET, end


# A secret variable's value given on a command line or as a fallback: Windows' ``setx NAME value`` (quoted
# or not), Node's ``process.env.NAME || "value"`` / ``?? "value"``.
_ENV_FALLBACK = lazy(
    r"(?:(?<![A-Za-z0-9_.-])(?i:setx)[ \t]++([\"']?+)([A-Za-z_][A-Za-z0-9_]{0,80}+)\1[ \t]++"
    r"|process\.env\.([A-Za-z_][A-Za-z0-9_]{0,80}+)[ \t]*+(?:\|\||\?\?)[ \t]*+(?=[\"'`]))"
)


def _env_fallback(match: re.Match[str]) -> tuple[str, int] | None:
    return _value_after(match, match.group(2) or match.group(3))


def _value_after(match: re.Match[str], name: str, head_from: int = -1) -> tuple[str, int] | None:
    """The value read right after `match`, hidden when `name` and the value say it is a secret (the text kept
    before it from ``head_from``, else from the match's start)."""
    if not is_secret_name(name):
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end())
    if not is_secret_value(name, text[start:end], quoted=quoted):
        return None
    return text[match.start() if head_from < 0 else head_from : start] + SECRET, end


# IBM Cloud's SDK authenticators (python-sdk-core's README: ``IAMAuthenticator('<apikey>')``,
# ``BearerTokenAuthenticator('<bearer token>')``): the first argument is the credential, judged as that name's.
_SDK_AUTHENTICATOR = lazy(r"(?<![A-Za-z0-9_])(IAM|BearerToken)Authenticator\([ \t]*+(?=[\"'])")


def _sdk_authenticator(match: re.Match[str]) -> tuple[str, int] | None:
    return _value_after(match, "apikey" if match.group(1) == "IAM" else "bearer_token")


# A setter's literal argument: JavaBeans' ``setX(v)`` sets property ``x`` (the JDBC DataSource's
# ``setPassword(String)``, SendGrid's ``sgMail.setApiKey(key)``, Django's ``user.set_password(raw_password)``), so
# the name after ``set`` says what the value is, as a keyword does; judged as ``x = "v"``.
# The word boundary before ``set`` is checked in the handler: a pattern opening with a literal is searched for
# that literal first, where a leading look-behind is tried at every character (``set`` is in most code).
_SETTER = lazy(r"set(?:_([a-z][a-z0-9_]{0,80}+)|([A-Z][A-Za-z0-9_]{0,80}+))\([ \t]*+(?=[\"'])")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _setter(match: re.Match[str]) -> tuple[str, int] | None:
    if match.start() and match.string[match.start() - 1] in _WORD_CHARS:
        return None  # ``resetPassword(``, ``offset_token(``
    return _value_after(match, match.group(1) or match.group(2))


# A builder's method sets the property it is named after, as a setter does without ``set``: Spring Boot's
# ``DataSourceBuilder.password(String)``, Spring Security's ``User.withUsername(..).password(..)``, Azure's
# ``ClientSecretCredentialBuilder().clientSecret(..)``. One literal argument only (``.auth(user, password)``
# takes two, the first no secret); judged as ``name = "v"``. The pattern opens on the literal ``.`` (searched for
# first); a name that is a setter's is left to the setter rule.
_BUILDER = lazy(r"\.([A-Za-z_][A-Za-z0-9_]{0,80}+)\([ \t]*+(?=[\"'])")
_CLOSE_CALL = lazy(r"(?<![ \t])[ \t]*+\)")  # the look-behind: searched in a run of blanks, it is tried once


def _builder(match: re.Match[str]) -> tuple[str, int] | None:
    name = match.group(1)
    if name.startswith(("set_", "set")) and name[3:4] in ("_", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        return None
    if not is_secret_name(name):
        return None
    text = match.string
    start, end, _quoted = read_value(text, match.end())
    if text[end : end + 1] != text[start - 1 : start] or not _CLOSE_CALL.match(text, end + 1, end + 42):
        return None  # an argument after it, or no closing quote: not one literal
    value = text[start:end]
    if is_password_class(name):
        if any(ch.isspace() for ch in value) or value.endswith((":", "?")):
            return None  # a prompt's or a rule's message: questionary's ``password("Enter your password:")``
        strict = False
    else:
        strict = True  # ``.token("refresh_token")`` names a kind: a key's or a token's value must look like one
    if not is_secret_value(name, value, quoted=True, strict=strict):
        return None
    return text[match.start() : start] + SECRET, end


# Credential constructors: the arguments an SDK's documentation names a secret (position -> the name it is
# judged as). AWS SDK for Java 1.x and .NET ``BasicAWSCredentials(accessKey, secretKey)``,
# ``BasicSessionCredentials(accessKey, secretKey, sessionToken)``; Java 2.x ``AwsBasicCredentials.create(
# accessKeyId, secretAccessKey)``, ``AwsSessionCredentials.create(..., sessionToken)``; JavaScript v2 ``new
# AWS.Credentials(accessKeyId, secretAccessKey, sessionToken)``; OkHttp ``Credentials.basic(username,
# password)``; Apache HttpClient ``UsernamePasswordCredentials(userName, password)``; java.net
# ``PasswordAuthentication(userName, char[] password)``; .NET ``NetworkCredential(userName, password)``;
# requests ``HTTPBasicAuth``/``HTTPDigestAuth``/``HTTPProxyAuth(username, password)``; httpx and aiohttp
# ``BasicAuth(login, password)``, httpx ``DigestAuth``; Azure ``AzureKeyCredential(key)``,
# ``StorageSharedKeyCredential(accountName, accountKey)``, ``ClientSecretCredential(tenantId, clientId,
# clientSecret)``. The access key id is not judged here (its own format rule reads ``AKIA...``).
_AWS_PAIR = {1: "aws_secret_access_key", 2: "aws_session_token"}
_USER_PASSWORD = {1: "password"}
_CREDENTIAL_ARGS: dict[str, dict[int, str]] = {
    "BasicAWSCredentials": _AWS_PAIR,
    "BasicSessionCredentials": _AWS_PAIR,
    "AwsBasicCredentials.create": _AWS_PAIR,
    "AwsSessionCredentials.create": _AWS_PAIR,
    "AWS.Credentials": _AWS_PAIR,
    "Credentials.basic": _USER_PASSWORD,
    "UsernamePasswordCredentials": _USER_PASSWORD,
    "PasswordAuthentication": _USER_PASSWORD,
    "NetworkCredential": _USER_PASSWORD,
    "HTTPBasicAuth": _USER_PASSWORD,
    "HTTPDigestAuth": _USER_PASSWORD,
    "HTTPProxyAuth": _USER_PASSWORD,
    "BasicAuth": _USER_PASSWORD,
    "DigestAuth": _USER_PASSWORD,
    "AzureKeyCredential": {0: "api_key"},
    "StorageSharedKeyCredential": {1: "account_key"},
    "ClientSecretCredential": {2: "client_secret"},
    # Node's crypto docs: ``crypto.createHmac(algorithm, key)``, ``crypto.createSecretKey(key)``,
    # ``crypto.createPrivateKey(key)``; jsonwebtoken's README: ``jwt.sign(payload, secretOrPrivateKey)``,
    # ``jwt.verify(token, secretOrPublicKey)``. An HMAC key or a JWT secret is chosen like a password (the
    # README's own ``'shhhhh'``): judged as ``secret``'s value
    "crypto.createHmac": {1: "secret"},
    "crypto.createSecretKey": {0: "secret"},
    "crypto.createPrivateKey": {0: "private_key"},
    "jwt.sign": {1: "secret"},
    "jwt.verify": {1: "secret"},
    # PyJWT's docs ``jwt.encode(payload, key, algorithm=...)``, ``jwt.decode(encoded, key, algorithms=...)``;
    # ruby-jwt's README ``JWT.encode(payload, hmac_secret, 'HS256')``, ``JWT.decode(token, hmac_secret, true,
    # ...)`` (Ruby may leave the parentheses out); jose (v1/v2) ``JWT.sign(payload, key)``, ``JWT.verify(token,
    # key)``, ``JWK.asKey(key)`` (a string is a symmetric secret); golang-jwt ``token.SignedString(key)``
    "jwt.encode": {1: "secret"},
    "jwt.decode": {1: "secret"},
    "JWT.encode": {1: "secret"},
    "JWT.decode": {1: "secret"},
    "JWT.sign": {1: "secret"},
    "JWT.verify": {1: "secret"},
    "JWK.asKey": {0: "secret"},
    "SignedString": {0: "secret"},
}
_CREDENTIAL_CTOR = lazy(
    r"(?<![A-Za-z0-9_$])("
    + "|".join(sorted((n.replace(".", r"\.") for n in _CREDENTIAL_ARGS), key=len, reverse=True))
    + r")(?:\([ \t]*+|[ \t]++(?=[A-Za-z_$\"'{]))"  # Ruby's call without parentheses: ``JWT.encode payload, ...``
)
# a name, a member, a constant, ``getX()``, a flat object (jsonwebtoken's payload ``{ foo: "bar" }``)
_BARE_ARG = lazy(r"[A-Za-z0-9_.$]{1,200}+(?:\(\))?+|\{[^{}\n]{0,400}+\}")
# the look-behind: searched inside a run of blanks, a pattern opening with blanks would rescan the run
_ARG_SEP = lazy(r"(?:\.toCharArray\(\)|(?<![ \t]))[ \t]*+,[ \t]*+")


def _credential_ctor(match: re.Match[str]) -> tuple[str, int] | None:
    """Each documented secret argument that is a literal, judged as its name's value; other arguments are
    stepped over when they are a literal or a plain name (anything else ends the walk)."""
    secret_at = _CREDENTIAL_ARGS[match.group(1)]
    text = match.string
    out = [text[match.start() : match.end()]]
    at = match.end()
    changed = False
    for n in range(max(secret_at) + 1):
        if n:
            sep = _ARG_SEP.match(text, at)
            if sep is None:
                break
            out.append(text[at : sep.end()])
            at = sep.end()
        wrapped = text.startswith(_GO_BYTES, at) and text[at + len(_GO_BYTES) : at + len(_GO_BYTES) + 1] in ('"', "'")
        if wrapped:  # golang-jwt's ``SignedString([]byte("..."))``
            out.append(_GO_BYTES)
            at += len(_GO_BYTES)
        if text[at : at + 1] in ('"', "'"):
            start, end, quoted = read_value(text, at)
            out.append(text[at:start])
            name = secret_at.get(n)
            if name is not None and is_secret_value(name, text[start:end], quoted=quoted):
                out.append(SECRET)
                changed = True
            else:
                out.append(text[start:end])
            at = end
            if text[at : at + 1] == text[start - 1]:
                out.append(text[at])
                at += 1
            if wrapped and text[at : at + 1] == ")":
                out.append(")")
                at += 1
            continue
        bare = _BARE_ARG.match(text, at)
        if bare is None:
            break
        out.append(bare.group())
        at = bare.end()
    return ("".join(out), at) if changed else None


# Names and values assigned in one statement: Go's ``const a, b string = "x", "y"`` and ``a, b := ...``,
# Python's ``a, b = "x", "y"``. Each name is paired with its value; up to 8 of each.
_TUPLE_NAME = r"[A-Za-z_][A-Za-z0-9_]{0,80}+"
_TUPLE_ASSIGN = lazy(
    rf"(?<![A-Za-z0-9_.$])(?P<names>{_TUPLE_NAME}(?:[ \t]*+,[ \t]*+{_TUPLE_NAME}){{1,7}}+)"
    r"(?:[ \t]++(?:string|str))?+[ \t]*+(?::=|=(?!=))[ \t]*+(?=[\"'])"
)
_TUPLE_SEP = lazy(r"(?<![ \t])[ \t]*+,[ \t]*+")  # look-behind: a run of blanks is tried once


def _tuple_assign(match: re.Match[str]) -> tuple[str, int] | None:
    names = [n.strip() for n in match.group("names").split(",")]
    if not any(is_secret_name(n) for n in names):
        return None
    text = match.string
    line = text[max(0, text.rfind("\n", max(0, match.start() - 200), match.start()) + 1) : match.start()]
    if "(" in line or "[" in line or line.rstrip().endswith(","):
        return None  # ``connect(host, password="...")``: arguments, each judged by its own name
    out = [text[match.start() : match.end()]]
    at = match.end()
    changed = False
    for n, name in enumerate(names):
        if n:
            sep = _TUPLE_SEP.match(text, at)
            if sep is None or text[sep.end() : sep.end() + 1] not in "\"'":
                break
            out.append(text[at : sep.end()])
            at = sep.end()
        if text[at : at + 1] not in "\"'":
            break
        start, end, quoted = read_value(text, at)
        out.append(text[at:start])
        if is_secret_name(name) and is_secret_value(name, text[start:end], quoted=quoted):
            out.append(SECRET)
            changed = True
        else:
            out.append(text[start:end])
        at = end
        if text[at : at + 1] in "\"'":
            out.append(text[at])
            at += 1
    return ("".join(out), at) if changed else None


# A name and its value in sibling fields: Kubernetes' ``env`` (``- name: DB_PASSWORD`` / ``value: ...``), a
# JSON list of ``{"key": "password", "value": "..."}``, XML ``<key>password</key><value>...</value>`` and
# Apple's property lists (``<key>Password</key><string>...</string>``). The name's field is ``key`` or
# ``name``, the value's ``value`` (or a plist's ``string``).
_SIBLING_NAME = r"(?P<n>[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}+)"
_SIBLINGS = lazy(
    r"(?i:(?P<q>[\"']?)(?:key|name)(?P=q)[ \t]*+:[ \t]*+(?P<q2>[\"']?)" + _SIBLING_NAME + r"(?P=q2)"
    r"(?:[ \t]*+,[ \t]*+|[ \t]*+\r?\n[ \t]*+(?:-[ \t]++)?+)(?P<q3>[\"']?)value(?P=q3)[ \t]*+:[ \t]*+"
    r"|<(?P<t>key|name)>[ \t]*+"
    + _SIBLING_NAME.replace("P<n>", "P<m>")
    + r"[ \t]*+</(?P=t)>\s{0,200}+<(?:value|string)>[ \t]*+)"
)


def _siblings(match: re.Match[str]) -> tuple[str, int] | None:
    name = match.group("n") or match.group("m")
    if not is_secret_name(name):
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end())
    value = text[start:end]
    if not is_secret_value(name, value, quoted=quoted or match.group("m") is not None):
        return None
    return text[match.start() : start] + SECRET, end


# A list of values under a secret's plural name: YAML ``passwords:`` and ``- "..."`` lines, JSON
# ``"passwords": ["...", "..."]``. Each item is judged as a value of that name.
_SECRET_LIST = lazy(
    r"(?<![A-Za-z0-9_.$@-])(?P<n>[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}+)[\"']?[ \t]*+:[ \t]*+(?:\[|\r?\n(?=[ \t]*+- ))"
)
_LIST_ITEM = lazy(r"[ \t]*+(?:\r?\n[ \t]*+)?+(?:-[ \t]++)?+")


def _secret_list(match: re.Match[str]) -> tuple[str, int] | None:
    name = match.group("n")
    if not is_secret_name(name) or words(name)[-1:] != ["passwords"]:
        return None
    text = match.string
    out = [text[match.start() : match.end()]]
    at = match.end()
    changed = False
    for _ in range(64):  # a list of passwords is short; the cap keeps the scan linear
        gap = _LIST_ITEM.match(text, at)
        item = gap.end() if gap else at
        if item >= len(text) or text[item] not in "\"'":
            break
        start, end, quoted = read_value(text, item)
        out.append(text[at:start])
        if is_secret_value(name, text[start:end], quoted=quoted):
            out.append(SECRET)
            changed = True
        else:
            out.append(text[start:end])
        at = end
        if text[at : at + 1] in "\"'":
            out.append(text[at])
            at += 1
        if text[at : at + 1] == ",":
            out.append(",")
            at += 1
    return ("".join(out), at) if changed else None


# PHP: $apiToken = "..." / $apiToken .= "..." / $apiToken ??= "..." (a quoted value only: ``$TOKEN`` in a
# shell is a reference, which the assignment rule leaves alone).
_PHP_VAR = lazy(r"\$([A-Za-z_][A-Za-z0-9_]{0,80}+)[ \t]*+(?:\.=|\?\?=|=(?![=>])|[!=]==?+)[ \t]*+(?=[\"'])")


def _php_var(match: re.Match[str]) -> tuple[str, int] | None:
    return _value_after(match, match.group(1))


# Ruby: ``@token = "..."`` (an instance variable), ``@@token = "..."`` (a class variable), ``@token ||= "..."``.
# The boundary before ``@`` is checked in the handler (the pattern opens on the literal ``@``): an e-mail's
# ``user@password...`` is no variable.
_RUBY_VAR = lazy(r"@@?+([A-Za-z_][A-Za-z0-9_]{0,80}+)[ \t]*+(?:\|\|=|=(?![=~>]))[ \t]*+(?=[\"'])")


def _ruby_var(match: re.Match[str]) -> tuple[str, int] | None:
    if match.start() and match.string[match.start() - 1] in _WORD_CHARS | {"@", "."}:
        return None
    return _value_after(match, match.group(1))


# --- command-line flags and commands that take a secret ------------------------------------------------

_FLAG = lazy(r"(?:(?<![^\s'\"(=])|(?<=\\[nrt]))(--?[A-Za-z][A-Za-z0-9_-]{0,40}+)(=|[ \t]+)(?!-)")
_FLAG_EXTRA = frozenset({"storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass"})
_BOOLEAN_FIRST = frozenset({"ask", "no", "prompt", "use", "with", "skip", "require", "show", "reset", "change"})


def _flag(match: re.Match[str]) -> tuple[str, int] | None:
    flag = match.group(1)
    bare = flag.lstrip("-").lower()
    boolean = bare.replace("_", "-").split("-", 1)[0] in _BOOLEAN_FIRST
    if bare not in _FLAG_EXTRA and (boolean or not is_secret_name(flag)):
        return None
    text = match.string
    start, end, quoted = read_value(text, match.end())
    value = text[start:end]
    if not is_secret_value(flag if bare not in _FLAG_EXTRA else "password", value, quoted=quoted):
        return None
    return text[match.start() : start] + SECRET, end


_CMD = r"(?:(?<![A-Za-z0-9_.-])|(?<=\\[nrt]))"  # also after an escaped newline: a command in JSON text
_GAP = r"(?:[^\n|;&\\]|\\[\s\S]){0,300}?"  # a command may go on after a backslash and a line break
_VALUE = r"(?P<v>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|[^\s'\"]{2,300}+)"
_COMMANDS: list[re.Pattern[str]] = [
    lazy(
        _CMD
        + r"(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport)\b"
        + _GAP
        + r"\s-p(?P<v>[^\s-][^\s]{0,300}+)"
    ),
    lazy(
        _CMD + r"(?:sshpass|(?:docker|podman|buildah|skopeo|oras|nerdctl)\s+login|helm\s+registry\s+login|twine"
        r"|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|sqlcmd|bcp|zip|unzip)\b"
        + _GAP
        + r"\s-[pP][ \t]+"
        + _VALUE
    ),
    lazy(_CMD + r"7za?\b" + _GAP + r"\s-p(?P<v>[^\s]{1,300}+)"),
    lazy(_CMD + r"redis-cli\b" + _GAP + r"\s-a[ \t]+" + _VALUE),
    lazy(
        _CMD
        + r"(?:curl|wget|http|https|xh|httpie|lftp|ftp)\b"
        + _GAP
        + r"\s-x(?:[ \t]+|=|(?=[^\s=-]))['\"]?[^\s:'\"]*:(?P<v>[^\s'\"@]{1,300}+)"  # a proxy URL: user:pass@host
    ),
    # curl's manual: ``-u, --user <user:password>`` splits at the first colon and the rest is the password, ``@``
    # and ``$`` included; shell quotes around the whole word, or around either part, are not part of it
    lazy(
        _CMD
        + r"(?:curl|wget|http|https|xh|httpie|lftp|ftp)\b"
        + _GAP
        + r"\s(?:-u|--user|-U|--proxy-user)(?:[ \t]+|=|(?=[^\s=-]))"
        + r"(?P<u>\"[^\"\n]{0,300}+\"|'[^'\n]{0,300}+'|[^\s:'\"]{0,300}+):['\"]?(?P<v>[^\s'\"]{1,300}+)"
    ),
    lazy(
        _CMD
        + r"(?:curl|wget|http|https|xh|httpie|lftp|ftp)\b"
        + _GAP
        + r"\s(?:-u|--user|-U|--proxy-user)(?:[ \t]+|=)[\"'](?P<u>[^\"'\n:]{0,300}+):(?P<v>[^\"'\n]{1,300}+)"
    ),
    lazy(_CMD + r"smbclient\b" + _GAP + r"\s-U[ \t]+['\"]?[^\s%'\"]+%(?P<v>[^\s'\"]{1,300}+)"),
    lazy(
        _CMD + r"htpasswd[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[A-Za-z]+[ \t]+)*"
        r"[^\s]+[ \t]+[^\s]+[ \t]+" + _VALUE
    ),
    lazy(_CMD + r"(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?" + _VALUE + r"[ \t]*\|[^\n;&]{0,200}?--password-stdin"),
    lazy(r"(?<![A-Za-z0-9])-pass(?:in|out)?[ \t]+['\"]?pass:(?P<v>[^\s'\"]{1,300}+)"),
    lazy(_CMD + r"security[ \t]+add-(?:generic|internet)-password\b" + _GAP + r"\s-w[ \t]+" + _VALUE),
    lazy(_CMD + r"gh[ \t]+secret[ \t]+set[ \t]+\S+" + _GAP + r"\s(?:-b|--body)(?:[ \t]+|=)" + _VALUE),
    # .netrc (curl, git, ftp): machine <host> [login <user>] [account <a>] password <password>
    lazy(
        r"(?<![A-Za-z0-9_])machine[ \t\n]+[^\s]{1,253}+(?:[ \t\n]+(?:login|account)[ \t\n]+[^\s]{1,200}+){0,2}"
        r"[ \t\n]+password[ \t\n]+(?P<v>[^\s]{1,300}+)"
    ),
    # Sysinternals PsExec (and PAExec): -u <user> -p <password>
    lazy(_CMD + r"(?i:psexec|paexec)(?:64)?(?:\.exe)?\b" + _GAP + r"\s-p[ \t]+" + _VALUE),
    # .NET System.Net.NetworkCredential(userName, password[, domain])
    lazy(r"NetworkCredential[ \t]*\([ \t]*(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}')[ \t]*,[ \t]*" + _VALUE),
]
_CONFIG_SET = lazy(
    _CMD + r"(?:config|configure|config:set|secrets?|kv)[ \t]+(?:set|put|add)[ \t]+(?:--?\S+[ \t]+)*?"
    r"([A-Za-z0-9_./:@-]{1,100}+)[ \t]+" + _VALUE
)


def _command(match: re.Match[str]) -> tuple[str, int] | None:
    value = match.group("v").strip("'\"")
    if len(value) < 2 or is_placeholder(value):
        return None
    if "u" in match.re.groupindex and _sample_user(match.group("u"), value):
        return None
    text = match.string
    return text[match.start() : match.start("v")] + SECRET, match.end("v")


def _sample_user(user: str, password: str) -> bool:
    """curl's ``-u user:password`` is a URL's userinfo: a sample by the same test (``user:pass``, ``xxx:yyy``),
    or a written placeholder in the manual's brackets (``<user:password>``, ``neo4j:[PASSWORD]``)."""
    bare = password.strip("<>[]")
    if bare != password and (is_placeholder(bare) or is_stock_word(bare)):
        return True
    return sample_userinfo("", user.strip("'\"<>[]{}"), password)


def _config_set(match: re.Match[str]) -> tuple[str, int] | None:
    if not is_secret_name(match.group(1)):
        return None
    return _command(match)


# --- URLs, headers, cookies ---------------------------------------------------------------------------

# scheme://user:password@host in any scheme (http, ldap, mongodb+srv, jdbc:postgresql, redis, amqp, ...):
# the password is hidden, the scheme, the user and the host are kept. The user may hold a raw '@' (an e-mail
# address, ``smtp://me@example.com:<password>@smtp.example.com``): the URL Standard ends the userinfo at the last.
_URL_CREDS = lazy(r"[a-zA-Z][a-zA-Z0-9+.-]{1,30}+://[^\s:/'\"<>]{0,100}+:([^\s@'\"<>]{1,200}+)@")
_PORT_PATH = lazy(r"\d{1,5}(?:/.*)?")
# More of a password that holds a raw '@' (``p@ss@host``): up to the last '@' before the host.
_USERINFO_STOP = lazy(r"[\s/'\"<>]")


# Userinfo written as code: a template's interpolation (Ruby ``#{x}``, shell and Serverless ``${x}``, ``{{x}}``,
# jq ``\(.x)``, an f-string's whole ``{self.x}``) or a regular expression (``.*``, an alternation ``|a:b@``).
_CODE_USERINFO = lazy(r"[#$]\{|\{\{|\\\(|\A\{[A-Za-z_][A-Za-z0-9_.]{0,80}+\}\Z|\.[*+]|\A\|")


def _userinfo_end(text: str, at: int) -> int:
    """Past each further '@' that follows ``at`` with no space, quote, '<', '>' or '/' before it (2,000 at most)."""
    limit = min(len(text), at + 2000)
    while True:
        nxt = text.find("@", at, limit)
        if nxt < 0 or _USERINFO_STOP.search(text, at, nxt) is not None:
            return at
        at = nxt + 1


# ``https://<token>@github.com``, ``https://<token>:x-oauth-basic@github.com``: GitHub's docs give a token as
# the URL's user, alone or with the fixed password ``x-oauth-basic``; in userinfo a 40-hex user is a token
_URL_TOKEN_USER = lazy(r"(?<=://)([A-Za-z0-9_-]{20,200}+)(?=(?::x-oauth-basic)?+@)")


def _url_token_user(match: re.Match[str]) -> tuple[str, int] | None:
    user = match.group(1)
    if not ((len(user) >= 32 and is_hex(user)) or is_random_token(user)) or is_sequence_sample(user):
        return None
    return "[REDACTED:url-token]", match.end()


def _url(match: re.Match[str]) -> tuple[str, int] | None:
    password = match.group(1)
    text = match.string
    if password == "x-oauth-basic":
        return None  # GitHub's fixed password word: the token is the user (``_url_token_user``)
    end = match.end()
    further = _userinfo_end(text, end)
    if further > end:
        password = text[match.start(1) : further - 1]
        end = further
    if _PORT_PATH.fullmatch(password) or is_placeholder(password) or password.startswith("[REDACTED"):
        return None
    user = text[text.rfind("/", match.start(), match.start(1)) + 1 : match.start(1) - 1]
    if _CODE_USERINFO.search(user) or _CODE_USERINFO.search(password):
        return None  # a template's or a pattern's text: ``#{user}:#{pass}@``, ``(postgres://.*:)(.*)(@.*)``
    if sample_userinfo(match.group(0).partition(":")[0], user, password):
        return None  # ``user:user@``, ``postgres://postgres:postgres@``, ``admin:pass@``, ``user:abc@``
    return text[match.start() : match.start(1)] + "[REDACTED:password]@", end


_AUTH_SCHEME = lazy(
    r"(?i)(?<![A-Za-z0-9_])(bearer|basic|token|digest|bot|apikey|sso-key)([ \t]+)([A-Za-z0-9._~+/=:-]{8,}+)"
)
_TOKEN_CHARS = lazy(r"[0-9+/=._~:-]")
_HEADER_BEFORE = lazy(r"(?i)authorization[\"']?[ \t]*[:=][ \t]*[\"']?\Z")


def _auth_scheme(match: re.Match[str]) -> tuple[str, int] | None:
    value = match.group(3)
    if value.startswith("[REDACTED") or is_placeholder(value) or "://" in value:
        return None  # ``Token https://...``: prose before a URL
    if len(value) < 12 and not _HEADER_BEFORE.search(match.string, max(0, match.start() - 20), match.start()):
        return None  # a short one only in the Authorization header (a b64token has no minimum, RFC 6750)
    if not _TOKEN_CHARS.search(value) and not (match.group(1).lower() == "bearer" and looks_like_credential(value)):
        return None  # ``Bearer <letters only>`` is a token when its case is mixed like one
    return match.group(1) + match.group(2) + "[REDACTED:bearer-token]", match.end()


_COOKIE = lazy(r"(?i)(?<![A-Za-z0-9_-])((?:set-)?cookie[ \t]*[:=][ \t]*)")
_COOKIE_PAIR = lazy(r"([^=;\s]{1,100}+)=([^;\"'\n]*)")
_COOKIE_ATTRS = frozenset({"path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority"})


def _cookie(match: re.Match[str]) -> tuple[str, int] | None:
    text = match.string
    start = match.end()
    end = start
    limit = min(len(text), start + 4096)
    while end < limit and text[end] not in "\n\"'":
        end += 1
    header = text[start:end]

    def pair(m: re.Match[str]) -> str:
        if m.group(1).lower() in _COOKIE_ATTRS or not m.group(2).strip():
            return m.group(0)
        return f"{m.group(1)}=[REDACTED:cookie]"

    hidden = _COOKIE_PAIR.sub(pair, header)
    if hidden == header:
        return None
    return match.group(1) + hidden, end


# --- prose: "the password is X", 密码是 X ---------------------------------------------------------------

_PROSE = lazy(
    r"(?i)(?<![A-Za-z0-9_])(passwords?|passwd|passphrase|api[ _-]?key|secret(?:[ _-]?key)?|access[ _-]?key"
    r"|auth[ _-]?token|access[ _-]?token|token|credentials?|密码|口令|密钥|秘钥|私钥|令牌|凭证|凭据|授权码|暗号)"
    r"([ \t]{1,4}+(?:is|was|are|:|-)[ \t]{1,4}+"
    r"|[ \t]{0,4}+(?:是|为|為|设为|設為|改为|改成|设置为|：|＝|:|=)[ \t]{0,4}+)"
    r"(?=[^\s\u3000-\u9fff\uff00-\uff0f\uff1a-\uff20])"  # a value follows, not more Chinese text
)
_CJK_NAMES = {"密码": "password", "口令": "password", "暗号": "password"}


def _prose(match: re.Match[str]) -> tuple[str, int] | None:
    word = match.group(1)
    sep = match.group(2).strip().lower()
    if word.isascii() and " " not in word and sep not in {"is", "was", "are", "-"}:
        return None  # ``token = x``: an assignment, judged by the assignment rule
    if sep == "-" and match.string[match.end() : match.end() + 1] not in _QUOTES:
        return None  # ``token - 'x'`` (a log line) holds a quoted value; ``token - 1`` is arithmetic
    name = _CJK_NAMES.get(word, word if word.isascii() else "token").replace(" ", "_")
    text = match.string
    at = match.end()
    if text[at : at + 1] in _QUOTES or text[at : at + 2] in {'\\"', "\\'"}:
        start, end, quoted = read_value(text, at)
    else:  # a bare value stops at CJK text: 密码是hunter2别告诉别人
        value_match = _PROSE_VALUE.match(text, at, at + _MAX_VALUE)
        start, end, quoted = at, value_match.end() if value_match else at, False
    if not quoted and text[end : end + 1] in {"(", "["}:
        return None
    value = text[start:end].rstrip(".")
    end = start + len(value)
    strict = sep in {"is", "was", "are"}
    if not is_secret_value(name, value, quoted=quoted, strict=strict):
        return None
    return text[match.start() : start] + SECRET, end


# --- private keys -------------------------------------------------------------------------------------

_PEM = lazy(
    r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
    regex.DOTALL,
)
_PEM_END = lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PUTTY = lazy(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|\Z)", regex.DOTALL)


_PEM_BODY = lazy(r"[A-Za-z0-9+/=]{16}")
_PEM_CHARS = lazy(r"[A-Za-z0-9+/]++")


def _one_unit_repeated(body: str) -> bool:
    """A body that repeats one unit of up to 8 characters (``abab...``, ``AAAA...``): a placeholder, as the
    issue's ``xxxx`` is. A key's body is random: no real key repeats so."""
    chars = "".join(_PEM_CHARS.findall(body.replace("\\n", "\n")))
    return len(chars) >= 16 and any(chars == (chars[:p] * (len(chars) // p + 1))[: len(chars)] for p in range(1, 9))


def _pem_block(match: re.Match[str]) -> str:
    """A PEM private key block, unless its body holds no key material (``anything``, nothing, ``...``, one
    unit repeated)."""
    block = match.group(0)
    body = block[block.find("-----", 10) + 5 :]
    end = body.find("-----END")
    if _one_unit_repeated(body if end < 0 else body[:end]):
        return block
    return "[REDACTED:private-key]" if _PEM_BODY.search(body) else block


# RFC 7468's armour with its dashes damaged (a copy that lost the head's leading dashes, the tail's, or the END
# line): the label still says what the base64 lines after it are. The head must end its line; the body is the
# lines after it that are base64 and nothing else (RFC 1421's `Proc-Type:`/`DEK-Info:` headers first), up to an
# END line, or up to the first other line when the END line is missing. (A line pattern's leading blanks are
# read from a line's start only, `(?<![ \t])`: tried inside a long run of blanks, each would rescan it.)
# The label after BEGIN or END, its dashes damaged or gone (`RSA PRIVATE KEY-----`, `PRIVATE KEY BLOCK`).
_CUT_LABEL = r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-{0,5}"
_CUT_HEAD = lazy(rf"(?<![A-Za-z0-9])-{{0,5}}BEGIN{_CUT_LABEL}[ \t]*+(?:\r?\n|(?:\\r)?\\n)")
_CUT_END = lazy(rf"(?<![ \t])[ \t]*+-{{0,5}}END{_CUT_LABEL}")
_CUT_LINE = lazy(r"[ \t]*+([A-Za-z0-9+/=]*+)[ \t]*+")
_CUT_HEADER = lazy(r"(?<![ \t])[ \t]*+(?:Proc-Type|DEK-Info):[^\n\\]{0,200}")
_LINE_BREAK = lazy(r"\r?\n|(?:\\r)?\\n")


# The same key with its lines joined by blanks and its END label on the same line (an environment variable, a
# folded YAML scalar): up to 200 base64 words between the two labels.
_CUT_ONE_LINE = lazy(
    rf"(?<![A-Za-z0-9])-{{0,5}}BEGIN{_CUT_LABEL}[ \t]++((?:[A-Za-z0-9+/=]++[ \t]++){{1,200}}?)-{{0,5}}END{_CUT_LABEL}"
)


def _one_line_key(match: re.Match[str]) -> str:
    body = match.group(1)
    if max(len(word) for word in body.split()) < 16 or _one_unit_repeated(body):
        return match.group(0)
    return "[REDACTED:private-key]"


def _cut_block_end(text: str, at: int) -> int:
    """The end of the key whose body starts at ``at`` (after a cut head's line), or -1 when no base64 line of
    16 characters follows."""
    last, longest, pos = -1, 0, at
    while pos <= len(text):
        end = _CUT_END.match(text, pos)
        if end is not None and longest >= 16:
            return end.end()
        header = _CUT_HEADER.match(text, pos) if longest == 0 else None
        line = header or _CUT_LINE.match(text, pos)
        if line is None:  # pragma: no cover - _CUT_LINE matches the empty string
            break
        stop = line.end()
        brk = _LINE_BREAK.match(text, stop)
        if brk is None and stop < len(text) and text[stop] not in "\"'":
            break  # the line holds something else: the body ended on the line before
        if header is None:
            longest = max(longest, len(line.group(1)))
            if line.group(1):
                last = stop
        if brk is None:
            break
        pos = brk.end()
    return last if longest >= 16 else -1


def _cut_armour(text: str) -> str:
    """Private keys whose armour lost dashes (RFC 7468's `-----BEGIN`/`END ...-----` damaged), whole."""
    out: list[str] = []
    pos = 0
    for head in _CUT_HEAD.finditer(text):
        if head.start() < pos:
            continue
        end = _cut_block_end(text, head.end())
        if end > 0 and not _one_unit_repeated(text[head.end() : end].split("END", 1)[0]):
            out += [text[pos : head.start()], "[REDACTED:private-key]"]
            pos = end
    text = "".join(out) + text[pos:] if out else text
    return _CUT_ONE_LINE.sub(_one_line_key, text) if "END" in text else text


def private_keys(text: str) -> str:
    """PEM and PuTTY private keys, as whole blocks; an END line with no BEGIN before it (a cut-off key)
    hides everything before it, or from a BEGIN whose armour lost its dashes."""
    if "PRIVATE KEY" in text:
        end = _PEM_END.search(text)
        begin = text.find("-----BEGIN")
        if end is not None and (begin < 0 or begin > end.start()):
            cut = _CUT_HEAD.search(text, 0, end.start())
            head = "" if cut is None else text[: cut.start()]
            text = head + "[REDACTED:private-key]" + text[end.end() :]
        text = _PEM.sub(_pem_block, text)
        if "BEGIN" in text:
            text = _cut_armour(text)
    if "PuTTY-User-Key-File" in text:
        text = _PUTTY.sub("[REDACTED:private-key]", text)
    return text


def is_key_begin(text: str) -> bool:
    """A line that opens a private key whose end is on a later line."""
    if "PuTTY-User-Key-File" in text:
        return "Private-MAC:" not in text
    return "PRIVATE KEY" in text and "-----BEGIN" in text and _PEM_END.search(text) is None


def is_key_end(text: str) -> bool:
    """A line that closes a private key opened on an earlier line."""
    if "Private-MAC:" in text:
        return "PuTTY-User-Key-File" not in text
    return _PEM_END.search(text) is not None and "-----BEGIN" not in text


# --- high-entropy strings next to secret-like words ----------------------------------------------------

# Candidates first (long runs of token characters are rare in prose), then a look back for a secret word.
# Unbounded (possessive, so one pass per run): a token of any length is judged whole, never in pieces.
_CANDIDATE = lazy(r"(?<![A-Za-z0-9+/_=.-])([A-Za-z0-9+/_=.-]{20,}+)(?![A-Za-z0-9+/_=.-])")
_NEAR_WORD = lazy(
    r"(?i)(?:pass(?:word|wd|phrase)?|secret|token|api[ _-]?key|key|credential|auth|bearer"
    r"|密码|口令|密钥|秘钥|令牌|凭证)[^\n]{0,40}$"
)
_HEX = lazy(r"[0-9a-f]+|[0-9A-F]+")
_HAS_DIGIT_CTX = lazy(r"[0-9]")
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# possessive: a long lower-case run that fails at its end is not split every way (exponential otherwise)
_IDENTIFIER_LIKE = lazy(r"[A-Za-z][a-z]++(?:[_.-]?+[A-Za-z][a-z]++)*+[0-9]{0,4}")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    import math  # an extension module (a library load): only texts with a high-entropy candidate pay for it

    size = len(value)
    counts = [value.count(ch) for ch in set(value)]  # one C-level pass per distinct character (a few dozen)
    return -sum(n / size * math.log2(n / size) for n in counts)


def _sops(text: str, at: int) -> bool:
    """Inside a SOPS-encrypted value (``ENC[AES256_GCM,data:...,iv:...,tag:...,type:str]``): ciphertext. Or
    ciphertext another tool marks (Jasypt's ``ENC(...)``, Spring Cloud Config's ``{cipher}...``), or Azure's
    reference to a Key Vault secret (``@Microsoft.KeyVault(...SecretVersion=<id>)``): written to be committed."""
    opened = text.rfind("ENC[", max(0, at - 2000), at)
    if opened >= 0 and "]" not in text[opened:at]:
        return True
    if text.endswith(("ENC(", "{cipher}"), max(0, at - 8), at):
        return True
    opened = text.rfind("@Microsoft.KeyVault(", max(0, at - 400), at)
    return opened >= 0 and ")" not in text[opened:at]


# Armoured blocks whose body is public or encrypted, not a key: certificates, public keys, PGP messages and
# signatures (``gpg --armor``, ``cat cert.pem`` in a tool's output). Their base64 lines are not hidden.
_ARMOUR_KINDS = ("CERTIFICATE", "PUBLIC KEY", "PGP MESSAGE", "PGP SIGNATURE", "PGP PUBLIC KEY BLOCK")
# The last text looked at, its armoured spans' starts and ends.
_ARMOUR_CACHE: list[tuple[object, list[int], list[int]]] = [(None, [], [])]


def _armoured(text: str, at: int) -> bool:
    """Whether ``at`` lies inside a public or encrypted armoured block of ``text``. The blocks are read once per
    text (asked about every candidate of a long text, a search of the text per call was quadratic); the spans
    are disjoint and in order, so one bisection answers."""
    if _ARMOUR_CACHE[0][0] is not text:
        begins: list[int] = []
        ends: list[int] = []
        pos = text.find("-----BEGIN ")
        while pos >= 0:
            head_end = text.find("-----", pos + 11, pos + 80)
            kind = text[pos + 11 : head_end] if head_end > 0 else ""
            end = text.find("-----END " + kind, head_end) if kind else -1
            stop = len(text) if end < 0 else end
            if kind.endswith(_ARMOUR_KINDS) and "PRIVATE" not in kind:
                begins.append(pos)
                ends.append(stop)
            pos = text.find("-----BEGIN ", max(stop, pos + 11))
        _ARMOUR_CACHE[0] = (text, begins, ends)
    _, begins, ends = _ARMOUR_CACHE[0]
    i = bisect_left(begins, at) - 1  # the last block starting before ``at``
    return i >= 0 and at < ends[i]


def _maven_cipher(text: str, at: int) -> bool:
    """Maven's encrypted server password in settings.xml, ``<password>{<base64>}</password>`` (guide-encryption):
    ciphertext whose key is kept elsewhere. ``<master>{...}`` is only obfuscated and is judged as before."""
    return text.endswith(("<password>{", "<passphrase>{"), max(0, at - 13), at) and bool(
        MAVEN_CIPHER.match(text, at - 1)
    )


_SAMPLE_EDGE = 120


def _long_placeholder(token: str) -> bool:
    """A long run that is a sample says so at its start or its end (``SAMPLE...``, ``xxxx...``, ``...EXAMPLE``).
    Judged whole, a megabyte of random base64 holds a sample's marks by chance (six letters in alphabet order, a
    test word: about one run in three at 500,000 characters) and was kept raw."""
    return is_placeholder_token(token[:_SAMPLE_EDGE]) or is_placeholder_token(token[-_SAMPLE_EDGE:])


def _entropy(match: re.Match[str]) -> tuple[str, int] | None:
    text = match.string
    if _in_arn(text, match.start(1)) or _in_freenet_request(text, match.start(1)):
        return None  # an ARN's resource id names a resource (a secret's name, a key's id), it holds no secret
    if _sops(text, match.start()) or _armoured(text, match.start()) or _SRI.match(match.group(1)):
        return None
    if _maven_cipher(text, match.start(1)):
        return None
    if is_malformed_token(match.group(1)) or is_fake_name(assigned_name(text, match.start(1))):
        return None  # ``<prefix>_<not its shape>``; ``wrongLength := "..."``: look-alikes written to fail
    lead, equals, _ = match.group(1)[:80].partition("=")
    if is_public_name(assigned_name(text, match.start(1)) or (lead if equals else "")):
        return None  # ``publicKeyToken="<hex>"``, ``DOTENV_PUBLIC_KEY=<hex>``: published by design
    if is_public_key_der(match.group(1)) or is_jose_header(match.group(1)):
        return None  # a DER public key in base64 (``MFkwEwYHKoZIzj0CAQYI...``), a JWS header: published by design
    if len(match.group(1)) > 200:
        if _sops(text, match.start()) or _DIGEST_BEFORE.search(text[max(0, match.start() - 48) : match.start()]):
            return None
        if _long_placeholder(match.group(1)):
            return None  # ``AWS_SESSION_TOKEN=SAMPLE...``: a sample, however long
        if is_long_random(match.group(1)):  # a generated token or key of any length: hidden whole
            return "[REDACTED:high-entropy]", _glued(match)
    if match.group(1).count("/") >= 2:
        before = text[max(0, match.start() - 48) : match.start()]
        if _DIGEST_BEFORE.search(before):
            return None  # a digest in base64 holds slashes too: ``h1:7c/Nz.../Kbj...=``
        if holds_documented_key(match.group(1)):
            return None  # a documented sample key holds slashes too (Azurite's account key)
        if is_base64_key(match.group(1)):
            return "[REDACTED:high-entropy]", _glued(match)
        return _path_segments(match)
    if len(match.group(1)) > 300:
        return None  # a long run that is not random (a path, a word list): as before, not judged
    if _sops(text, match.start()):
        return None
    before = text[max(0, match.start() - 48) : match.start()]
    if _DIGEST_BEFORE.search(before):
        return None  # ``.../azure/auth v0.5.11 h1:<base64>``: a digest, a secret's word nearby or not
    if _NEAR_WORD.search(before) is None:
        return _random_alone(match, before)
    value = match.group(1).strip("./=")
    if len(value) < 20 or value.startswith("[REDACTED") or "REDACTED" in value:
        return None
    if _UUID.fullmatch(value) or _IDENTIFIER_LIKE.fullmatch(value) or "/" in value.strip("/").replace("+", "")[:1]:
        return None
    if is_public_token(value) or (value.islower() and is_secret_name(value) and len(words(value)) >= 3):
        return None  # a Datadog client token; a secret's name as a value (``id="...-access-key"``)
    if is_placeholder_token(value):
        return None  # ``...abcdef...``, ``...FAKE...``: a sample next to the word, as in is_random
    if value.count("/") >= 2 or (value.count(".") >= 2 and not value.startswith("eyJ")):
        return None  # a path or a dotted name
    if _HEX.fullmatch(value):
        if len(value) in {40, 64} or len(value) < 32:
            return None  # git and sha256 digests
        threshold = 3.0
    else:
        if not looks_like_credential(value) or not any(c.isdigit() for c in value):
            return None
        threshold = 3.7
    if entropy(value) < threshold:
        return None
    return "[REDACTED:high-entropy]", _glued(match)


_GLUED = lazy(r"(?::[A-Za-z0-9+_=-]{1,300}+|%(?:2[BbFf]|3[Dd])[A-Za-z0-9+_=-]{0,300}+)++")


def _glued(match: re.Match[str]) -> int:
    """Where a hidden token ends: past more token characters glued to it by ':' (an ``id:secret`` pair, a
    file named ``<key>:<more>.txt``), or by base64's ``+``, ``/`` and ``=`` percent-encoded (``%2B``,
    ``%2F``, ``%3D``: a SAS signature in a URL's query), which the candidate's character class stops at."""
    more = _GLUED.match(match.string, match.end(1))
    return more.end() if more is not None else match.end(1)


_UPPER = lazy(r"[A-Z]")
_LOWER = lazy(r"[a-z]")
_LOWER_RUN = lazy(r"[a-z]{4,}+")
_DIGEST_BEFORE = lazy(
    r"(?i)(?:sha\d{0,3}|md5|sri|integrity|hash|digest|checksum|nonce|base64,|(?<![A-Za-z0-9_])h1)[-:=\"' ]{0,4}$"
)  # ``h1:``: a go.sum line's module hash
_SRI = lazy(r"sha(?:256|384|512)-")  # a subresource-integrity digest (W3C SRI): ``sha512-<base64>``


_FILE_EXTENSIONS = frozenset(
    (
        *("py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "java", "kt", "go", "rs", "rb", "c", "h", "cc"),
        *("cpp", "hpp", "cs", "swift", "php", "sh", "bash", "zsh", "md", "rst", "txt", "json", "yaml", "yml"),
        *("toml", "ini", "cfg", "conf", "env", "lock", "xml", "html", "css", "scss", "csv", "tsv", "log", "sql"),
        *("proto", "gradle", "mk"),
    )
)


def _random_alone(match: re.Match[str], before: str) -> tuple[str, int] | None:
    """A token with no secret word near it: hidden only when it is unmistakably random (``is_random``). A
    source file's path or name (``src/Http2Client.java``) is judged by its name's stem alone."""
    value = match.group(1).strip("./=")
    stem, dot, ext = value.rpartition(".")
    if dot and ext in _FILE_EXTENSIONS:
        name = stem.rpartition("/")[2]
        if not is_random(name):
            return None
        whole = match.group(1)
        at = whole.rfind(f"{name}.{ext}")
        return whole[:at] + "[REDACTED:high-entropy]" + whole[at + len(name) :], match.end(1)
    if _DIGEST_BEFORE.search(before):
        return None
    whole = match.group(1)
    if whole.endswith(("...", "…")):
        return None  # a sample cut short in documentation: ``TOKEN=ops_eyJzaWdu...``
    lead, alone = "", value
    equals = whole.find("=")  # ``ORG_ID=<token>``, ``q=<token>`` glued into one candidate: the value alone
    if 0 < equals <= 40 and whole[:equals].replace("_", "a").replace(".", "a").replace("-", "a").isalnum():
        lead, value = whole[: equals + 1], whole[equals + 1 :].strip("./=")
        if is_fake_name(lead[:-1]):
            return None
    if value.startswith("gAAAAA"):
        return None  # a Fernet token (version 0x80, then the time): ciphertext, not a key
    if is_malformed_token(value) or is_public_token(value):
        return None
    if is_random(alone) and not value.startswith("gAAAAA"):
        return "[REDACTED:high-entropy]", _glued(match)  # judged whole, as before (``NAME=`` adds entropy)
    if not (is_random(value) or is_random_narrow(value)):
        return None
    return lead + "[REDACTED:high-entropy]", _glued(match)


def is_random(value: str) -> bool:
    """20 to 200 characters of upper and lower case letters and digits, at most one ``/`` and one ``.``, few
    separators, entropy near the maximum for its length; not a word, a placeholder or a publishable key."""
    size = len(value)
    if size < 20 or size > 200 or "REDACTED" in value:
        return False
    if value.count("/") > 1 or value.count(".") > 1 or value.count("-") + value.count("_") > 3:
        return False
    if not (_UPPER.search(value) and _LOWER.search(value) and _HAS_DIGIT_CTX.search(value)):
        return False
    if _IDENTIFIER_LIKE.fullmatch(value) or is_placeholder(value) or is_placeholder_token(value):
        return False
    if value.startswith(("pk_", "pk.")):
        return False  # publishable keys (Stripe, Mapbox) are public by design
    if sum(len(run) for run in _LOWER_RUN.findall(value)) * 2 >= size:
        return False  # mostly words (``SponsoredProductsRemoteRHFSearchEXPSubsK2``): a random token has few
    if spells_words(value):
        return False  # words in capitals run together (minified code's constants): a name, not a key
    import math

    return entropy(value) >= min(4.2, math.log2(size) - 0.55)


_UUID_LIKE = lazy(r"[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}")
_NARROW = lazy(r"[a-z0-9_-]{24,200}|[A-Z0-9_-]{24,200}")
_NOT_HEX_LETTER = lazy(r"[g-zG-Z]")


def is_random_narrow(value: str) -> bool:
    """A generated token in one case and digits (base36 keys: 26 lower-case letters and digits, 64 capitals and
    digits), which ``is_random`` (both cases) does not take: 24+ characters, letters beyond hex, digits turning
    into letters as random text does (``random_word``) and near the entropy a 36-symbol alphabet gives; or a
    UUID's shape whose letters run past ``f`` (a key laid out like a UUID, never a UUID)."""
    if _UUID_LIKE.fullmatch(value):
        digits = sum(ch.isdigit() for ch in value)
        return digits >= 4 and len(_NOT_HEX_LETTER.findall(value)) >= 4 and not is_placeholder_token(value)
    if not _NARROW.fullmatch(value) or _NOT_HEX_LETTER.search(value) is None:
        return False
    if value.count("-") + value.count("_") > 2 or not random_word(value):
        return False
    size = len(value)
    if sum(ch.isdigit() for ch in value) * 8 < size:
        return False  # base36 is 28% digits: words and names run together are not
    import math

    return entropy(value) >= min(4.2, math.log2(size) - 0.7)


_BASE64 = lazy(r"[A-Za-z0-9+/]{20,200}+={0,2}")


def is_base64_key(value: str) -> bool:
    """A base64 key that holds '/' (``Qk9v3rT.../Zp4...``), not a path: base64's
    characters only, no empty or dotted segment, every segment of mixed case and digits or short, no word
    runs, and the entropy of random base64 for its length (a path's segments are words)."""
    if not _BASE64.fullmatch(value) or "//" in value or value.startswith("/") or value.endswith("/"):
        return False
    if not (_UPPER.search(value) and _LOWER.search(value) and _HAS_DIGIT_CTX.search(value)):
        return False
    if any(len(part) >= 4 and _IDENTIFIER_LIKE.fullmatch(part) for part in value.split("/")):
        return False  # a word between the slashes: ``usr/Local8/bin``
    if sum(len(run) for run in _LOWER_RUN.findall(value)) * 2 >= len(value) or is_placeholder_token(value):
        return False
    if spells_words(value):
        return False
    import math

    return entropy(value) >= min(4.5, math.log2(len(value)) - 0.55)


_LONG_SLASHES = 1 / 24  # base64 holds a '/' every 64 characters on average; a path one every few words


def is_long_random(value: str) -> bool:
    """A run of 100+ token characters that is generated, not written: upper and lower case and digits, few
    '/' and '.', no word runs, entropy near what random base64 or base62 reaches (5+ bits a character; a
    long path or an identifier list stays under 4.6) or near the most its own alphabet allows (random-case
    hex). Linear in the length."""
    size = len(value)
    if size < 100 or "REDACTED" in value:
        return False
    if value.count("/") > size * _LONG_SLASHES or value.count(".") > 3:
        return False
    if not (_UPPER.search(value) and _LOWER.search(value) and _HAS_DIGIT_CTX.search(value)):
        return False
    if sum(len(run) for run in _LOWER_RUN.findall(value)) * 3 >= size:
        return False
    bits = entropy(value)
    if bits >= 5.0:
        return True
    import math

    # random over a smaller alphabet (hex in random case: 22 symbols, at most 4.46 bits): each symbol used
    # about as often as the others, which written text never is
    distinct = len(set(value))
    return distinct >= 16 and bits >= math.log2(distinct) - 0.25


def _provider_token(name: str) -> bool:
    """A file name that is a provider's token (``notes/xoxb-....txt``): the formats' look-behinds stop at '/'
    in running text, so each name of a path is also tried alone."""
    if len(name) < 16:
        return False  # every provider token is longer; a path of many short names stays cheap
    from .formats import FORMATS

    return any(
        any(needle in name for needle in needles) and pattern.match(name) is not None for _, needles, pattern in FORMATS
    )


def _path_segments(match: re.Match[str]) -> tuple[str, int] | None:
    """A path (``/repo/notes/<token>.txt``): each file or directory name that is a random token is hidden,
    its extension kept."""
    path = match.group(1)
    parts = path.split("/")
    changed = False
    first = 1 if ends_in_freenet_request(parts[0]) else 0  # a freesite's published address, then its site name
    # A git object store's or a URL's hex names are digests and ids (``/commit/<sha>``, ``/users/<uuid>``):
    # kept. A file's name in a command or a listing is judged as a name alone (``label``).
    url = match.string[match.start(1) - 1 : match.start(1)] == ":"
    digests = url or "/objects/" in path
    for i, part in enumerate(parts):
        if i < first:
            continue
        stem, dot, ext = part.rpartition(".")
        if not dot or len(ext) > 6 or not stem:
            stem, dot, ext = part, "", ""
        if digests and is_hex(stem):
            continue
        if (url or ext.lower() in ASSET_EXTENSIONS) and is_digest_slug(stem):
            continue  # a page's slug and id in a URL, a fingerprinted asset (``gifs/api-<hex>.gif``)
        if len(stem) >= 16 and is_sequence_sample(stem):
            continue  # a sample token (``ghp_1234567890abcdef...``) is a sample in a URL or a path too
        if (
            is_random(stem)
            or (i > 0 and path_token(stem, label=not url))  # a name inside a path: the path test
            or (i > 0 and not url and (is_grouped_key(stem) or _provider_token(stem)))
        ):
            parts[i] = f"[REDACTED:path-token]{dot}{ext}"
            changed = True
    if not changed:
        return None
    return "/".join(parts), _glued(match) if parts[-1].startswith("[REDACTED") else match.end(1)


# Substrings (lower case) of which one must be in the lower-cased text for the command rules to run, in
# the order of _COMMANDS.
_COMMAND_NEEDLES: list[tuple[str, ...]] = [
    ("mysql", "mariadb"),
    ("sshpass", "login", "twine", "mongo", "sqlcmd", "bcp", "zip"),
    ("7z",),
    ("redis-cli",),
    ("curl", "wget", "http", "xh", "ftp"),
    ("curl", "wget", "http", "xh", "ftp"),
    ("curl", "wget", "http", "xh", "ftp"),
    ("smbclient",),
    ("htpasswd",),
    ("password-stdin",),
    ("pass:",),
    ("security",),
    ("gh",),
    ("machine",),
    ("psexec", "paexec"),
    ("networkcredential",),
]
# A key's name and its value with no separator but a space or a dash: ``shortcut-private-key <uuid>``,
# ``api_key 3f9c...`` (a config file in ``name value`` lines, a CLI's positional argument), and one token
# ``dd_secret_key-<40 hex>``. Only a key-shaped value (a UUID, 32+ hex, a random token) is taken: ``api key
# rotation`` or ``token expired`` is prose.
# The value is looked at, not consumed: a word that is no key's name (``remember``) must not swallow the name
# after it (``remember shortcut-private-key <uuid>``), which is the next candidate.
_SPACED_KEY = lazy(
    r"(?<![A-Za-z0-9_.$@/\\-])([A-Za-z_][A-Za-z0-9_.-]{0,60}+)[ \t]++"
    r"(?=([A-Za-z0-9][A-Za-z0-9_+/=.-]{15,400}+)(?![^\s'\"`,;)\]}]))"
)
_DASHED_KEY = lazy(r"(?<![A-Za-z0-9_.])([A-Za-z][A-Za-z0-9_.]{0,60}+)-([A-Za-z0-9_]{32,400}+)(?![A-Za-z0-9_+/=.-])")
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_KEY_WORDS = frozenset({"key", "secret", "token", "apikey"})


def _keyed_value(name: str, value: str) -> bool:
    """``name`` ends in key, secret or token and names a secret; ``value`` is shaped like a key."""
    parts = words(name)
    if not parts or parts[-1] not in _KEY_WORDS or not is_secret_name(name) or is_fake_name(name):
        return False
    if is_placeholder(value) or is_placeholder_token(value):
        return False
    return bool(_UUID.fullmatch(value)) or (len(value) >= 32 and is_hex(value)) or is_random_token(value)


def _spaced_key(match: re.Match[str]) -> tuple[str, int] | None:
    if not _keyed_value(match.group(1), match.group(2)):
        return None
    return match.string[match.start() : match.start(2)] + SECRET, match.end(2)


# A secp256k1 private key (Ethereum, Bitcoin) written as ``0x`` and 64 hex. A transaction's or a block's hash
# has the same shape: kept where a hash word or a URL path is before it.
_HEX_KEY = lazy(r"(?<![A-Za-z0-9_])0x([0-9a-fA-F]{64})(?![0-9A-Za-z_])")
_HASH_BEFORE = lazy(
    r"(?i)(?<![a-z])(?:hash|tx|txid|transaction|block|digest|commit|root|topic|id)[\w\"' ]{0,6}+[:=]?[ \t\"']{0,8}+$"
)


def _hex_key(match: re.Match[str]) -> tuple[str, int] | None:
    before = match.string[max(0, match.start() - 40) : match.start()]
    if before.endswith("/") or _HASH_BEFORE.search(before) or is_placeholder_token(match.group(1)):
        return None
    return "0x" + SECRET, match.end()


# Providers whose API tokens are UUIDs (Postmark's server and account tokens, Heroku's API keys, Railway's API
# tokens, each as its documentation shows them), under the provider's name alone (``postmark: "<uuid>"``): a
# name ending in ``id`` names a thing (``RAILWAY_PROJECT_ID``), and a name holding a secret's word is read by
# the assignment rules.
# Scaleway's docs: a secret key is a UUID (its access key is ``SCW`` + 17), named ``scaleway-key``,
# ``SCALEWAY_SECRET_KEY``, ``scw_secret_key``; as a setter's second argument too (``set("scaleway-key", ...)``)
_UUID_PROVIDER = lazy(
    r"(?i)(?<![A-Za-z0-9])(?:postmark|heroku|railway"
    r"|(?:scaleway|scw)(?=[_.-]?+(?:secret[_.-]?+)?+key[\"':= \t]))"
    r"(?:[_.-]?+(?:app|api|server|account|service|secret[_.-]?+key|key))?+"
    r"[\"']?+[ \t]*+[:=,][ \t]*+[\"']?+"
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9A-Za-z-])"
)


def _uuid_provider(match: re.Match[str]) -> tuple[str, int] | None:
    if is_placeholder_token(match.group(1)):
        return None  # RFC 4122's example, ``00000000-...``
    return match.string[match.start() : match.start(1)] + SECRET, match.end(1)


_NAME_NEEDLES = (
    "pass",
    "pw",  # pwd, pword, pw
    "secret",
    "token",
    "key",
    "cred",
    "cookie",
    "auth",
    "sig",
    "session",
    "dsn",
    "sas",
    "pat",
    "reporter_id",
    "sonar",  # ``sonar.login`` (SonarQube's token)
    "dockercfg",  # Kubernetes' ``.dockercfg`` / ``.dockerconfigjson`` Secret data
    "dockerconfigjson",
    "bundle_",  # Bundler's ``BUNDLE_<HOST>`` credentials
)

RULES: list[tuple[str, tuple[str, ...] | None, re.Pattern[str], Handler]] = [
    # (label, lower-case substrings of which one must be in the lower-cased text (None: always run),
    #  pattern, handler)
    ("url-password", ("://",), _URL_CREDS, _url),
    ("cookie", ("cookie",), _COOKIE, _cookie),
    ("bearer-token", ("bearer", "basic", "token", "digest", "bot", "apikey", "sso-key"), _AUTH_SCHEME, _auth_scheme),
    *(
        ("command-password", needles, pattern, _command)
        for needles, pattern in zip(_COMMAND_NEEDLES, _COMMANDS, strict=True)
    ),
    ("config-set", (" set ",), _CONFIG_SET, _config_set),
    ("password-flag", ("-",), _FLAG, _flag),
    ("secret-assignment", _NAME_NEEDLES, _ASSIGN, _assignment),
    ("xml-secret", ("</",), _XML, _xml),
    ("kubernetes-secret", ("data:",), _K8S_DATA, _k8s_secret),
    ("xml-secret", ("value",), _XML_PAIR, _xml_pair),
    ("secret-argument", _NAME_NEEDLES, _PAIR_ARGS, _pair_args),
    ("secret-argument", ("setx", "process.env."), _ENV_FALLBACK, _env_fallback),
    ("secret-argument", ("authenticator(",), _SDK_AUTHENTICATOR, _sdk_authenticator),
    ("secret-argument", ("set",), _SETTER, _setter),
    ("secret-argument", _NAME_NEEDLES, _BUILDER, _builder),
    (
        "secret-argument",
        ("credential", "auth", "crypto.create", "jwt.", "jwk.", "signedstring"),
        _CREDENTIAL_CTOR,
        _credential_ctor,
    ),
    ("secret-sibling", ("value", "<string>"), _SIBLINGS, _siblings),
    ("secret-assignment", (",",), _TUPLE_ASSIGN, _tuple_assign),
    ("secret-list", ("passwords",), _SECRET_LIST, _secret_list),
    ("spaced-key", ("key", "secret", "token"), _SPACED_KEY, _spaced_key),
    ("spaced-key", ("key", "secret", "token"), _DASHED_KEY, _spaced_key),
    ("secret-assignment", ("$",), _PHP_VAR, _php_var),
    ("secret-assignment", ("@",), _RUBY_VAR, _ruby_var),
    ("hex-private-key", ("0x",), _HEX_KEY, _hex_key),
    ("provider-token", ("postmark", "heroku", "railway", "scaleway", "scw"), _UUID_PROVIDER, _uuid_provider),
    (
        "prose-secret",
        (
            "pass",
            "key",
            "secret",
            "token",
            "cred",
            "密码",
            "口令",
            "密钥",
            "秘钥",
            "私钥",
            "令牌",
            "凭",
            "授权码",
            "暗号",
        ),
        _PROSE,
        _prose,
    ),
    ("url-token", ("://",), _URL_TOKEN_USER, _url_token_user),  # late: its marker holds ``token]:``
    ("high-entropy", None, _CANDIDATE, _entropy),
]
