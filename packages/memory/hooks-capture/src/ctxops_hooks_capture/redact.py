"""Secret redaction, applied to every string before anything touches disk.

Each rule names what it found (``[REDACTED:openai-key]``) so a reader knows something was there. Rules
that match an assignment or a flag keep the name and hide only the value, so the event still says
*which* secret a command used.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    _Replacer = str | Callable[[re.Match[str]], str]


def _keep_prefix(label: str, group: int = 1) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return f"{match.group(group)}[REDACTED:{label}]"

    return replace


# Values that are references or placeholders, not secrets: never worth hiding.
_PLACEHOLDER = re.compile(r"^(?:\$|%|<|\*{3}|x{3,}$|true$|false$|null$|none$|changeme$|\[REDACTED)", re.IGNORECASE)

_SECRET_NAME = (
    r"(?:[A-Za-z0-9]+[_.-])*"
    r"(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?key(?:[_-]?id)?|private[_-]?key"
    r"|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|password|passwd|passphrase|pwd|pass"
    r"|credentials?|session[_-]?key)"
)


def _assignment(match: re.Match[str]) -> str:
    name, sep = match.group(1), match.group(2)
    quote = match.group(3) or ""
    value = match.group(4) if match.group(4) is not None else match.group(5)
    if len(value) < 5 or _PLACEHOLDER.match(value):
        return match.group(0)
    return f"{name}{sep}{quote}[REDACTED:secret]{quote}"


def _flag(match: re.Match[str]) -> str:
    flag, value = match.group(1), match.group(2)
    if len(value) < 4 or _PLACEHOLDER.match(value.strip("'\"")):
        return match.group(0)
    return f"{flag}[REDACTED:secret]"


RULES: list[tuple[str, re.Pattern[str], _Replacer]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        "[REDACTED:private-key]",
    ),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), "[REDACTED:anthropic-key]"),
    (
        "openai-key",
        re.compile(r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{10,}|\bsk-[A-Za-z0-9]{32,}\b"),
        "[REDACTED:openai-key]",
    ),
    (
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
        "[REDACTED:github-token]",
    ),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), "[REDACTED:gitlab-token]"),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), "[REDACTED:aws-access-key]"),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "[REDACTED:google-api-key]"),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "[REDACTED:slack-token]"),
    ("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), "[REDACTED:stripe-key]"),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "[REDACTED:huggingface-token]"),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "[REDACTED:npm-token]"),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "[REDACTED:jwt]",
    ),
    (
        "bearer-token",
        re.compile(r"(?i)(\b(?:bearer|basic|token)\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}"),
        _keep_prefix("bearer-token"),
    ),
    (
        "url-password",
        re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)(?!\[REDACTED)([^\s@/]+)(?=@)"),
        _keep_prefix("password"),
    ),
    (
        "password-flag",
        re.compile(
            r"(?i)((?:^|(?<=\s))--?(?:password|passwd|pass|token|api[-_]?key|secret|access[-_]?key|client[-_]?secret)"
            r"(?:=|\s+))((?!\[REDACTED)'[^']*'|\"[^\"]*\"|[^\s'\"]+)"
        ),
        _flag,
    ),
    (
        "mysql-password",
        re.compile(r"(\b(?:mysql|mysqldump|mysqladmin|sshpass)\b[^\n]*?\s-p\s?)(?!\[REDACTED)([^\s-][^\s]*)"),
        _flag,
    ),
    (
        "secret-assignment",
        re.compile(
            rf"(?i)(?<![A-Za-z0-9_])({_SECRET_NAME})(\s*[:=]\s*)"
            r"(?:(['\"])((?!\[REDACTED)[^'\"\n]{1,300})\3"  # a quoted value (may hold spaces)
            r"|((?!\[REDACTED)[^\s'\"(),;\[\]{}]+)(?![(\[A-Za-z0-9_]))"  # a bare value, not a call or subscript
        ),
        _assignment,
    ),
]


def redact(text: str) -> str:
    """``text`` with every secret the rules know replaced by a labelled marker."""
    if not text:
        return text
    for _label, pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    return text


_SECRET_KEY = re.compile(rf"(?i){_SECRET_NAME}")


def redact_value(value: Any) -> Any:
    """Redact every string inside a JSON-like value; a string under a secret-named key is hidden whole."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key)
            if (
                isinstance(item, str)
                and _SECRET_KEY.fullmatch(name)
                and len(item) >= 5
                and not _PLACEHOLDER.match(item)
            ):
                out[name] = "[REDACTED:secret]"
            else:
                out[redact(name)] = redact_value(item)
        return out
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value
