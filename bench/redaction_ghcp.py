"""The ninth held-out redaction corpus named in ``bench/heldout_redaction_s19.txt``: GitHub Advanced Security's
custom secret-scanning patterns (advanced-security/secret-scanning-custom-patterns), their own labelled tests,
read from the mirrored git directory at the named commit.

A pattern's ``test.data`` holds a secret (what the rule's ``pattern`` part matches); its ``expected`` entries
name a test file and the byte offsets of a secret in it. Lines of those test files holding no labelled secret
and no recorded finding are look-alikes.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
from typing import Any

import yaml

GHCP = "/work/.mirror/advanced-security+secret-scanning-custom-patterns/repo"
_COMMIT = "9b84660dfcad6cc3d0e2c40a1a5f61dd7edca4b9"
_DIRS = ("configs", "database", "generic", "jwt", "password_store", "rsa", "uri", "vendors")
_NOT_SECRETS = {
    "github_actions_sha_checker",
    "ssh_public_key",
    "hardcoded_internal_emails",
    "hardcoded_internal_urls",
    "any_ipv4_addresses",
    "ghcr_typos",
    "azure_sql_connection_string",
    "uuids",
    "arc",  # a password store's metadata record: it marks a file, it holds no secret value
}
_RUN = re.compile(r"[A-Za-z0-9+/=_~.-]{8,}")
_BODY = re.compile(r"[A-Za-z0-9+/=]{16,}")
_COMMENT = re.compile(r"\s*(?:#|//)")
# a rule whose match is a whole credential-bearing string: the secret is the value in it
_USERINFO = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?[^\s:/@]*:([^\s@/:]+)(?:@|$)")
_CONN_PASSWORD = re.compile(r"(?i)(?:password|pwd)=([^;&\"'\s]+)")
_QUOTED_VALUE = re.compile(r"[=:][ \t]*[\"']([^\"'\n]+)")


def _git(*args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={GHCP}", *args], capture_output=True, check=True).stdout


def _show(path: str) -> bytes | None:
    try:
        return _git("show", f"{_COMMIT}:{path}")
    except subprocess.CalledProcessError:
        return None


def _regex(rule: dict[str, Any]) -> re.Pattern[str] | None:
    """(start)(pattern)(end) in Python's ``re``; None: it does not compile."""
    regex = rule.get("regex") or {}
    start = (regex.get("start") or r"\A|[^0-9A-Za-z]").strip()
    end = (regex.get("end") or r"\z|[^0-9A-Za-z]").strip()
    parts = [f"(?:{start})", f"(?P<secret>{str(regex.get('pattern', '')).strip()})", f"(?:{end})"]
    text = "".join(parts).replace(r"\z", r"\Z")
    flags = re.I if "(?i)" in text else 0
    try:
        return re.compile(text.replace("(?i)", ""), flags)
    except re.error:
        return None


def _test_secret(rule: dict[str, Any], data: str, test: dict[str, Any]) -> tuple[str | None, bool]:
    """The secret of a rule's ``test.data`` and whether it was the fallback (the longest run)."""
    rx = _regex(rule)
    found = rx.search(data) if rx else None
    if found and found.group("secret").strip():
        return found.group("secret"), False
    start, end = test.get("start_offset"), test.get("end_offset")
    if isinstance(start, int) and isinstance(end, int):
        return (data[start:] if end < 0 else data[start:end]), False
    runs = _RUN.findall(data)
    return (max(runs, key=len) if runs else None), True


def _shape(secret: str) -> str | None:
    """A PEM block's body; the value in a credential-bearing match (a URL's or a pair's password, a
    ``password=`` field, a quoted assignment's value); a multi-line match's first line; else the secret."""
    if "-----BEGIN" in secret or "--BEGIN" in secret:
        runs = _BODY.findall(secret.replace("\\n", "\n"))
        return max(runs, key=len) if runs else None
    for value in (_USERINFO, _CONN_PASSWORD, _QUOTED_VALUE):
        found = value.findall(secret)
        if found:
            secret = found[-1]  # a client id's assignment comes before its secret's
            break
    if "\n" in secret:  # a YAML block value: its first line is the value, the rest other keys
        return next((line.strip() for line in secret.split("\n") if line.strip()), None)
    return secret.strip() or None


