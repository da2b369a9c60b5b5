"""Hostile input: a file nested thousands deep is scanned in linear time (issue 21): nesting past
`depth.MAX_DEPTH` brackets is blanked before the parse and the file reported `partial` with the reason."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from cpu_timing import best_cpu_s
from ctxops_code_scan.depth import MAX_DEPTH, MAX_INDENT, cap_depth, cap_indent, max_depth
from ctxops_code_scan.extract import _CallbackScopes
from ctxops_code_scan.scan import scan_bytes, scan_file

SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "py-call": ("python", lambda n: "x = " + "f(" * n + "1" + ")" * n + "\n"),
    "py-list": ("python", lambda n: "x = " + "[" * n + "]" * n + "\n"),
    "py-dict": ("python", lambda n: "x = " + "{1: " * n + "1" + "}" * n + "\n"),
    "py-paren": ("python", lambda n: "x = " + "(" * n + "1" + ")" * n + "\n"),
    "ts-callback": ("typescript", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "tsx-callback": ("tsx", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "js-callback": ("javascript", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "ts-function": ("typescript", lambda n: "function f(a: A) {\n" * n + "}\n" * n),
    "ts-object": ("typescript", lambda n: "const x = " + "{a: " * n + "1" + "}" * n + ";\n"),
    "js-array": ("javascript", lambda n: "const x = " + "[" * n + "]" * n + ";\n"),
    "go-funclit": ("go", lambda n: "package p\nfunc f() {\n" + "g(func() {\n" * n + "})\n" * n + "}\n"),
    "go-composite": ("go", lambda n: "package p\nvar x = " + "[]any{" * n + "}" * n + "\n"),
    "go-call": ("go", lambda n: "package p\nvar x = " + "f(" * n + "1" + ")" * n + "\n"),
    "rust-block": ("rust", lambda n: "fn f() " + "{ g();\n" * n + "}\n" * n),
    "rust-paren": ("rust", lambda n: "fn f() { let x = " + "(" * n + "1" + ")" * n + "; }\n"),
    "java-block": ("java", lambda n: "class A { void f() " + "{ g();\n" * n + "}\n" * n + "}\n"),
    "java-paren": ("java", lambda n: "class A { int x = " + "(" * n + "1" + ")" * n + "; }\n"),
    "c-block": ("c", lambda n: "void f(void) " + "{ g();\n" * n + "}\n" * n),
    "c-paren": ("c", lambda n: "int x = " + "(" * n + "1" + ")" * n + ";\n"),
    "cpp-call": ("cpp", lambda n: "int x = " + "f(" * n + "1" + ")" * n + ";\n"),
    # Nesting the bracket scan cannot see: out of step after a template in a template's `${...}`, or after
    # a regex literal holding `/*` (the bound is evaded; the query's match limit keeps it linear)
    "ts-template-hidden": ("typescript", lambda n: "const s = `${f(``) + " + "f(() => " * n + "1" + ")" * n + "}`;\n"),
    "js-regex-hidden": (
        "javascript",
        lambda n: "const r = /[/*]/;\nconst s = " + "f(function (a) { return " * n + "1" + "; })" * n + "; // */\n",
    ),
    "ts-operator-chain": ("typescript", lambda n: "const x = " + " + ".join(["a"] * (8 * n)) + ";\n"),
}


def _cpu(lang: str, src: str) -> float:
    data = src.encode()
    return best_cpu_s(lambda: scan_bytes("m", lang, data, size=len(data), mtime_ns=0), runs=5)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_deep_nesting_scans_linearly(shape: str) -> None:
    # 16x the nesting: linear is ~16x, quadratic ~256x (main: py-call 83x, ts-callback 350x and more)
    lang, make = SHAPES[shape]
    assert _cpu(lang, make(3_200)) < 64 * _cpu(lang, make(200))


def test_many_sibling_callbacks_scan_linearly() -> None:
    # (one function's callbacks were each looked for in all of them: main 71x for 16x at 800 -> 12,800)
    def make(n: int) -> str:
        return "function f() {\n" + "g((x) => { x(); });\n" * n + "}\n"

    assert _cpu("typescript", make(12_800)) < 40 * _cpu("typescript", make(800))


@pytest.mark.parametrize("shape", ["py-if", "py-def", "py-isinstance"])
def test_deep_python_indentation_scans_linearly_in_its_bytes(shape: str) -> None:
    # (each level is indented one more: the bytes grow like the square of the levels)
    line = {
        "py-if": "if x:\n{0} f()",
        "py-def": "def f(a):\n{0} a()",
        "py-isinstance": "if isinstance(k, A):\n{0} k.m()",
    }

    def make(n: int) -> str:
        return "def g(k):\n" + "".join(" " * (i + 1) + line[shape].format(" " * (i + 1)) + "\n" for i in range(n))

    # (the bytes grow ~15x: 40x leaves room for a loaded machine; main's isinstance narrowing walked up every
    # block from every call: 45x at 100 -> 400; past ~510 levels tree-sitter's own parse gives up)
    assert _cpu("python", make(480)) < 40 * _cpu("python", make(120))


def test_past_the_indentation_bound_the_file_is_partial_and_the_rest_indexed() -> None:
    deep = "".join(" " * i + "if x:\n" for i in range(1, 200)) + " " * 200 + "f()\n"
    src = "def g():\n" + deep + "\ndef after():\n    h()\n"
    out = scan_bytes("m.py", "python", src.encode(), size=len(src), mtime_ns=0)
    assert out.file.parse_status == "partial"
    assert out.file.error is not None and f"nested deeper than {MAX_INDENT} indentation levels" in out.file.error
    assert [(s.name, s.line) for s in out.symbols] == [("g", 1), ("after", 203)]
    assert ("h", 204) in [(r.symbol_name, r.line) for r in out.references]


def test_indentation_levels_count_open_blocks_not_widths() -> None:
    deep = "".join(" " * w + "x\n" for w in range(100))  # 99 levels open at once
    flat = "".join("if a:\n" + " " * w + "x = 1\n" for w in range(1, 300))  # 299 widths, one level at a time
    assert cap_indent(deep.encode(), 10)[1] > 0
    assert cap_indent(flat.encode(), 10) == (flat.encode(), 0)


def test_past_the_bound_the_file_is_partial_and_the_code_after_it_indexed() -> None:
    deep = "x = " + "f(" * 1_000 + "1" + ")" * 1_000 + "\n"
    src = "def before():\n    pass\n\n" + deep + "\ndef after():\n    g()\n"
    out = scan_bytes("m.py", "python", src.encode(), size=len(src), mtime_ns=0)
    assert out.file.parse_status == "partial"
    assert out.file.error is not None and f"nested deeper than {MAX_DEPTH} brackets" in out.file.error
    assert [(s.name, s.line) for s in out.symbols if s.kind == "function"] == [("before", 1), ("after", 6)]
    assert ("g", 7) in [(r.symbol_name, r.line) for r in out.references]
    calls_of_f = [r for r in out.references if r.symbol_name == "f"]
    assert len(calls_of_f) == MAX_DEPTH + 1  # (up to the bound kept: `f(` past it is called with a blank)


def test_a_file_on_disk_reports_the_cut(tmp_path: Path) -> None:
    (tmp_path / "m.ts").write_text("const x = " + "[\n" * 5_000 + "]\n" * 5_000 + ";\nexport function f() {}\n")
    out = scan_file(tmp_path, "m.ts", "typescript")
    assert out.file.parse_status == "partial" and "nested deeper than" in (out.file.error or "")  # type: ignore[union-attr]
    assert [s.name for s in out.symbols] == ["x", "f"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("lang", "src"),
    [
        ("python", 'x = f"{' + "g(')', " * 2_000 + "1" + ")" * 2_000 + '}"\ndef after():\n    pass\n'),
        ("typescript", "const x = `${" + "g(')', " * 2_000 + "1" + ")" * 2_000 + "}`;\nexport function after() {}\n"),
    ],
)
def test_nesting_inside_a_string_that_holds_code_is_cut_too(lang: str, src: str) -> None:
    out = scan_bytes("m", lang, src.encode(), size=len(src), mtime_ns=0)
    assert out.file.parse_status == "partial" and "nested deeper than" in (out.file.error or "")
    assert [s.name for s in out.symbols if s.kind == "function"] == ["after"]
    assert [r for r in out.references if r.symbol_name == "g"] == []


def test_real_nesting_is_untouched() -> None:
    src = "def f():\n    return g([{'a': (1, 2)}], h(k(2)))\n"
    assert cap_depth(src.encode(), "python") == (src.encode(), 0)
    out = scan_bytes("m.py", "python", src.encode(), size=len(src), mtime_ns=0)
    assert out.file.parse_status == "ok" and out.file.error is None


def test_the_cut_keeps_every_line_and_offset() -> None:
    src = ("f(\n" * 300 + "1" + ")\n" * 300 + "g()\n").encode()
    capped, blanked = cap_depth(src, "javascript", 10)
    assert blanked > 0 and len(capped) == len(src)
    assert [i for i, b in enumerate(capped) if b == 10] == [i for i, b in enumerate(src) if b == 10]
    assert capped.endswith(b"g()\n") and max_depth(capped, "javascript") == 10


@pytest.mark.parametrize(
    ("lang", "src", "depth"),
    [
        ("python", "s = '" + "(" * 500 + "'  # " + "[" * 500 + "\nt = '''\n" + "{" * 500 + "\n'''\n", 0),
        ("python", 'x = f(")", f(")", f(")", 1)))\n', 3),  # a closer in a string hides nothing
        ("python", ")" * 500 + "\n" + "(" * 300, 300),  # nor do stray closers before
        ("typescript", "const s = `" + "(" * 500 + "`; // " + "{" * 500 + "\n/* " + "[" * 500 + " */\n", 0),
        ("javascript", "const s = '" + "(" * 500 + "', t = \"" + "[" * 500 + '";\n', 0),
        ("go", "var s = `" + "(" * 500 + "`\nvar r = '('\n", 0),
        ("rust", "fn f<'a>(x: &'a str) -> &'a str { let c = '{'; x }\n", 1),  # a lifetime is no quote
        ("c", 'char *s = "\\"(((("; char c = \'(\';\n', 0),
        ("python", 'x = "(((\n' + "(" * 4 + ")" * 4, 4),  # an unterminated string ends at its line
        # code in a string: every opener counts, a closer in its text hides none
        ("python", "x = f\"{g(')', g(')', 1))}\"", 3),
        ("python", 'x = "a f" + f"{g(g(1))}"', 3),
        ("typescript", 'const x = `a ${g(g(")"))}`', 3),
        ("javascript", "const x = `(((`", 0),  # (no `${` in the file: no template holds code)
    ],
)
def test_strings_and_comments_do_not_nest(lang: str, src: str, depth: int) -> None:
    assert max_depth(src.encode(), lang) == depth


def _random_spans(rng: random.Random, start: int, end: int, level: int, out: list[tuple[int, int, str]]) -> None:
    """Nested or disjoint spans in [start, end), as a function's callbacks are."""
    pos = start
    while pos < end - 2 and rng.random() < 0.7:
        a = rng.randrange(pos, end - 1)
        b = rng.randrange(a + 1, end)
        out.append((a, b, f"s{a}-{b}"))
        if level < 4:
            _random_spans(rng, a + 1, b, level + 1, out)
        pos = b


