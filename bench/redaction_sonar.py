"""The eighth held-out redaction corpus named in ``bench/heldout_redaction_s18.txt``: SonarSource/sonar-text's
secret rules' own examples, read from the mirrored git directory at the named commits.

Each rule's ``examples`` are labelled: ``containsSecret: true`` with the ``match`` the rule reports (the
secret), ``false`` for a look-alike (the whole text).
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

import yaml

SONAR = "/work/.mirror/SonarSource+sonar-text/repo"
_DIR = "sonar-text-plugin/src/main/resources/org/sonar/plugins/secrets/configuration/"
_HEAD = "bb9c06ece15cbc4aad5dcd3ebb80b8ea31a9386c"
_OLD = "fd8c3ad638f3329a3467eed67f9b4c2f946c895e"  # before the specifications moved out of the repository
_INCLUDE = "${common/patternNot.yaml}"
# a key's header, not its key: the secret is the body after it
_HEADER = re.compile(r"-----BEGIN [A-Z ]*-----\s*|<RSAKeyValue>|PuTTY-User-Key-File-\d+:")
_BODY = re.compile(r"[A-Za-z0-9+/=]{16,}")


def _git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={SONAR}", *args], capture_output=True, text=True, check=True).stdout


def _files() -> list[tuple[str, str]]:
    """(commit, path): the files at the newest commit, then those only at the older one."""

    def yamls(commit: str) -> list[str]:
        return sorted(p for p in _git("ls-tree", "--name-only", commit, _DIR).split("\n") if p.endswith(".yaml"))

    new = yamls(_HEAD)
    return [(_HEAD, p) for p in new] + [(_OLD, p) for p in yamls(_OLD) if p not in new]


def _secret(text: str, match: str) -> str | None:
    """The rule's match, or for a key's header the longest base64 run after it; None: not in the text."""
    at = text.find(match)
    if at < 0:
        return None
    if _HEADER.fullmatch(match.strip()) or _HEADER.fullmatch(match):
        body = text[at + len(match) :]
        if match.startswith("PuTTY") and "Private-Lines:" in body:  # the lines before are the public key
            body = body[body.index("Private-Lines:") :]
        runs = _BODY.findall(body.replace("\\n", "\n"))  # a PEM block in a JSON string: escaped breaks
        return max(runs, key=len) if runs else None
    return match


def sonar_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    samples: list[Any] = []
    skipped: list[str] = []
    seen: set[tuple[str, bool]] = set()
    for commit, path in _files():
        spec = yaml.safe_load(_git("show", f"{commit}:{path}").replace(_INCLUDE, ""))
        for rule in spec["provider"]["rules"]:
            fmt = str(rule["id"])
            for example in rule.get("examples") or []:
                text, positive = str(example["text"]), bool(example["containsSecret"])
                if (text, positive) in seen:
                    continue
                seen.add((text, positive))
                if not positive:
                    samples.append(sample_type("sonar", fmt, text, []))
                    continue
                secret = _secret(text, str(example.get("match", "")))
                if not secret:
                    skipped.append(f"sonar:{fmt}")
                    continue
                samples.append(sample_type("sonar", fmt, text, [secret]))
    return samples, skipped
