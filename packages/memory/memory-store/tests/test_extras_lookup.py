"""The embedder lookup every fresh ``ctx mem`` process and hook makes: found as importlib.util finds it,
without importing importlib.util (issue 23, item 4)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_memory_store import extras


@pytest.mark.parametrize("name", ["msgspec", "sqlite3", "ctxops_memory_store", "no_such_module_here", "os"])
def test_find_spec_agrees_with_importlib(name: str) -> None:
    mine, theirs = extras._find_spec(name), importlib.util.find_spec(name)
    assert (mine and mine.origin) == (theirs and theirs.origin)


def test_an_installed_wordllama_is_found_without_importing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "wordllama"
    for relative in (extras.WORDLLAMA_TOKENIZER, extras.WORDLLAMA_WEIGHTS):
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_bytes(b"{}")
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n", encoding="utf-8")
    assert extras.wordllama_files() is None or "wordllama" in sys.modules  # not installed here
    monkeypatch.syspath_prepend(str(tmp_path))
    found = extras.wordllama_files()
    assert found == (str(package / extras.WORDLLAMA_TOKENIZER), str(package / extras.WORDLLAMA_WEIGHTS))
    assert "wordllama" not in sys.modules
    assert extras.vectors_maybe_on(str(tmp_path))


# CI's coverage leg traces subprocesses, which loads coverage's own modules into every process: import
# hygiene is checked by the untraced run (`./dev test`), not there.
@pytest.mark.skipif(bool(os.environ.get("COVERAGE_PROCESS_CONFIG")), reason="coverage tracing loads modules of its own")
def test_the_lookup_imports_no_importlib_util() -> None:
    code = (
        "import sys; from ctxops_memory_store import extras; "
        "extras.wordllama_files(); print('importlib.util' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"
