"""2ms' rule regexes, rebuilt in Python from ``engine/rules/ruledefine/*.go`` so the corpus reader can take as
"the secret" the value the rule's own regex captures (gitleaks' choice: ``SecretGroup``, else the first non-empty
group, else the whole match), as the trivy reader takes the scanner's censored run.

Only the shapes the rules are written in are evaluated: Go string literals joined by ``+``, the package's
``generate*Regex`` builders and size helpers, ``regexp.MustCompile``, ``.String()``, and package-level names.
A rule built any other way is left out (its samples keep the reader's longest-run rule, counted as such).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_TOKEN = re.compile(r'\s+|//[^\n]*|`[^`]*`|"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w.]*|\d+|\[\]string|[(){},+]')
_FUNC = re.compile(r"^func (\w+)\(\) \*Rule \{", re.M)
_FIELD = re.compile(r"^\s*(Regex|SecretGroup):\s*(.+?),?\s*$", re.M)
_VAR = re.compile(r"^(?:var |\t)(\w+)\s*=\s*", re.M)

# The builders' parts, copied from 2ms' utils.go at the named commit.
_ID_PREFIX = r"[\w.-]{0,50}?(?:"
_ID_SUFFIX = r")(?:[ \t\w.-]{0,20})[\s'\"]{0,3}"
_ID_SUFFIX_XML = r")(?:[0-9a-z\-_\t .]{0,20})(?:<\/key>\s{0,10}<string)?(?:[\s|']|[\s|\"]){0,3}"
_OPERATOR = r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"
_SECRET_PREFIX = r"[\x60'\"\s=]{0,20}("
_SECRET_SUFFIX = r")(?:[\x60'\"\s;]|\\[nr]|$)"
_SECRET_SUFFIX_XML = r")(?:['|\"|\n|\r|\s|\x60|;]|\\n|\\r|$|\s{0,10}<\/string>)"


def _semi_generic(ids: list[str], secret: str, insensitive: bool, *, xml: bool = False) -> str:
    idents = _ID_PREFIX + "|".join(ids) + (_ID_SUFFIX_XML if xml else _ID_SUFFIX)
    head = "(?i)" + idents if insensitive else r"[\w.-]{0,50}?(?i:" + idents + ")"
    return head + _OPERATOR + _SECRET_PREFIX + secret + (_SECRET_SUFFIX_XML if xml else _SECRET_SUFFIX)


_CALLS: dict[str, Callable[..., Any]] = {
    "generateSemiGenericRegex": _semi_generic,
    "utils.GenerateSemiGenericRegex": _semi_generic,
    "generateSemiGenericRegexIncludingXml": lambda i, s, c: _semi_generic(i, s, c, xml=True),
    "generateUniqueTokenRegex": lambda s, c: ("(?i)" if c else "") + r"\b(" + s + _SECRET_SUFFIX,
    "utils.GenerateUniqueTokenRegex": lambda s, c: ("(?i)" if c else "") + r"\b(" + s + _SECRET_SUFFIX,
    "regexp.MustCompile": lambda s: s,
    "Numeric": lambda n: f"[0-9]{{{n}}}",
    "Hex": lambda n: f"[a-f0-9]{{{n}}}",
    "AlphaNumeric": lambda n: f"[a-z0-9]{{{n}}}",
    "AlphaNumericExtendedShort": lambda n: f"[a-z0-9_-]{{{n}}}",
    "AlphaNumericExtended": lambda n: f"[a-z0-9=_\\-]{{{n}}}",
    "AlphaNumericExtendedLong": lambda n: f"[a-z0-9\\/=_\\+\\-]{{{n}}}",
    "Hex8_4_4_4_12": lambda: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
}


class _Unreadable(Exception):
    """A rule expression outside the shapes evaluated here."""


def _go_literal(token: str) -> str:
    if token.startswith("`"):
        return token[1:-1]
    return bytes(token[1:-1], "utf-8").decode("unicode_escape")


class _Parser:
    def __init__(self, text: str, names: dict[str, str], source: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(text) if t.strip() and not t.startswith("//")]
        self.i, self.names, self.source = 0, names, source

    def _next(self) -> str:
        if self.i >= len(self.tokens):
            raise _Unreadable
        self.i += 1
        return self.tokens[self.i - 1]

    def expr(self) -> Any:
        value = self.atom()
        while self.i < len(self.tokens) and self.tokens[self.i] == "+":
            self.i += 1
            right = self.atom()
            if not isinstance(value, str) or not isinstance(right, str):
                raise _Unreadable
            value += right
        return value

    def atom(self) -> Any:
        token = self._next()
        if token[0] in '`"':
            return _go_literal(token)
        if token.isdigit():
            return token
        if token in ("true", "false"):
            return token == "true"
        if token == "[]string":
            return self._list()
        if token.endswith(".String") and self.tokens[self.i : self.i + 2] == ["(", ")"]:
            self.i += 2
            return self._name(token.removesuffix(".String"))
        if self.i < len(self.tokens) and self.tokens[self.i] == "(":
            self.i += 1
            args = self._args(")")
            name = token.removesuffix(".String")
            if name not in _CALLS:
                raise _Unreadable
            value = _CALLS[name](*args)
            if self.tokens[self.i : self.i + 3] == ["String", "(", ")"]:  # `.String()` after a call (`.` is skipped)
                self.i += 3
            return value
        return self._name(token)

    def _name(self, name: str) -> Any:
        if name not in self.names:
            raise _Unreadable
        return _Parser(self.names[name], self.names, self.source).expr()

    def _args(self, close: str) -> list[Any]:
        args: list[Any] = []
        while self.tokens[self.i] != close:
            args.append(self.expr())
            if self.tokens[self.i] == ",":
                self.i += 1
        self.i += 1
        return args

    def _list(self) -> list[Any]:
        if self._next() != "{":
            raise _Unreadable
        return self._args("}")


def _definitions(source: str) -> dict[str, str]:
    """Package-level ``name = expression`` texts, each up to the end of its balanced expression."""
    names: dict[str, str] = {}
    for found in _VAR.finditer(source):
        depth, j = 0, found.end()
        while j < len(source):
            ch = source[j]
            if ch in '`"':
                literal = re.compile(r'`[^`]*`|"(?:[^"\\\n]|\\.)*"').match(source, j)
                j = literal.end() if literal else j + 1
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    break
            elif ch == "\n" and depth == 0:
                break
            j += 1
        names[found.group(1)] = source[found.end() : j]
    return names


def _python_flags(pattern: str) -> str:
    """Go's ``(?i)`` inside a pattern holds to the end of its group; Python takes a scoped ``(?i:...)``."""
    at = pattern.find("(?i)", 1)
    if at < 0:
        return pattern
    depth, j, in_class = 0, at + 4, False
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        j += 1
    return _python_flags(pattern[:at] + "(?i:" + pattern[at + 4 : j] + ")" + pattern[j:])


