"""The fourth held-out redaction corpus named in ``bench/heldout_redaction_s13.txt``: Skyscanner/whispers'
test fixtures, read from the mirrored git directory at the named commit.

By value: a secret holds the word ``hardcoded`` (any case) or is base64 of a text holding it; a sample is its
line with the line before. By key: the keys ``test_detection_by_key`` expects, in the non-compliant part; the
secret is the longest key-shaped run on the key's line or after it. Look-alikes: each line of a compliant part.
A key's name is not a secret (whispers' tests count values), nor a value in a compliant part, a comment's text or
the bare word in prose (session 14: the truth fixed before the rules were judged).
"""

from __future__ import annotations

import base64
import binascii
import re
import subprocess
from typing import Any

# the commit named in heldout_redaction_s13.txt: the corpus must not move under a re-run
WHISPERS = ("/work/.mirror/Skyscanner+whispers/repo", "5832bf74dcb127128ba653ed87601c927124b5aa")
# tests/unit/test_secrets.py::test_detection_by_key
BY_KEY = {
    "privatekeys": ("access", "key", "rsa", "dsa", "ec", "openssh"),
    "aws": ("aws_id", "aws_key", "aws_token"),
    "jenkins": ("noncompliantApiToken", "noncompliantPasswordHash"),
    "cloudformation": ("NoncompliantDBPassword",),
}
_SPLIT = re.compile(r"[\s\"'<>()\[\]{}=:@&?/,;`\\]+")
_RUN = re.compile(r"[A-Za-z0-9+/=_~.$\-]{8,}")
_INNER_KEY = re.compile(r"^\s*[\"']?(\w+)[\"']?\s*:")
_HARD = re.compile(r"(?i)hardcoded")
# a key's name, not its value: followed by `:`, `=` or `=>` (not `==`, not `://`), or an XML element's name
_NAME = re.compile(r"""(?:^|[\s{,\[(])[\"']?([\w.$\-]+)[\"']?\s*(?::(?!//)|=(?!=)|=>)|</?([\w.:\-]+)""")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# a line of words only, the bare word among them ("This is not a hardcoded comment")
_PROSE = re.compile(r"(?i)[ \t]*(?:[A-Za-z]+[ \t]+)*hardcoded(?:[ \t]+[A-Za-z]+)*[ \t]*")
# a compliant / non-compliant marker: a YAML or JSON key, an XML element, a comment
_MARK = re.compile(r"^\s*(?:#|//|<!--)?\s*[\"'<]?(?P<close>/)?(?P<non>non[-_ ]?)?compliant\b[\"'>]?\s*[:,{>\[]?", re.I)


def _git(*args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={WHISPERS[0]}", *args], capture_output=True, check=True).stdout


def _hard(token: str) -> bool:
    if _HARD.search(token):
        return True
    if len(token) < 12:
        return False
    try:
        return bool(_HARD.search(base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("latin-1")))
    except (binascii.Error, ValueError):
        return False


def _parts(lines: list[str]) -> list[str]:
    """Each line's part: 'ok' (compliant), 'bad' (non-compliant) or '' (neither, or a marker)."""
    state, out = "", []
    for line in lines:
        m = _MARK.match(line)
        if m:
            state = "" if m.group("close") else ("bad" if m.group("non") else "ok")
            out.append("")
            continue
        out.append(state)
    return out


def _by_key(name: str, lines: list[str], parts: list[str], keys: tuple[str, ...]) -> tuple[list[tuple[str, str]], int]:
    found: list[tuple[str, str]] = []
    short = 0
    for key in keys:
        rx = re.compile(rf"^\s*[\"'<]?{re.escape(key)}[\"'>]?\s*[:=>]?")
        starts = [i for i, ln in enumerate(lines) if rx.match(ln) and (parts[i] != "ok")]
        if not starts:
            short += 1
            continue
        i = starts[-1]
        for j in range(i, min(i + 6, len(lines))):
            rest = lines[j][rx.match(lines[j]).end() :] if j == i else lines[j]  # type: ignore[union-attr]
            inner = _INNER_KEY.match(rest) if j > i else None
            if inner and inner.group(1) != "Default":  # a CloudFormation parameter's other fields
                continue
            rest = rest[inner.end() :] if inner else rest
            runs = [r for r in _RUN.findall(rest.replace("\\n", " ").replace("-----", " ")) if r != key]
            if runs:
                found.append(("\n".join(lines[i : j + 1]), max(runs, key=len)))
                break
        else:
            short += 1
    return found, short


def _in_comment(text: str) -> set[int]:
    """Line numbers inside an HTML comment: whispers flags their text by its comment rule, not as a secret."""
    out: set[int] = set()
    for m in _HTML_COMMENT.finditer(text):
        first = text.count("\n", 0, m.start())
        out.update(range(first, first + m.group(0).count("\n") + 1))
    return out


def whispers_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    commit = WHISPERS[1]
    samples: list[Any] = []
    skipped: list[str] = []
    for path in _git("ls-tree", "-r", "--name-only", commit, "tests/fixtures/").decode().split("\n"):
        if not path:
            continue
        try:
            text = _git("show", f"{commit}:{path}").decode("utf-8")
        except (UnicodeDecodeError, subprocess.CalledProcessError):
            continue
        name = path.rsplit("/", 1)[-1]
        stem = name.split(".")[0]
        lines = text.splitlines()
        parts = _parts(lines)
        keyed = BY_KEY.get(stem)
        if keyed:
            found, short = _by_key(name, lines, parts, keyed)
            skipped.extend([f"whispers:{name} (short value)"] * short)
            samples.extend(sample_type("whispers", name, sample, [secret]) for sample, secret in found)
            if stem in ("jenkins", "cloudformation"):  # the compliant* keys are its look-alikes
                for i, ln in enumerate(lines):
                    if re.match(r"^\s*<?Compliant\w+", ln, re.I):
                        samples.append(sample_type("whispers", name, "\n".join(lines[i : i + 4])))
                continue
        commented = _in_comment(text)
        for i, line in enumerate(lines):
            names = {n for m in _NAME.finditer(line) for n in m.groups() if n}
            secrets = sorted({t for t in _SPLIT.split(line) if t and _hard(t) and t not in names})
            if secrets and (parts[i] == "ok" or i in commented or _PROSE.fullmatch(line)):
                continue  # a user name in a compliant part; a comment's text (whispers' comment rule); prose
            if secrets and not keyed:
                prev = lines[i - 1] + "\n" if i and lines[i - 1].strip() else ""
                samples.append(sample_type("whispers", name, prev + line, secrets))
            elif not secrets and parts[i] == "ok" and line.strip():
                samples.append(sample_type("whispers", name, line))
    return samples, skipped
