"""The thirteenth held-out redaction corpus named in ``bench/heldout_redaction_s23.txt``: the annotated tests of
Bearer's rules that flag a literal credential in code, read from the mirrored git directory at the named commit.

A ``bearer:expected <rule>`` comment marks the statement after it as a secret sample. Its secret: a value literal
of 8+ characters after a secret's word in the statement; else, following the names it uses (two steps back), such
a literal or one assigned to a name holding a secret's word (the sample: those statements and the marked one);
else the statement's longest value literal. Every non-comment line of a file with no mark, holding a quoted
literal of 4+ characters and a secret's word, is a look-alike.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from redaction_preview import CODE_LITERAL, code_literals, code_statement

BEARER = ("/work/.mirror/Bearer+bearer-rules/repo", "82c335f781a61a6d8b052394f84fd1d93edec467")
RULES = (
    "go/gosec/secrets/secrets",
    "go/lang/hardcoded_mysql_database_password",
    "go/lang/hardcoded_pg_database_password",
    "java/lang/empty_database_password",
    "java/lang/hardcoded_database_password",
    "java/lang/hardcoded_secret",
    "javascript/express/hardcoded_secret",
    "javascript/lang/hardcoded_secret",
    "javascript/lang/jwt_hardcoded_secret",
    "javascript/third_parties/passport_hardcoded_secret",
    "php/lang/hardcoded_secret",
    "python/django/weak_secret_key",
    "ruby/lang/hardcoded_secret",
    "ruby/rails/insecure_http_password",
)
_MARK = re.compile(r"bearer:expected\s+(\S+)")
_LITERAL = CODE_LITERAL
_WORD = re.compile(r"(?i)key|token|secret|passw|pwd|auth|credential|api")
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*|<!--)")
_MAX_LINES = 12


def _git(*args: str) -> str:
    gitdir, _ = BEARER
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_DEF = r"^\s*(?:(?:const|let|var|final|private|public|static|String|char\[\])\s+)*\$?{}\s*(?::=|=)(?!=)"


def _names(text: str) -> set[str]:
    return set(_NAME.findall(_LITERAL.sub(" ", text)))


def _defining(lines: list[str], before: int, names: set[str]) -> list[int]:
    """Lines above ``before`` that assign to one of ``names`` (the last assignment of each)."""
    out = []
    for name in sorted(names):
        pattern = re.compile(_DEF.format(re.escape(name.lstrip("$"))))
        hits = [k for k in range(before) if pattern.match(lines[k]) and not _COMMENT.match(lines[k])]
        if hits:
            out.append(hits[-1])
    return out


def _followed(lines: list[str], start: int, end: int) -> tuple[list[int], set[int]]:
    """The statement's rows with the definitions (whole statements) of the names it uses, two steps back, and
    the rows of definitions whose name holds a secret's word."""
    text = "\n".join(lines[start:end])
    seen = {n for n in _names(text) if re.match(_DEF.format(re.escape(n.lstrip("$"))), lines[start])}
    names = _names(text) - seen
    rows: set[int] = set()
    named: set[int] = set()
    for _ in range(2):
        found = []
        for name in sorted(names):
            for k in _defining(lines, start, {name}):
                first, last = code_statement(lines, k, _MAX_LINES)
                found.append((name, first, last))
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
    with ``named_rows`` only a named one (a row there is a definition's continuation under a secret's name)."""
    best: tuple[bool, int, str] | None = None
    for k in rows:
        line = lines[k]
        for m in _LITERAL.finditer(line):
            value = next(g for g in m.groups() if g is not None)
            if len(value) < 8 or re.match(r"\s*(?::(?!:)|=>)", line[m.end() :]):
                continue
            named = bool(_WORD.search(line[max(0, m.start() - 40) : m.start()]))
            if named_rows is not None:
                if not (named or k in named_rows):
                    continue
                named = True
            if best is None or (named, len(value)) > best[:2]:
                best = (named, len(value), value)
    return best[2] if best else None


def _file_samples(name: str, text: str, sample_type: Any, samples: list[Any], skipped: list[str]) -> bool:
    """Append the file's marked samples; True if it has any (its other lines are then not look-alikes)."""
    lines = text.split("\n")
    marked = False
    for i, line in enumerate(lines):
        mark = _MARK.search(line)
        if not mark:
            continue
        marked = True
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _MARK.search(lines[j])):
            j += 1
        if j >= len(lines):
            continue
        start, end = code_statement(lines, j, _MAX_LINES)
        fmt = f"{mark.group(1)}/{name}:L{j + 1}"
        rows = list(range(start, end))
        secret = _secret(lines, rows, set())  # a literal the statement names as a secret
        if secret is None:  # the marked use of a value assigned above: follow the names it uses two steps back
            rows, named_rows = _followed(lines, start, end)
            secret = _secret(lines, rows, named_rows)
        if secret is None:  # else the statement's longest value literal
            rows = list(range(start, end))
            secret = _secret(lines, rows)
        if secret is None:
            skipped.append(f"bearer:{fmt}")
            continue
        samples.append(sample_type("bearer", fmt, "\n".join(lines[k] for k in rows), [secret]))
    return marked


def _look_alikes(name: str, text: str, sample_type: Any, samples: list[Any]) -> None:
    for i, line in enumerate(text.split("\n")):
        if _COMMENT.match(line) or not _WORD.search(line):
            continue
        if any(len(s) >= 4 for s in code_literals(line)):
            samples.append(sample_type("bearer", f"look-alike/{name}:L{i + 1}", line.strip(), []))


def bearer_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    _, commit = BEARER
    samples: list[Any] = []
    skipped: list[str] = []
    for rule in RULES:
        base = f"tests/{rule}/testdata"
        for path in _git("ls-tree", "-r", "--name-only", commit, base + "/").split():
            text = _git("show", f"{commit}:{path}")
            if not _file_samples(path[len("tests/") :], text, sample_type, samples, skipped):
                _look_alikes(path[len("tests/") :], text, sample_type, samples)
    return samples, skipped


if __name__ == "__main__":  # the reader's list, read before any run of the redactor
    from redaction_preview import preview

    preview(bearer_samples)