def rule_regexes(sources: dict[str, str]) -> dict[str, tuple[re.Pattern[str], int] | None]:
    """Each rule constructor's compiled regex and secret group, or None where it cannot be rebuilt here."""
    names: dict[str, str] = {}
    for text in sources.values():
        names.update(_definitions(text))
    rules: dict[str, tuple[re.Pattern[str], int] | None] = {}
    for text in sources.values():
        funcs = list(_FUNC.finditer(text))
        for n, func in enumerate(funcs):
            body = text[func.end() : funcs[n + 1].start() if n + 1 < len(funcs) else len(text)]
            fields = {m.group(1): m.group(2) for m in _FIELD.finditer(body)}
            try:
                pattern = _Parser(fields["Regex"], names, text).expr()
                group = int(fields.get("SecretGroup", "0"))
                rules[func.group(1)] = (re.compile(_python_flags(pattern.replace(r"\z", r"\Z"))), group)
            except (_Unreadable, KeyError, re.error, ValueError, TypeError, IndexError):
                rules[func.group(1)] = None
    return rules


def captured_secret(rule: tuple[re.Pattern[str], int], text: str) -> str | None:
    """The value gitleaks reports for the rule's first match in ``text``."""
    pattern, group = rule
    found = pattern.search(text)
    if found is None:
        return None
    if group and group <= (pattern.groups or 0):
        return found.group(group) or None
    if pattern.groupindex:  # named groups mark which literal matched (jwt_base64's header fields), not a secret
        return found.group(0)
    for value in found.groups():
        if value:
            return value
    return found.group(0) or None
