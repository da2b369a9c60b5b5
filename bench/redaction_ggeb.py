"""The fifth held-out redaction corpus named in ``bench/heldout_redaction_s14.txt``: GitGuardian/ggshield's
recorded API answers (VCR cassettes) and americanexpress/earlybird's rule examples, read from the mirrored git
directories at the named commits.

ggshield: a scan request's documents pair with the answer's results by position; a policy break's match of a
secret kind is a secret, its sample the document's lines holding it. Lines of documents with no policy break
that hold a secret's word or a long run are look-alikes. earlybird: each ``key``/``password-secret`` rule's
``Example`` is a sample, its secret what the rule's pattern captures. Reads YAML with PyYAML, which
``uv run --with detect-secrets`` (the peer) brings; it is not a project dependency.
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import yaml
from redaction_fresh import python_regex

GGSHIELD = ("/work/.mirror/GitGuardian+ggshield/repo", "eaa3e43b1ae1e67e3f184edd9a04a8d60849d75f")
EARLYBIRD = ("/work/.mirror/americanexpress+earlybird/repo", "573753e6f39a02293d4a250878e66664aefa674a")
# match kinds that locate or name a secret's owner rather than being one (heldout_redaction_s14.txt)
_NOT_SECRET = {"host", "port", "username", "database", "connection_uri", "scheme", "path", "email", "url"}
_LOOKALIKE = re.compile(r"(?i)key|token|secret|passw|pwd|auth|credential|api|[A-Za-z0-9+/=_-]{16,}")
_RUN = re.compile(r"[A-Za-z0-9+/=_~.\-]+")


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def _lines_holding(document: str, match: str) -> str:
    at = document.find(match)
    if at < 0:
        return match
    start = document.rfind("\n", 0, at) + 1
    end = document.find("\n", at + len(match))
    return document[start : end if end >= 0 else len(document)]


def _body(raw: Any) -> str:
    if isinstance(raw, dict):
        raw = raw.get("string", "")
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")


def ggshield_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    gitdir, commit = GGSHIELD
    samples: list[Any] = []
    seen: set[tuple[str, str]] = set()
    listing = _git(gitdir, "ls-tree", "-r", "--name-only", commit, "tests/unit/cassettes/").split("\n")
    for path in sorted(p for p in listing if p.endswith(".yaml")):
        doc = yaml.safe_load(_git(gitdir, "show", f"{commit}:{path}")) or {}
        for turn in doc.get("interactions", []):
            request = turn.get("request", {})
            if request.get("method") != "POST" or "scan" not in request.get("uri", "").split("?")[0].rsplit("/", 1)[-1]:
                continue
            try:
                sent = json.loads(_body(request.get("body")))
                got = json.loads(_body(turn.get("response", {}).get("body")))
            except ValueError:
                continue
            sent = sent if isinstance(sent, list) else [sent]
            got = got if isinstance(got, list) else [got]
            for document, answer in zip(sent, got, strict=False):
                text = document.get("document", "") if isinstance(document, dict) else ""
                breaks = answer.get("policy_breaks", []) if isinstance(answer, dict) else []
                if not text or not isinstance(breaks, list):
                    continue
                if not breaks:
                    for line in text.splitlines():
                        if line.strip() and _LOOKALIKE.search(line) and ("", line) not in seen:
                            seen.add(("", line))
                            samples.append(sample_type("ggshield", "look-alike", line))
                    continue
                for brk in breaks:
                    for match in brk.get("matches", []):
                        value = match.get("match", "")
                        if match.get("type") in _NOT_SECRET or not value or (brk.get("type", ""), value) in seen:
                            continue
                        seen.add((brk.get("type", ""), value))
                        sample = _lines_holding(text, value)
                        samples.append(sample_type("ggshield", brk.get("type", "?"), sample, [value]))
    return samples, []


def earlybird_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    gitdir, commit = EARLYBIRD
    samples: list[Any] = []
    fallback: list[str] = []
    for name in ("content", "password-secret"):
        doc = yaml.safe_load(_git(gitdir, "show", f"{commit}:config/rules/{name}.yaml")) or {}
        for rule in doc.get("rules", []):
            example = rule.get("Example")
            if rule.get("Category") not in ("key", "password-secret") or not isinstance(example, str) or not example:
                continue
            fmt = str(rule.get("Code"))
            rx = python_regex(str(rule.get("Pattern", "")))
            m = rx.search(example) if rx else None
            if m:
                groups = [g for g in m.groups() if g]
                secret = groups[-1] if groups else m.group(0)
            else:
                runs = _RUN.findall(example)
                secret = max(runs, key=len) if runs else example
                fallback.append(f"earlybird:{fmt} (longest run)")
            samples.append(sample_type("earlybird", fmt, example, [secret]))
    return samples, fallback


def ggeb_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    samples, skipped = ggshield_samples(sample_type)
    more, skipped2 = earlybird_samples(sample_type)
    return samples + more, skipped + skipped2
