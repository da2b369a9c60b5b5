"""The sixth held-out redaction corpus named in ``bench/heldout_redaction_s16.txt``: aquasecurity/trivy's secret
scanner tests, read from the mirrored git directory at the named commit.

A finding's ``Match`` in ``pkg/fanal/secret/scanner_test.go`` is its line with the secret censored as a run of
``*`` of the secret's length: located in the testdata files, the text under the run is the secret. Lines of the
input files whose every test case expects no findings under the default config are look-alikes.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

TRIVY = ("/work/.mirror/aquasecurity+trivy/repo", "dc3c56eed58ab21c7e08d26757c517bc946a86c5")
_TESTS = "pkg/fanal/secret/scanner_test.go"
_DATA = "pkg/fanal/secret/testdata/"
_FINDING = re.compile(r'RuleID:\s*"([^"]+)"(?:(?!RuleID:)[\s\S]){0,2000}?Match:\s*("(?:[^"\\]|\\.)*"|`[^`]*`)')
_CASE = re.compile(r"\{\s*(?://[^\n]*\n\s*)*name:\s*\"[^\"]*\",([\s\S]*?)\n\t\t\},?\n")
_INPUT = re.compile(r'inputFilePath:\s*filepath\.Join\("testdata",\s*"([^"]+)"\)')
_CONFIG = re.compile(r'configPath:\s*filepath\.Join\("testdata",\s*"([^"]+)"\)')
_STARS = re.compile(r"\*+")
_SKIPPED_BY_PATH = {"example-secret.txt"}


def _git(*args: str) -> str:
    gitdir, _ = TRIVY
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def _go_string(literal: str) -> str:
    if literal.startswith("`"):
        return literal[1:-1]
    return bytes(literal[1:-1], "utf-8").decode("unicode_escape", "replace")


def _locate(match: str, files: dict[str, str]) -> tuple[str, str, list[str], int, int] | None:
    """The file holding ``match``, its text, the text under each ``*`` run, and where the match starts and ends."""
    runs = list(_STARS.finditer(match))
    pattern, last = "", 0
    for run in runs:
        pattern += re.escape(match[last : run.start()]) + f"([\\s\\S]{{{len(run.group(0))}}})"
        last = run.end()
    pattern += re.escape(match[last:])
    compiled = re.compile(pattern)
    for name, text in sorted(files.items()):
        found = compiled.search(text)
        if found is not None:
            return name, text, [found.group(i + 1) for i in range(len(runs))], found.start(), found.end()
    return None


def trivy_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    _, commit = TRIVY
    tests = _git("show", f"{commit}:{_TESTS}")
    names = [p for p in _git("ls-tree", "-r", "--name-only", commit, _DATA).split("\n") if p]
    files: dict[str, str] = {}
    for path in names:
        raw = subprocess.run(
            ["git", f"--git-dir={TRIVY[0]}", "show", f"{commit}:{path}"], capture_output=True, check=True
        ).stdout
        try:
            files[path.rsplit("/", 1)[-1]] = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text: left out
    samples: list[Any] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for rule, literal in _FINDING.findall(tests):
        match = _go_string(literal)
        if "*" not in match or match in seen:
            continue
        seen.add(match)
        located = _locate(match, {k: v for k, v in files.items() if not k.endswith(".yaml") or "secret" in k})
        if located is None:
            skipped.append(f"trivy:{rule}")
            continue
        _, text, under, start, end = located
        runs = [u for u in under if len(u) >= 6] or [max(under, key=len)]
        first = text.rfind("\n", 0, start) + 1
        if first == start and first > 0:
            first = text.rfind("\n", 0, first - 1) + 1  # the line before: a YAML/XML name above the value
        stop = text.find("\n", end)
        sample = text[first : stop if stop >= 0 else len(text)]
        samples.append(sample_type("trivy", rule, sample, [u.strip() for u in runs if u.strip()]))
    for case in _CASE.findall(tests):
        inputs, configs = _INPUT.findall(case), _CONFIG.findall(case)
        if not inputs or configs != ["skip-test.yaml"] or "Findings:" in case:
            continue
        name = inputs[0]
        if name in _SKIPPED_BY_PATH or name not in files:
            continue
        if any(name in _INPUT.findall(other) and "Findings:" in other for other in _CASE.findall(tests)):
            continue  # another test expects findings in this file
        for line in files[name].split("\n"):
            if line.strip():
                samples.append(sample_type("trivy", f"lookalike:{name}", line, []))
    return samples, skipped
