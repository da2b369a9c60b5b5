"""The second held-out redaction corpus named in ``bench/heldout_redaction_s11b.txt``: semgrep-rules'
annotated secret test files (``generic/secrets/**``), read from the mirrored git directory at the named commit.

A ``ruleid: <rule>`` comment marks the code after it (or before it on its own line) as holding a secret, an
``ok: <rule>`` comment a look-alike. The secret is what the rule's own ``pattern-regex`` captures; a sample
the regex does not match in Python's ``re`` takes its longest token of 8+ characters (counted). Reads YAML
with PyYAML, which ``uv run --with detect-secrets`` (the peer) brings; it is not a project dependency.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from typing import Any

import yaml
from redaction_fresh import python_regex

GITDIR = "/work/.mirror/semgrep+semgrep-rules/repo"
COMMIT = "157ae4706d7f54aa33647332f234dd68f30da195"  # named in heldout_redaction_s11b.txt
PREFIX = "generic/secrets/"

# one annotation per line, in any comment syntax the test files use; todoruleid/todook are not claims
_ANNOTATION = re.compile(r"(?:#|//|<!--|/\*|--)\s*(ruleid|ok)\s*:\s*([\w.\-]+(?:\s*,\s*[\w.\-]+)*)")
_TOKEN = re.compile(r"[^\s\"'`=:,;()<>\[\]{}]{8,}")


def _git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={GITDIR}", *args], capture_output=True, text=True, check=True).stdout


def _regexes(node: Any) -> Iterator[str]:
    """Every ``pattern-regex`` anywhere in a rule (under ``patterns``, ``pattern-either``, ...)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern-regex" and isinstance(value, str):
                yield value
            else:
                yield from _regexes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _regexes(item)


def _rule_patterns() -> dict[str, list[re.Pattern[str]]]:
    rules: dict[str, list[re.Pattern[str]]] = {}
    for path in _git("ls-tree", "-r", "--name-only", COMMIT, PREFIX).split():
        if not path.endswith((".yaml", ".yml")):
            continue
        doc = yaml.safe_load(_git("show", f"{COMMIT}:{path}")) or {}
        for rule in doc.get("rules") or []:
            compiled = (python_regex(p.strip()) for p in _regexes(rule))
            rules[str(rule.get("id"))] = [rx for rx in compiled if rx is not None]
    return rules


def _annotated(text: str) -> Iterator[tuple[str, list[str], str]]:
    """(kind, rule ids, sample text) of each annotation of a test file."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        found = _ANNOTATION.search(line)
        if found is None:
            continue
        kind, ids = found.group(1), [i.strip() for i in found.group(2).split(",")]
        before = line[: found.start()].strip()
        if before:
            yield kind, ids, before
            continue
        body: list[str] = []
        for following in lines[n + 1 :]:
            if not following.strip() or _ANNOTATION.search(following):
                break
            body.append(following)
        if body:
            yield kind, ids, "\n".join(body)


def _secret(patterns: list[re.Pattern[str]], text: str, pick_secret: Any) -> tuple[str | None, bool]:
    """The secret of a ``ruleid`` sample and whether the rule's regex found it (else its longest token)."""
    for rx in patterns:
        match = rx.search(text)
        if match is not None:
            groups = [g for g in match.groups() if g]
            return pick_secret(groups or [match.group(0)]), True
    tokens = _TOKEN.findall(text)
    return (max(tokens, key=len) if tokens else None), False


def semgrep_samples(sample_type: Any, pick_secret: Any) -> tuple[list[Any], list[str]]:
    """Samples (``sample_type("semgrep", rule id, text, secrets)``) and the rules left out or guessed."""
    patterns = _rule_patterns()
    samples: list[Any] = []
    skipped: list[str] = []
    seen: set[tuple[str, str]] = set()
    for path in _git("ls-tree", "-r", "--name-only", COMMIT, PREFIX).split():
        if path.endswith((".yaml", ".yml")):
            continue
        for kind, ids, text in _annotated(_git("show", f"{COMMIT}:{path}")):
            rule_id = ids[0]
            if (kind, text) in seen:
                continue
            seen.add((kind, text))
            if kind == "ok":
                samples.append(sample_type("semgrep", rule_id, text))
                continue
            secret, by_rule = _secret(patterns.get(rule_id, []), text, pick_secret)
            if not by_rule:
                skipped.append(f"semgrep:{rule_id} (longest token)")
            if secret is not None and len(secret) >= 6:
                samples.append(sample_type("semgrep", rule_id, text, [secret]))
    return samples, skipped
