"""The narrowing walks run only for names an `isinstance` (`instanceof`) of the file can narrow: every way
of writing the call that narrows must still narrow (the prefilter is a speed-up, never a change of rows)."""

from __future__ import annotations

import pytest
from ctxops_code_scan import extract as extract_module
from ctxops_code_scan.extract import extract
from ctxops_code_scan.type_exprs import py_narrowable

WRITTEN = [
    "if isinstance(x, K):\n        x.m()",
    "if isinstance(\n        x, K):\n        x.m()",
    "if isinstance( x ,K):\n        x.m()",
    "if isinstance(x  # why\n        , K):\n        x.m()",  # (a comment among the arguments: no narrowing)
    "if isinstance(x# why, and a comma\n        , K):\n        x.m()",
    "if isinstance(# why\n        x, K):\n        x.m()",
    "if isinstance(\\\n        x, K):\n        x.m()",
    "if isinstance(y, J) and isinstance(x, K):\n        x.m()",
    "if (isinstance(x, K)):\n        x.m()",
    "assert isinstance(x, K)\n    x.m()",
    "assert isinstance(\tx\t, K)\n    x.m()",
    "if isinstance(x, K):\n        pass\n    elif isinstance(x, K):\n        x.m()",
    "if isinstance(" + " " * 600 + "x, K):\n        x.m()",  # (a comma too far: every name is walked)
    "if isinstance(é, K):\n        é.m()",
]


@pytest.mark.parametrize("body", WRITTEN)
def test_every_narrowing_form_reads_as_without_the_prefilter(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    src = f"class K:\n    def m(self): ...\n\n\ndef f(x, y, é):\n    {body}\n".encode()
    filtered = extract(src, "n.py", "python")
    monkeypatch.setattr(extract_module, "py_narrowable", lambda source: None)  # every name walked, as before
    assert extract(src, "n.py", "python") == filtered
    got = [r.receiver_type for r in filtered.references if r.role == "call" and r.symbol_name == "m"]
    extra = "# why" in body or "\\\n" in body  # (a comment or a line continuation among the arguments)
    assert got[-1] == (None if extra else "K")


def test_the_prefilter_names_the_first_argument() -> None:
    assert py_narrowable(b"x = 1\ny.m()\n") == frozenset()  # no isinstance: nothing narrows
    found = py_narrowable(b"if isinstance(a, K) or isinstance(\n  b, J): pass\n# isinstance in prose, then a comma")
    assert found is not None and {"a", "b"} <= found and "K" not in found
    assert py_narrowable(b"isinstance(" + b" " * 600 + b"a, K)") is None  # too far to tell: no filter


def test_typescript_narrows_only_where_instanceof_is_written() -> None:
    narrowed = b"function f(x: A) {\n  if (x instanceof K) {\n    x.m();\n  }\n  x.m();\n}\n"
    out = extract(narrowed, "n.ts", "typescript")
    got = [r.receiver_type for r in out.references if r.role == "call" and r.symbol_name == "m"]
    assert got[0] == "K" and got[1] != "K"
