"""The third held-out redaction corpus named in ``bench/heldout_redaction_s12.txt``: secretlint's rule
snapshots and ripsecrets' test data, read from the mirrored git directories at the named commits.

secretlint: an ``ng.*`` snapshot holds secrets (each message of its ``output.json`` marks one by its
``range`` in ``sourceContent``; a multi-line range gives its longest line), an ``ok.*`` snapshot is one
look-alike. ripsecrets: each line of ``test/one_per_line/*`` and each ``test/one_per_file/*`` holds one
secret, its longest token (not annotated upstream); each line of ``test/none`` is a look-alike.
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

# the commits named in heldout_redaction_s12.txt: the corpus must not move under a re-run
SECRETLINT = ("/work/.mirror/secretlint+secretlint/repo", "18346ba31b8173d52060b971221ab38c1943def0")
RIPSECRETS = ("/work/.mirror/sirwart+ripsecrets/repo", "416e9d04d6ba8941fc3106bf986b6c8aa875767e")
# rules that flag no secret format (a home directory, a .env file name, a k8s kind, user patterns, a demo)
_NOT_SECRET_RULES = {"filter-comments", "no-homedir", "no-dotenv", "no-k8s-kind-secret", "pattern", "example"}
_SNAPSHOT = re.compile(r"^packages/@secretlint/secretlint-rule-([\w-]+)/test/snapshots/((?:ng|ok)\.[^/]+)/([^/]+)$")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_~.\-]{8,}")
_SCHEME_HOST = re.compile(r"^[a-z][a-z0-9+.\-]*://[^/@:]*$|^[\w.\-]+\.(?:com|org|net|io)$")


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, check=True).stdout


def _text(gitdir: str, commit: str, path: str) -> str | None:
    try:
        return _git(gitdir, "show", f"{commit}:{path}").decode("utf-8")
    except (UnicodeDecodeError, subprocess.CalledProcessError):
        return None


def _longest_line(text: str) -> str:
    return max(text.splitlines() or [text], key=len).strip()


def secretlint_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    gitdir, commit = SECRETLINT
    dirs: dict[tuple[str, str], dict[str, str]] = {}
    for path in _git(gitdir, "ls-tree", "-r", "--name-only", commit, "packages/@secretlint/").decode().split("\n"):
        m = _SNAPSHOT.match(path)
        if m is None or m.group(1).startswith("preset") or m.group(1) in _NOT_SECRET_RULES:
            continue
        dirs.setdefault((m.group(1), m.group(2)), {})[m.group(3)] = path
    samples: list[Any] = []
    skipped: list[str] = []
    for (rule, snapshot), files in sorted(dirs.items()):
        inputs = [p for name, p in files.items() if name.startswith("input")]
        if len(inputs) != 1:
            skipped.append(f"secretlint:{rule}/{snapshot} ({len(inputs)} inputs)")
            continue
        text = _text(gitdir, commit, inputs[0])
        if text is None or not text.strip():
            skipped.append(f"secretlint:{rule}/{snapshot} (binary)")
            continue
        if snapshot.startswith("ok."):
            samples.append(sample_type("secretlint", rule, text))
            continue
        out = json.loads(_text(gitdir, commit, files["output.json"]) or "{}") if "output.json" in files else {}
        source = out.get("sourceContent", text)
        by_format: dict[str, list[str]] = {}
        for msg in out.get("messages", []):
            start, end = msg.get("range", [0, 0])
            secret = _longest_line(source[start:end])
            if len(secret) >= 6:
                by_format.setdefault(f"{rule}:{msg.get('messageId', '')}", []).append(secret)
        if not by_format:
            skipped.append(f"secretlint:{rule}/{snapshot} (no message)")
        for fmt, secrets in sorted(by_format.items()):
            samples.append(sample_type("secretlint", fmt, source, sorted(set(secrets))))
    return samples, skipped


def _token_secret(text: str) -> str | None:
    tokens = [t for t in _TOKEN.findall(text) if not _SCHEME_HOST.match(t)]
    return max(tokens, key=len) if tokens else None


def ripsecrets_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    gitdir, commit = RIPSECRETS
    samples: list[Any] = []
    skipped: list[str] = []
    for path in _git(gitdir, "ls-tree", "-r", "--name-only", commit, "test/").decode().split("\n"):
        text = _text(gitdir, commit, path) if path else None
        if text is None:
            continue
        name = path.rsplit("/", 1)[-1]
        if path.startswith("test/one_per_file/"):
            secret = _token_secret(text)
            if secret:
                samples.append(sample_type("ripsecrets", name, text, [secret]))
        elif path.startswith("test/one_per_line/"):
            for line in (ln for ln in text.splitlines() if ln.strip()):
                secret = _token_secret(line)
                if secret is None:
                    skipped.append(f"ripsecrets:{name} (no token)")
                else:
                    samples.append(sample_type("ripsecrets", name, line, [secret]))
        elif path == "test/none":
            samples.extend(sample_type("ripsecrets", "none", ln) for ln in text.splitlines() if ln.strip())
    return samples, skipped


def heldout_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    first, skipped = secretlint_samples(sample_type)
    more, skipped2 = ripsecrets_samples(sample_type)
    return first + more, skipped + skipped2