def test_callback_scopes_match_a_scan_of_every_callback() -> None:
    rng = random.Random(7)
    for _ in range(200):
        spans: list[tuple[int, int, str]] = []
        _random_spans(rng, 0, 200, 0, spans)
        scopes = _CallbackScopes()
        scopes._by_fn["fn"] = list(spans)
        for byte in range(-1, 202):
            inside = [s for s in spans if s[0] <= byte < s[1]]
            want = max(inside, key=lambda s: s[0])[2] if inside else "fn"
            assert scopes.at("fn", byte) == want


def test_nesting_the_bracket_scan_misses_is_reported_partial() -> None:
    # (a template inside a template's `${...}` puts the bracket scan out of step: the tags query's match
    # limit is what bounds the work, and the file says some references are missing)
    data = ("const s = `${f(``) + " + "g(" * 2_000 + "1" + ")" * 2_000 + "}`;\n").encode()
    result = scan_bytes("m.ts", "typescript", data, size=len(data), mtime_ns=0)
    assert result.file.parse_status == "partial"
    assert "query patterns open at once" in (result.file.error or "")


def test_real_nesting_under_the_limits_is_not_reported() -> None:
    data = ("const s = " + "g(" * 100 + "1" + ")" * 100 + ";\n").encode()
    result = scan_bytes("m.ts", "typescript", data, size=len(data), mtime_ns=0)
    assert result.file.parse_status == "ok", result.file.error
