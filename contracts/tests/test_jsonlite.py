"""jsonlite gives json's values, text and errors, without importing json (or re) on success."""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_contracts.shared import jsonlite

# CI's coverage leg traces subprocesses, which loads coverage's own modules (json, re, ...) into every
# process: import hygiene is checked by the untraced run (`./dev test`), not there.
_UNTRACED = pytest.mark.skipif(
    bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own"
)

ROOT = Path(__file__).resolve().parents[2]

TEXTS = [
    '{"a": [1, 2.5, -0.0, 1e400, true, false, null, "\\ud800x", "é", "\\u00e9\\n\\t"]}',
    "  [ ]  \n",
    '"just a string"',
    "12345678901234567890123",
    "-1.5e-3",
    '{"nested": {"deep": [[[{"k": "v"}]]]}, "dup": 1, "dup": 2}',
    "NaN",
    "[Infinity, -Infinity]",
    "\t{}\r\n",
]
BAD = ['{"a": 1} x', "", "   ", "[1,", '{"a" 1}', "[1, 2,]", '"unterminated', "[01]", '{"a": "\x01"}', "nul"]


def _same(got: object, want: object) -> bool:
    """Equal, with NaN equal to NaN (json.loads('NaN') != itself)."""
    if isinstance(got, float) and isinstance(want, float) and math.isnan(got):
        return math.isnan(want)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(_same(a, b) for a, b in zip(got, want, strict=True))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(_same(got[k], want[k]) for k in got)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize("text", TEXTS)
def test_loads_gives_what_json_gives(text: str) -> None:
    assert _same(jsonlite.loads(text), json.loads(text))
    assert _same(jsonlite.loads(text.encode()), json.loads(text.encode()))


@pytest.mark.parametrize("text", BAD)
def test_loads_raises_json_own_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        jsonlite.loads(text)
    assert str(got.value) == str(want.value)


def test_bytes_in_other_encodings_go_through_json_detection() -> None:
    for data in ('{"a": "é"}'.encode("utf-16"), b'\xef\xbb\xbf{"a": 1}', '["x"]'.encode("utf-32-le")):
        assert jsonlite.loads(data) == json.loads(data)
    with pytest.raises(UnicodeDecodeError):
        json.loads(b'"\xff"')
    with pytest.raises(UnicodeDecodeError):
        jsonlite.loads(b'"\xff"')


def test_parse_hooks_are_honoured() -> None:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} refused")

    assert jsonlite.loads("[1.5]", parse_float=str) == ["1.5"]
    with pytest.raises(ValueError, match="NaN refused"):
        jsonlite.loads("[NaN]", parse_constant=refuse)
    assert jsonlite.loads("[1.5]") == [1.5]  # a scanner per setting: the default one is unchanged


VALUES: list[object] = [
    {"a": [1, 2.5, None, True, False, "é\u2028\ud800", "\x00\x1f"], 7: 2, None: 3, 2.5: "f", True: "t"},
    [],
    {},
    [[[]], {"k": {}}],
    12345678901234567890123,
    1e-7,
    -0.0,
    "top-level string é",
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("compact", [True, False])
def test_dumps_gives_json_text(value: object, ensure_ascii: bool, compact: bool) -> None:
    separators = (",", ":") if compact else None
    want = json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
    assert jsonlite.dumps(value, ensure_ascii=ensure_ascii, compact=compact) == want


def test_dumps_errors_match_json() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        jsonlite.dumps({"a": object()})
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        jsonlite.dumps([math.inf], allow_nan=False)
    assert jsonlite.dumps([math.nan, -math.inf]) == json.dumps([math.nan, -math.inf])
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        jsonlite.dumps(loop)


def test_real_hook_payloads_round_trip_like_json() -> None:
    """Every line the example's recorded agent sessions hold: real payloads, transcripts and server logs."""
    lines = [
        line
        for path in sorted((ROOT / "examples").rglob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(lines) > 20
    for line in lines:
        value = jsonlite.loads(line)
        assert value == json.loads(line)
        assert jsonlite.dumps(value, ensure_ascii=False, compact=True) == json.dumps(
            value, ensure_ascii=False, separators=(",", ":")
        )


@_UNTRACED
def test_neither_json_nor_re_is_imported_on_success() -> None:
    probe = (
        "import sys\n"
        "from ctxops_contracts.shared import jsonlite\n"
        'value = jsonlite.loads(b\'{"a": [1, 2.5, "x"]}\')\n'
        'assert jsonlite.dumps(value, compact=True) == \'{"a":[1,2.5,"x"]}\'\n'
        "print(sorted(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(done.stdout.splitlines()[-1]))
    assert not {"json", "re", "enum"} & loaded
