"""The fourteenth held-out redaction corpus named in ``bench/heldout_redaction_s24.txt``: the annotated tests of
semgrep-rules' language rules that flag a literal credential in code (not ``generic/secrets/``, the second
held-out corpus), read from the mirrored git directory at the named commit.

A ``ruleid: <rule>`` comment marks the statement after it (or the code before it on its own line) as a secret
sample, an ``ok: <rule>`` comment a look-alike. A secret sample's secret is found as Bearer's reader finds it
(``redaction_bearer``: a value literal of 8+ characters after a secret's word; else following the names the
statement uses two steps back; else the longest value literal of those rows), with an unquoted ``key: value``
of 8+ last in YAML; a module's name (``require('...')``) is never one. A look-alike: an ``ok`` statement
holding a quoted literal of 4+ characters and a secret's word.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from redaction_preview import CODE_LITERAL, code_literals, code_statement

GITDIR = "/work/.mirror/semgrep+semgrep-rules/repo"
COMMIT = "157ae4706d7f54aa33647332f234dd68f30da195"  # named in heldout_redaction_s24.txt
RULES = frozenset(
    {
        "jwt-python-hardcoded-secret", "hardcoded-token", "avoid_hardcoded_config_SECRET_KEY",
        "hardcoded-password-default-argument", "hardcoded-jwt-secret", "express-jwt-hardcoded-secret",
        "express-session-hardcoded-secret", "hardcoded-passport-secret", "hardcoded-hmac-key",
        "java-jwt-hardcoded-secret", "hardcoded-jwt-key", "ruby-jwt-hardcoded-secret",
        "hardcoded-http-auth-in-controller", "hardcoded-secret-rsa-passphrase", "check-secrets",
        "check-rails-secret-yaml", "jwt-scala-hardcode", "scala-jwt-hardcoded-secret",
        "aws-provider-static-credentials", "aws-lambda-environment-credentials",
        "rds-insecure-password-storage-in-source-code", "build-gradle-password-hardcoded",
    }
)  # fmt: skip
_ANNOTATION = re.compile(r"(?:#|//|<!--|/\*|--)\s*(ruleid|ok)\s*:\s*([\w.\-]+(?:\s*,\s*[\w.\-]+)*)")
_LITERAL = CODE_LITERAL
_WORD = re.compile(r"(?i)key|token|secret|passw|pwd|auth|credential|api")
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*|<!--)")
_BARE = re.compile(r"^\s*[\w.\-]+\s*[:=]\s*([^\s\"'#<>{}]{8,})\s*$")
_NAME = re.compile(r"[A-Za-z_$@][\w$@]*")
_DEF = r"^\s*(?:(?:const|let|var|val|final|private|public|static|String|char\[\])\s+)*[$@]*{}\s*(?::=|=)(?!=)"
_MAX_LINES = 30


def _git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={GITDIR}", *args], capture_output=True, text=True, check=True).stdout


def _names(text: str) -> set[str]:
    return set(_NAME.findall(_LITERAL.sub(" ", text)))


def _defines(name: str) -> re.Pattern[str]:
    return re.compile(_DEF.format(re.escape(name.lstrip("$@"))))


def _defining(lines: list[str], before: int, name: str) -> int | None:
    """The last line above ``before`` that assigns to ``name``."""
    pattern = _defines(name)
    hits = [k for k in range(before) if pattern.match(lines[k]) and not _COMMENT.match(lines[k])]
    return hits[-1] if hits else None


def _followed(lines: list[str], start: int, end: int) -> tuple[list[int], set[int]]:
    """The statement's rows with the definitions of the names it uses, two steps back, and the rows of
    definitions whose name holds a secret's word."""
    text = "\n".join(lines[start:end])
    seen = {n for n in _names(text) if _defines(n).match(lines[start])}
    names = _names(text) - seen
    rows: set[int] = set()
    named: set[int] = set()
    for _ in range(2):
        found = []
        for name in sorted(names):
            k = _defining(lines, start, name)
            if k is not None:
                found.append((name, *code_statement(lines, k, _MAX_LINES)))
        seen |= names
        names = set()
        for name, first, last in found:
            rows.update(range(first, last))
            if _WORD.search(name):
                named.update(range(first, last))
            names |= _names("\n".join(lines[first:last])) - seen
    return sorted(rows) + list(range(start, end)), named


