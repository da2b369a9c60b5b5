"""The eleventh held-out redaction corpus named in ``bench/heldout_redaction_s21.txt``: thoughtworks/talisman's
detector tests, read from the mirrored git directory at the named commit.

``detector/pattern/pattern_detector_test.go``: each ``shouldPassDetectionOfSecretPattern`` call is a sample holding
a secret, each ``shouldFailDetectionOfSecretPattern`` a look-alike (a call naming ``values[i]`` expanded over the
file's ``values`` array). ``detector/filecontent/*_test.go``: one sample per test function, labelled by its
assertion. The secret of a true case is picked by ``redaction_octarine.secret_of``.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from redaction_2ms import go_string
from redaction_octarine import secret_of

TALISMAN = ("/work/.mirror/thoughtworks+talisman/repo", "efcb1a3629f60b5e0bec21c1f2a74c19bd2210f5")
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')
_CALL = re.compile(r"should(Pass|Fail)DetectionOfSecretPattern\(\s*filename\s*,\s*\[\]byte\(")
_VALUES = re.compile(r"values\s*:=\s*\[\d+\]string\{([^}]*)\}")
_FUNC = re.compile(r"^func (Test\w+)\(t \*testing\.T\) \{\n(.*?)^\}", re.S | re.M)
_CONST = re.compile(r"const \w+ string = ")
_S_ASSIGN = re.compile(r"\bs := ")
_ADDITION = re.compile(r"NewAddition\(\s*\w+\s*,\s*\[\]byte\(")
_IGNORES = ("AllowedPatterns", "FileIgnoreConfig", "Threshold", "IgnoreDetectors")
_VALUE = re.compile(r"strings\.(ToTitle|ToUpper)\(values\[i\]\)|values\[i\]")
_NOT_READ = ("filecontent_credit_card_detector_test.go", "word_check_test.go", "shannon_entropy_test.go")


def _git(*args: str) -> str:
    gitdir, _ = TALISMAN
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def _expr(source: str, start: int, value: str | None) -> str | None:
    """The Go string expression at ``start``: literals joined by ``+`` (a line may end in ``+``), ``values[i]``
    (optionally under ``strings.ToTitle``/``ToUpper``) read as ``value``. None when it is anything else."""
    out, i, operand = "", start, True
    while i < len(source):
        if source[i] in " \t" or (operand and source[i] in "\r\n"):
            i += 1
        elif not operand:
            if source[i] != "+":
                return out
            i, operand = i + 1, True
        elif (literal := _LITERAL.match(source, i)) is not None:
            out, i, operand = out + go_string(literal.group(0)), literal.end(), False
        elif (m := _VALUE.match(source, i)) is not None and value is not None:
            out, i, operand = out + (value.upper() if m.group(1) else value), m.end(), False
        else:
            return None
    return out


def _pattern_samples(sample_type: Any, samples: list[Any], skipped: list[str]) -> None:
    _, commit = TALISMAN
    source = _git("show", f"{commit}:detector/pattern/pattern_detector_test.go")
    values_m = _VALUES.search(source)
    values = [go_string(v.group(0)) for v in _LITERAL.finditer(values_m.group(1))] if values_m else []
    for call in _CALL.finditer(source):
        line = source.count("\n", 0, call.start()) + 1
        # it names values[i] when it reads with a value and not without one
        names_value = _expr(source, call.end(), None) is None and _expr(source, call.end(), "x") is not None
        cases = [(v, f"pattern/{v}") for v in values] if names_value else [(None, f"pattern/L{line}")]
        for value, fmt in cases:
            text = _expr(source, call.end(), value)
            _add(sample_type, samples, skipped, fmt, text, secret=call.group(1) == "Pass")


def _add(sample_type: Any, samples: list[Any], skipped: list[str], fmt: str, text: str | None, *, secret: bool) -> None:
    if not text:
        skipped.append(f"talisman:{fmt}")
        return
    if not secret:
        samples.append(sample_type("talisman", fmt, text, []))
        return
    value = secret_of(text)
    if len(value) < 8:
        skipped.append(f"talisman:{fmt}")
        return
    samples.append(sample_type("talisman", fmt, text, [value]))


def _label(body: str) -> bool | None:
    if "assert.True(t, results.HasFailures()" in body or "assert.Equal(t, s, res)" in body:
        return True
    if "assert.False(t, results.HasFailures()" in body or 'assert.Equal(t, "", res)' in body:
        return False
    return None


def _filecontent_samples(sample_type: Any, samples: list[Any], skipped: list[str]) -> None:
    _, commit = TALISMAN
    listing = _git("ls-tree", "--name-only", commit, "detector/filecontent/").split("\n")
    for path in sorted(p for p in listing if p.endswith("_test.go")):
        if path.rsplit("/", 1)[-1] in _NOT_READ:
            continue
        stem = path.rsplit("/", 1)[-1].removesuffix(".go")
        for func in _FUNC.finditer(_git("show", f"{commit}:{path}")):
            name, body = func.group(1), func.group(2)
            fmt = f"{stem}/{name}"
            label = _label(body)
            found = _CONST.search(body) or _S_ASSIGN.search(body) or _ADDITION.search(body)
            if any(word in body for word in _IGNORES) or label is None or found is None:
                skipped.append(f"talisman:{fmt}")
                continue
            text = _expr(body, found.end(), None)
            _add(sample_type, samples, skipped, fmt, text, secret=label)


def talisman_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    samples: list[Any] = []
    skipped: list[str] = []
    _pattern_samples(sample_type, samples, skipped)
    _filecontent_samples(sample_type, samples, skipped)
    return samples, skipped


if __name__ == "__main__":  # the reader's list, read before any run of the redactor
    from redaction_preview import preview

    preview(talisman_samples)
