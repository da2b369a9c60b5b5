"""Go, JavaScript and TypeScript: a bare-name use whose innermost binding is a parameter or a local variable
is no use of an outer function of that name (`brace_scopes`), as the compilers resolve it."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _bare(src: str, lang: str, path: str = "m") -> list[tuple[int, str, str]]:
    ext = {"go": ".go", "javascript": ".js", "typescript": ".ts", "tsx": ".tsx"}[lang]
    out = extract(src.encode(), path + ext, lang)
    return [(r.line, r.symbol_name, r.role) for r in out.references if r.qualifier is None and r.role != "import"]


def _calls(src: str, lang: str) -> list[int]:
    return [line for line, _name, role in _bare(src, lang) if role == "call"]


TS = """import { handler, other, make } from './h';

export function run(handler: () => void): void {
  handler();
}

export function run2(cb: () => void): void {
  const other = cb;
  other();
}

export function run3(): void {
  handler();
  make();
}

export const run4 = ({ handler }: Opts, [other]: Fn[]) => { handler(); other(); };

export function run5(): void {
  function make() {}
  make();
  const other = () => 1;
  other();
  { let handler = 1; }
  handler();
}

export function run6(): void {
  try { handler(); } catch (handler) { handler(); }
  for (const make of makers) { make(); }
  make();
}
"""


def test_typescript_parameters_and_locals_shadow_imports() -> None:
    # kept: run3's two calls; run5's nested function and arrow (the resolver's symbols), the call after the
    # block whose `let` has ended; run6's call inside `try`, the one after the loop
    assert _calls(TS, "typescript") == [13, 14, 21, 23, 25, 29, 31]


def test_javascript_var_binds_in_the_function_and_let_in_the_block() -> None:
    src = """import { helper, other } from './h';
function f(a = 1, ...rest) {
  if (a) { var helper = rest[0]; }
  helper();
  switch (a) { case 1: let other = 2; other(); }
  other();
}
function g(x) { helper(x); }
const h = helper => helper();
"""
    assert _calls(src, "javascript") == [6, 8]


def test_a_top_level_binding_is_the_resolver_s_symbol() -> None:
    # `const other = ...` at the top level is a symbol: its use stays for the resolver; a top-level block's
    # `let` is local to the block
    src = "import { handler } from './h';\nconst other = pick();\nother();\n{ const handler = 1; handler(); }\n"
    assert _calls(src, "typescript") == [2, 3]


def test_types_and_values_are_separate_namespaces() -> None:
    # a local variable named like a type leaves the type reference alone; a type parameter shadows a type
    src = """import { Model, Box } from './m';
export function f(Model: number, box: Box): Model {
  const Box = 1;
  let m: Box = box;
  return m as Model;
}
export function g<Model>(m: Model): Model { return m; }
"""
    types = [(line, name) for line, name, role in _bare(src, "typescript") if role == "type"]
    assert (2, "Box") in types and (4, "Box") in types and (2, "Model") in types
    assert not [line for line, name in types if line == 7]


GO = """package g

func handler() {}

type T struct{}

func run(handler func()) {
	handler()
}

func run2(cb func()) {
	handler()
	handler := cb
	handler()
}

func run3() {
	if handler := pick(); handler != nil {
		handler()
	}
	handler()
	for _, handler := range hs {
		handler()
	}
	switch handler := v.(type) {
	default:
		handler()
	}
	select {
	case handler := <-ch:
		handler()
	}
	var T = 1
	_ = T
	fn := func(handler func()) { handler() }
	fn(nil)
}

func (handler *T) run4() {
	handler()
}

func run5[handler any](x handler) {
	handler()
}
"""


def test_go_parameters_and_locals_shadow_package_functions() -> None:
    # kept: the use before `handler :=` in run2 (a Go declaration's scope starts after it ends), `pick()` and
    # run3's call after the `if` (`fn(nil)` calls the local `fn`)
    assert _calls(GO, "go") == [12, 18, 21]


def test_many_nested_functions_extract_linearly() -> None:
    def source(n: int) -> str:
        body = "export function f{0}(handler: F): void {{\n  const k{0} = () => {{ handler(); }};\n}}\n"
        fns = "".join(body.format(i) for i in range(n))
        return "import { handler } from './h';\n" + fns

    assert _calls(source(50), "typescript") == []
    # 16x the functions: linear is ~16x, quadratic ~256x (the whole extraction of one file of 4,000 functions
    # already took 32x 250's before the scoping, 77x on a loaded CI: the sizes stay where it is near linear)
    assert best_cpu_s(lambda: extract(source(1_600).encode(), "m.ts", "typescript")) < 64 * best_cpu_s(
        lambda: extract(source(100).encode(), "m.ts", "typescript")
    )


def test_deeply_nested_blocks_extract_linearly() -> None:
    def source(n: int) -> str:
        return "package g\n\nfunc f() {\n" + "{\nx := 1\nx()\n" * n + "}\n" * n + "}\n"

    assert _calls(source(3), "go") == []
    assert best_cpu_s(lambda: extract(source(1_600).encode(), "m.go", "go")) < 64 * best_cpu_s(
        lambda: extract(source(100).encode(), "m.go", "go")
    )


def test_deeply_nested_callbacks_extract_linearly() -> None:
    def source(n: int) -> str:
        return "import { cb } from './h';\n" + "const f = (cb) => { let x = 1; cb(x);\n" * n + "};\n" * n

    assert _calls(source(3), "javascript") == []
    assert best_cpu_s(lambda: extract(source(1_600).encode(), "m.js", "javascript")) < 64 * best_cpu_s(
        lambda: extract(source(100).encode(), "m.js", "javascript")
    )
