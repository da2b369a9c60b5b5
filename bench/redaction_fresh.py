"""The fresh held-out redaction corpus named in ``bench/heldout_redaction.txt``: Nosey Parker's and
Kingfisher's rule examples, read from their mirrored git directories at the named commits.

A rule's ``examples`` are true positives (the secret is what the rule's own pattern captures), its
``negative_examples`` look-alikes. Rust regex syntax is turned into Python's where the two differ in
spelling only; a pattern that still does not compile leaves its examples out (counted as skipped).
Reads YAML with PyYAML, which ``uv run --with detect-secrets`` (the peer) brings; it is not a project
dependency.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from typing import Any

import yaml

# the commits named in heldout_redaction.txt: the corpus must not move under a re-run
SOURCES = {
    "noseyparker": (
        "/work/.mirror/praetorian-inc+noseyparker/repo",
        "2e6e7f36ce36619852532bbe698d8cb7a26d2da7",
        "crates/noseyparker/data/default/builtin/rules/",
    ),
    "kingfisher": (
        "/work/.mirror/mongodb+kingfisher/repo",
        "ee7c0db3ef87575768f817820c24736249ffcdef",
        "data/rules/",
    ),
}

_FLAG_GROUP = re.compile(r"\(\?([imsx]+)\)")


def python_regex(pattern: str) -> re.Pattern[str] | None:
    """Rust's ``regex`` pattern as Python's: inline flag groups anywhere move to the front (Rust allows
    them mid-pattern), ``\\z`` and POSIX classes are spelled the Python way."""
    flags = "".join(sorted(set("".join(_FLAG_GROUP.findall(pattern)))))
    body = _FLAG_GROUP.sub("", pattern)
    body = body.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    body = body.replace("[:alpha:]", "A-Za-z").replace("[:digit:]", "0-9").replace("[:xdigit:]", "0-9A-Fa-f")
    body = body.replace("(?-u)", "").replace("(?-u:", "(?:")
    try:
        return re.compile((f"(?{flags})" if flags else "") + body)
    except re.error:
        return None


def _rules(gitdir: str, commit: str, prefix: str) -> Iterator[dict[str, Any]]:
    listing = subprocess.run(
        ["git", f"--git-dir={gitdir}", "ls-tree", "-r", "--name-only", commit, prefix],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for path in sorted(p for p in listing if p.endswith((".yml", ".yaml"))):
        text = subprocess.run(
            ["git", f"--git-dir={gitdir}", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True
        ).stdout
        doc = yaml.safe_load(text) or {}
        yield from (r for r in doc.get("rules") or [] if isinstance(r, dict))


def _captured(rx: re.Pattern[str], text: str) -> list[str]:
    """Every non-empty group of the rule's first match, or the whole match for a pattern with no group. A group
    that is the name of the value (``<add key="FromEmailPassword" value="..."/>``: the ``key`` attribute) is
    no secret and left out."""
    match = rx.search(text)
    if match is None:
        return []
    groups = [g for g in match.groups() if g and not any(f'{a}="{g}"' in text for a in ("key", "name"))]
    return groups or [match.group(0)]


def fresh_samples(sample_type: Any, pick_secret: Any) -> tuple[list[Any], list[str]]:
    """Samples of both sources (``sample_type(source, fmt, text, secrets)``); ``pick_secret`` chooses the
    secret among a match's groups as the other corpus does (the longest that is not a host or an e-mail)."""
    samples: list[Any] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for source, (gitdir, commit, prefix) in SOURCES.items():
        for rule in _rules(gitdir, commit, prefix):
            rule_id = str(rule.get("id") or rule.get("name"))
            examples = [e for e in rule.get("examples") or [] if isinstance(e, str) and e.strip()]
            negatives = [e for e in rule.get("negative_examples") or [] if isinstance(e, str) and e.strip()]
            rx = python_regex(str(rule.get("pattern") or ""))
            if rx is None and examples:
                skipped.append(f"{source}:{rule_id}")
            for text in examples:
                if text in seen or rx is None:
                    continue
                seen.add(text)
                pieces = _captured(rx, text)
                if not pieces:
                    skipped.append(f"{source}:{rule_id} (example not matched)")
                    continue
                secret = pick_secret(pieces)
                if len(secret) >= 6:
                    samples.append(sample_type(source, rule_id, text, [secret]))
            for text in negatives:
                if text not in seen:
                    seen.add(text)
                    samples.append(sample_type(source, rule_id, text))
    return samples, skipped