def _secret(lines: list[str], rows: list[int], named_rows: set[int] | None = None) -> str | None:
    """The value literal (not an object key) of 8+ characters, one named by a secret's word first, longest;
    with ``named_rows`` only a named one."""
    best: tuple[bool, int, str] | None = None
    for k in rows:
        line = lines[k]
        for m in _LITERAL.finditer(line):
            value = next(g for g in m.groups() if g is not None)
            if len(value) < 8 or re.match(r"\s*(?::(?!:)|=>)", line[m.end() :]):
                continue
            if re.search(r"\b(?:require|import)\s*\(?\s*$", line[: m.start()]):  # a module's name
                continue
            named = bool(_WORD.search(line[max(0, m.start() - 40) : m.start()]))
            if named_rows is not None:
                if not (named or k in named_rows):
                    continue
                named = True
            if best is None or (named, len(value)) > best[:2]:
                best = (named, len(value), value)
    return best[2] if best else None


def _annotations(lines: list[str]) -> list[tuple[str, list[str], int, int]]:
    """(kind, rule ids, first row, end row) of each annotation's statement."""
    out = []
    for i, line in enumerate(lines):
        m = _ANNOTATION.search(line)
        if not m:
            continue
        rules = [r.strip() for r in m.group(2).split(",")]
        if line[: m.start()].strip():  # the code before the comment on its own line
            out.append((m.group(1), rules, i, i + 1))
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _ANNOTATION.search(lines[j])):
            j += 1
        if j < len(lines):
            out.append((m.group(1), rules, *code_statement(lines, j, _MAX_LINES)))
    return out


def _file_samples(path: str, text: str, sample_type: Any, samples: list[Any], skipped: list[str]) -> None:
    lines = text.split("\n")
    for kind, rules, start, end in _annotations(lines):
        ours = [r for r in rules if r in RULES]
        if not ours:
            continue
        fmt = f"{ours[0]}/{path}:L{start + 1}"
        rows = list(range(start, end))
        if kind == "ok":
            body = "\n".join(lines[start:end])
            if _WORD.search(body) and any(len(s) >= 4 for s in code_literals(body)):
                samples.append(sample_type("sgcode", f"look-alike/{fmt}", body, []))
            continue
        secret = _secret(lines, rows, set())
        if secret is None:
            rows, named_rows = _followed(lines, start, end)
            secret = _secret(lines, rows, named_rows)
        if secret is None:  # any literal of the statement or the definitions it follows
            secret = _secret(lines, rows)
        if secret is None and path.endswith(".yml"):
            bare = [m.group(1) for k in rows if (m := _BARE.match(lines[k]))]
            secret = bare[0] if bare else None
        if secret is None:
            skipped.append(f"sgcode:{fmt}")
            continue
        samples.append(sample_type("sgcode", fmt, "\n".join(lines[k] for k in rows), [secret]))


def sgcode_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    samples: list[Any] = []
    skipped: list[str] = []
    for path in _git("ls-tree", "-r", "--name-only", COMMIT).split():
        if path.startswith("generic/secrets/") or path.endswith(".yaml"):
            continue
        if not path.endswith((".py", ".js", ".ts", ".java", ".go", ".rb", ".scala", ".tf", ".gradle", ".kts", ".yml")):
            continue
        text = _git("show", f"{COMMIT}:{path}")
        if not any(r in text for r in RULES):
            continue
        _file_samples(path, text, sample_type, samples, skipped)
    return samples, skipped


if __name__ == "__main__":  # the reader's list, read before any run of the redactor
    from redaction_preview import preview

    preview(sgcode_samples)
