"""The per-machine regex cache: patterns rebuilt from it behave as ``re.compile``'s, across processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_contracts.shared import regex

# CI's coverage leg traces subprocesses, which loads coverage's own modules (json, re, ...) into every
# process: import hygiene is checked by the untraced run (`./dev test`), not there.
_UNTRACED = pytest.mark.skipif(
    bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own"
)

PATTERNS = [
    (r"(?i)(?<![A-Za-z0-9_])(passwords?|passwd)\s*[:=]\s*(?P<value>\S+)", 0),
    (r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+", 0),
    (r"^\s*(\d+) (passed|failed)", re.MULTILINE),
    (r"(?x) a \d+  # verbose", 0),
]
TEXT = "Password = hunter2\n  3 passed\n12 failed\n密码 abc a12 PASSWD: x"

PROBE = """
import json, re, sys
from ctxops_contracts.shared import regex
out = []
for source, flags in json.loads(sys.argv[1]):
    pattern = regex.compile(source, flags)
    plain = re.compile(source, flags)
    text = sys.argv[2]
    out.append([pattern == plain, pattern.groupindex == plain.groupindex,
                [m.groups() for m in pattern.finditer(text)] == [m.groups() for m in plain.finditer(text)],
                [m.span() for m in pattern.finditer(text)]])
print(json.dumps(out))
"""


def _run(tmp_path: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(PATTERNS), TEXT],
        env={**os.environ, regex.CACHE_DIR_ENV: str(tmp_path), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_second_process_builds_equal_patterns_from_the_cache(tmp_path: Path) -> None:
    first = _run(tmp_path)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.startswith("regex-cpython-")
    second = _run(tmp_path)
    assert first == second
    for row in json.loads(second):
        assert row[:3] == [True, True, True]


def test_a_corrupt_cache_file_falls_back_to_compiling(tmp_path: Path) -> None:
    expected = _run(tmp_path / "fresh")
    (tmp_path / "bad").mkdir()
    name = next((tmp_path / "fresh").iterdir()).name
    (tmp_path / "bad" / name).write_bytes(b"\x00not marshal")
    assert _run(tmp_path / "bad") == expected
    # and a wrong entry shape for a known key is ignored too
    import marshal

    (tmp_path / "bad" / name).write_bytes(marshal.dumps({(PATTERNS[0][0], 0): (0, [1, 2], 0, {}, ())}))
    assert _run(tmp_path / "bad") == expected


def test_switched_off_it_writes_nothing(tmp_path: Path) -> None:
    _run(tmp_path, **{regex.CACHE_ENV: "0"})
    assert list(tmp_path.iterdir()) == []


def test_lazy_compiles_on_first_use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(regex.CACHE_DIR_ENV, str(tmp_path))
    pattern = regex.lazy(r"x(\d+)y")
    match = pattern.search("ax12y")
    assert match is not None and match.group(1) == "12"
    regex.save()
    assert [p.name for p in tmp_path.iterdir()] == [Path(regex.cache_file()).name]


def test_the_flag_constants_are_re_s() -> None:
    """Callers pass these instead of importing re; a pattern's cache key is (source, int(flags))."""
    ours = (regex.IGNORECASE, regex.MULTILINE, regex.DOTALL, regex.UNICODE, regex.VERBOSE, regex.ASCII)
    theirs = (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.UNICODE, re.VERBOSE, re.ASCII)
    assert ours == tuple(flag.value for flag in theirs)


@_UNTRACED
def test_a_cached_pattern_is_built_without_importing_re(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from ctxops_contracts.shared import regex\n"
        "p = regex.compile(r'^\\s*(\\d+) (passed|failed)', regex.MULTILINE)\n"
        "assert [m.groups() for m in p.finditer(' 3 passed\\n4 failed')] == [('3', 'passed'), ('4', 'failed')]\n"
        "assert p.sub('N', '1 passed') == 'N'\n"
        "print('re' in sys.modules, 'enum' in sys.modules)"
    )
    env = {**os.environ, regex.CACHE_DIR_ENV: str(tmp_path)}
    run = [sys.executable, "-c", probe]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert first == ["True", "True"]  # not cached yet: compiled by re, then written to the cache
    second = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert second == ["False", "False"]
