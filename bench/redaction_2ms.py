"""The seventh held-out redaction corpus named in ``bench/heldout_redaction_s17.txt``: Checkmarx/2ms' rule tests,
read from the mirrored git directory at the named commit.

Each ``engine/rules/ruledefine/*_test.go`` lists ``truePositives`` and ``falsePositives`` as Go string literals:
an element of the first is a sample holding a secret, one of the second a look-alike. The secret of a sample is
the value the tested rule's own regex captures (``bench/redaction_2ms_rules.py``); where the rule cannot be rebuilt
in Python or does not match there, the longest run of token characters (the session-17 reader's rule, weak here).
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from redaction_2ms_rules import captured_secret, rule_regexes

TWOMS = ("/work/.mirror/Checkmarx+2ms/repo", "e2fafb4a9738d0f2984b0570f056e70a72ad55cb")
_DIR = "engine/rules/ruledefine/"
_LIST = re.compile(r"\b(truePositives|falsePositives):\s*\[\]string\{")
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')
_TEST_NAME = re.compile(r"func Test(\w+)\(")
_RUN = re.compile(r"[A-Za-z0-9+/=_~.-]{8,}")
_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'\"`]+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_TESTED_RULE = re.compile(r"TwomsToGitleaksRule\((\w+)\(\)\)")
FALLBACKS: list[str] = []  # the formats whose secret came from the longest-run rule, one entry a sample


def _git(*args: str) -> str:
    gitdir, _ = TWOMS
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def go_string(literal: str) -> str:
    """A Go string literal's text (raw or interpreted)."""
    if literal.startswith("`"):
        return literal[1:-1]
    return (
        bytes(literal[1:-1], "utf-8")
        .decode("unicode_escape", "replace")
        .encode("latin-1", "replace")
        .decode("utf-8", "replace")
    )


def _elements(source: str, start: int) -> tuple[list[str | None], int]:
    """The elements of the ``[]string{`` list opening at ``start``: a text, or None for one not built of literals."""
    out: list[str | None] = []
    i, current, ok = start, "", True
    while i < len(source):
        ch = source[i]
        if ch in " \t\r\n+":
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i)
            i = len(source) if i < 0 else i
        elif ch in '"`':
            literal = _LITERAL.match(source, i)
            if literal is None:
                return out, len(source)
            current += go_string(literal.group(0))
            i = literal.end()
        elif ch in ",}":
            if current or not ok:
                out.append(current if ok else None)
            current, ok = "", True
            i += 1
            if ch == "}":
                return out, i
        else:  # anything else (a call, a name) until the element's end
            ok = False
            depth = 0
            while i < len(source) and not (depth == 0 and source[i] in ",}"):
                depth += source[i] in "([{"
                depth -= source[i] in ")]}"
                i += 1
    return out, i


def _secret(text: str, word: str) -> str | None:
    hosts = [m.span() for m in _HOST.finditer(text)]
    best = ""
    for run in _RUN.finditer(text):
        value = run.group(0).strip(".")
        if any(a <= run.start() < b for a, b in hosts) or _DOTTED.fullmatch(value):
            continue
        if _IDENT.fullmatch(value) and word in value.lower().replace("_", "").replace("-", ""):
            continue
        if len(value) >= 8 and len(value) > len(best):
            best = value
    return best or None


def _rule_files(commit: str) -> list[str]:
    listing = _git("ls-tree", "-r", "--name-only", commit, _DIR).split("\n")
    return [p for p in listing if p.endswith(".go") and not p.endswith("_test.go")]


def twoms_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    _, commit = TWOMS
    names = [p for p in _git("ls-tree", "-r", "--name-only", commit, _DIR).split("\n") if p.endswith("_test.go")]
    rules = rule_regexes({p: _git("show", f"{commit}:{p}") for p in _rule_files(commit)})
    samples: list[Any] = []
    skipped: list[str] = []
    FALLBACKS.clear()
    for path in sorted(names):
        source = _git("show", f"{commit}:{path}")
        fmt = path.rsplit("/", 1)[-1].removesuffix("_test.go")
        test = _TEST_NAME.search(source)
        word = (test.group(1) if test else fmt).lower().replace("_", "")
        for found in _LIST.finditer(source):
            elements, _ = _elements(source, found.end())
            for text in elements:
                if text is None:
                    skipped.append(f"2ms:{fmt}")
                    continue
                if found.group(1) == "falsePositives":
                    samples.append(sample_type("2ms", fmt, text, []))
                    continue
                tested = _TESTED_RULE.search(source, found.end())
                rule = rules.get(tested.group(1)) if tested else None
                secret = captured_secret(rule, text) if rule else None
                if secret is None:
                    FALLBACKS.append(f"2ms:{fmt}")
                    secret = _secret(text, word)
                if secret is None:
                    skipped.append(f"2ms:{fmt}")
                    continue
                samples.append(sample_type("2ms", fmt, text, [secret]))
    return samples, skipped