def _snapshot_lines(directory: str) -> dict[str, set[int]]:
    """The lines (1-based) of each file holding a finding recorded in the directory's snapshots."""
    found: dict[str, set[int]] = {}
    names = _git("ls-tree", "--name-only", _COMMIT, f"{directory}/__snapshots__/").decode().split("\n")
    for path in filter(None, names):
        raw = _show(path)
        for row in csv.DictReader(io.StringIO((raw or b"").decode("utf-8", "replace"))):
            try:
                first, last = int(row["start_line"]), int(row["end_line"])
            except (KeyError, ValueError):
                continue
            name = row.get("path", "").rsplit("/", 1)[-1]
            found.setdefault(name, set()).update(range(first, last + 1))
    return found


def _pem_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines of PEM blocks, armour included."""
    inside, out = False, set()
    for i, line in enumerate(lines):
        if "BEGIN " in line and "-----" in line:
            inside = True
        if inside:
            out.add(i)
        if "END " in line and "-----" in line:
            inside = False
    return out


def ghcp_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    samples: list[Any] = []
    skipped: list[str] = []
    for directory in _DIRS:
        spec = yaml.safe_load(_show(f"{directory}/patterns.yml") or b"")
        files: dict[str, bytes] = {}
        labelled: dict[str, set[int]] = {}  # file -> line indexes holding a labelled secret
        seen: set[tuple[str, int, int]] = set()
        for rule in spec["patterns"]:
            fmt = str(rule.get("type"))
            if fmt in _NOT_SECRETS:
                continue
            tests = rule.get("test") or []
            for test in tests if isinstance(tests, list) else [tests]:
                data = str(test.get("data", ""))
                secret, fallback = _test_secret(rule, data, test)
                secret = _shape(secret) if secret else None
                if not secret:
                    skipped.append(f"ghcp:{fmt}")
                    continue
                if fallback:
                    skipped.append(f"ghcp:{fmt} (longest run)")
                samples.append(sample_type("ghcp", fmt, data, [secret]))
            for exp in rule.get("expected") or []:
                name = str(exp["name"])
                if name not in files:
                    files[name] = _show(f"{directory}/{name}") or b""
                raw, start, end = files[name], int(exp["start_offset"]), int(exp["end_offset"])
                first = raw.count(b"\n", 0, start)
                last = raw.count(b"\n", 0, max(start, end - 1))
                labelled.setdefault(name, set()).update(range(first, last + 1))
                if (name, start, end) in seen:
                    continue
                seen.add((name, start, end))
                lines = raw.decode("utf-8", "replace").split("\n")
                text = "\n".join(lines[first : last + 1])
                if "BEGIN" in text and fmt.endswith(("rsa_keys", "private_keys", "private_key")):
                    # the offsets cover the armour: read the whole block as the sample
                    text = raw[start:end].decode("utf-8", "replace")
                secret = _shape(raw[start:end].decode("utf-8", "replace"))
                if not secret:
                    skipped.append(f"ghcp:{fmt}")
                    continue
                samples.append(sample_type("ghcp", fmt, text, [secret]))
        listed = _git("ls-tree", "--name-only", _COMMIT, f"{directory}/").decode().split("\n")
        for path in filter(None, listed):
            name = path.rsplit("/", 1)[-1]
            if name.startswith("not_") and name not in files:
                files[name] = _show(path) or b""
        snapshots = _snapshot_lines(directory)
        for name, raw in files.items():
            try:
                lines = raw.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                continue
            pem = _pem_lines(lines)
            for i, line in enumerate(lines):
                if not line.strip() or _COMMENT.match(line) or i in pem or i in labelled.get(name, set()):
                    continue
                if i + 1 in snapshots.get(name, set()):
                    skipped.append(f"ghcp:{directory}/{name} (recorded finding)")
                    continue
                samples.append(sample_type("ghcp", f"{directory}/{name}", line, []))
    return samples, skipped
