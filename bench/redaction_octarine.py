"""The tenth held-out redaction corpus named in ``bench/heldout_redaction_s20.txt``: octarinesec/secret-detector's
detector tests, read from the mirrored git directory at the named commit.

Each ``pkg/detectors/**/*_detector_test.go`` tables ``{"name", <input>, <expect detection>}``: a ``true`` case is a
sample holding a secret, a ``false`` one a look-alike. The secret of a true case is picked by the named file's rules
(a URL's password, a PEM or PuTTY body, else the longest token run that is not a key name, armour or a URL's host;
a URL's path gives its last segment).
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from redaction_2ms import go_string

OCTARINE = ("/work/.mirror/octarinesec+secret-detector/repo", "c95dd33250a452b25dffce869cbe3c38fa2894d8")
_CASE = re.compile(r'\{\s*"(?:[^"\\\n]|\\.)*"\s*,\s*(.*?)\s*,\s*(true|false)\s*\},?\s*$')
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')
_URL_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/\s]*)@")
_URL_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s]*")
_RUN = re.compile(r"[A-Za-z0-9+/_~.-]+(?:=+(?![A-Za-z0-9+/_~.-]))?")
_PATH_RUN = re.compile(r"[A-Za-z0-9+_~.-]+(?:=+(?![A-Za-z0-9+/_~.-]))?")
_KEY_AFTER = re.compile(r"""["']?\s*(?::=|[:=])""")
_BODY = re.compile(r"[A-Za-z0-9+/=]+")


def _git(*args: str) -> str:
    gitdir, _ = OCTARINE
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def _input(expr: str) -> str | None:
    """The Go expression's text when it is string literals joined by ``+``, else None."""
    out, i = "", 0
    while i < len(expr):
        if expr[i] in " \t+":
            i += 1
            continue
        literal = _LITERAL.match(expr, i)
        if literal is None:
            return None
        out += go_string(literal.group(0))
        i = literal.end()
    return out


def _longest(runs: list[str]) -> str:
    best = ""
    for run in runs:
        if len(run) > len(best):
            best = run
    return best


def _body(lines: list[str]) -> str:
    return _longest([m.group(0) for ln in lines for m in _BODY.finditer(ln)])


def secret_of(text: str) -> str:
    """The secret of a true case by the named file's rules ('' when none)."""
    userinfo = _URL_USERINFO.search(text)
    if userinfo and ":" in userinfo.group(1):
        return userinfo.group(1).split(":", 1)[1]
    lines = text.split("\n")
    if text.startswith("PuTTY-User-Key-File-"):
        start = next((i for i, ln in enumerate(lines) if ln.startswith("Private-Lines:")), len(lines))
        end = next((i for i, ln in enumerate(lines) if ln.startswith("Private-MAC:")), len(lines))
        return _body(lines[start + 1 : end])
    if "-----BEGIN" in text:
        return _body([ln for ln in lines if not ln.startswith("-----")])
    hosts = [m.span() for m in _URL_HOST.finditer(text)]
    runs: list[str] = []
    for m in _RUN.finditer(text):
        if any(a <= m.start() < b for a, b in hosts):
            host_end = max(b for a, b in hosts if a <= m.start() < b)
            if m.end() > host_end:  # a URL's path: its last segment (a webhook's secret part)
                segments = [p.group(0) for p in _PATH_RUN.finditer(text, host_end, m.end())]
                runs += segments[-1:]
            continue
        if m.group(0).startswith("-----") or _KEY_AFTER.match(text, m.end()):
            continue
        runs.append(m.group(0))
    return _longest(runs)


def octarine_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    _, commit = OCTARINE
    listing = _git("ls-tree", "-r", "--name-only", commit, "pkg/detectors/").split("\n")
    samples: list[Any] = []
    skipped: list[str] = []
    for path in sorted(p for p in listing if p.endswith("_detector_test.go")):
        fmt = path.rsplit("/", 1)[-1].removesuffix("_detector_test.go")
        for line in _git("show", f"{commit}:{path}").split("\n"):
            case = _CASE.search(line.strip())
            if case is None:
                continue
            text = _input(case.group(1))
            if not text:
                skipped.append(f"octarine:{fmt}")
                continue
            if case.group(2) == "false":
                samples.append(sample_type("octarine", fmt, text, []))
                continue
            secret = secret_of(text)
            if len(secret) < 8:
                skipped.append(f"octarine:{fmt}")
                continue
            samples.append(sample_type("octarine", fmt, text, [secret]))
    return samples, skipped
