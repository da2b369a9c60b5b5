"""TypeScript parameters typed without a written type of their own (issue 24 item 1, session 23): a destructured
parameter of a declared type, a function written as a member of an object literal whose type is declared (a
typed variable's value, or passed to a parameter that states it), as tsc types them; a union, `any`, a generic
or an undeclared literal gives nothing. Also `self` as a plain TypeScript name, and a closure deep in nested
callbacks. Each receiver is the type expression the code graph evaluates."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str) -> dict[tuple[int, str], str | None]:
    out = extract(src.encode(), "src/m.ts", "typescript")
    return {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}


def _types(src: str) -> set[tuple[str | None, str | None, str]]:
    out = extract(src.encode(), "src/m.ts", "typescript")
    return {(owner.rsplit(" ", 1)[-1] if owner else None, name, expr) for owner, name, expr in out.types}


DESTRUCTURED = """import type { Cxt, Other } from './t';
export function flat({gen, data}: Cxt) { gen.add(); }
export function nested({it: {gen}}: Cxt, {a = 1, b: bb}: Other) { gen.add(); a.go(); bb.go(); }
export const arrow = ({gen: g}: Cxt) => { g.add(); };
export class K { m({gen}: Cxt) { gen.add(); } }
export function untyped({gen}: any) { gen.add(); }
export function union({gen}: Cxt | Other) { gen.add(); }
export function rest({...gen}: Cxt) { gen.add(); }
export function generic<T>({gen}: T) { gen.add(); }
export function callback(xs: Cxt[]) { xs.forEach(({gen}) => gen.add()); }
export function stated(xs: Cxt[]) { xs.map(({gen}: Other) => gen.add()); }
"""


def test_a_destructured_parameter_of_a_declared_type_reads_its_members() -> None:
    got = _receivers(DESTRUCTURED)
    assert got[(2, "add")] == "Cxt#gen"
    assert (got[(3, "add")], got[(3, "go")]) == ("Cxt#it#gen", "Other#b")  # (`a = 1`'s row is `Other#a` too)
    assert got[(4, "add")] == "Cxt#gen"  # renamed
    assert got[(5, "add")] == "Cxt#gen"  # a method's
    for line in (6, 7, 8, 9):  # `any`, a union, `...rest`, a type parameter: nothing
        assert got[(line, "add")] is None, line
    assert got[(10, "add")] == "Cxt[]#forEach&0.0#gen"  # a callback's, typed by the callee (`xs.forEach`)
    assert got[(11, "add")] == "Other#gen"  # a callback's, stated


CONTEXTUAL = """import type { Def, Either, Cxt } from './t';
import { make } from './t';
export interface Local {
  code(cxt: Cxt, n: number): void
  run: (a: Cxt) => void
  gen<T>(x: T): void
}
const def: Def = {
  keyword: "k",
  code(cxt) { cxt.gen.add(); },
  error: (c) => c.fail(),
  message: ({params}) => params.x(),
};
const either: Def | Either = { code(cxt) { cxt.gen.add(); } };
const plain = { code(cxt) { cxt.gen.add(); } };
export const merged = { props: make({ mergeNames: (gen, to) => gen.add() }) };
export function viaMethod(o: Cxt) { o.run(1, { cb: (g) => g.x() }); }
"""


def test_a_function_in_an_object_literal_of_a_declared_type_takes_the_members_parameters() -> None:
    got = _receivers(CONTEXTUAL)
    assert got[(10, "add")] == "Def#code&p.0#gen"  # a method of a typed const's literal
    assert got[(11, "fail")] == "Def#error&p.0"  # an arrow of it
    assert got[(12, "x")] == "Def#message&p.0#params"  # destructured
    assert got[(14, "add")] is None and got[(15, "add")] is None  # a union; no declared type
    assert got[(16, "add")] == "&make#0#mergeNames&p.0"  # passed to a function: its parameter's type's member
    assert got[(17, "x")] == "Cxt#run&1#cb&p.0"  # passed to a method
    types = _types(CONTEXTUAL)
    # the declared members' parameters (`&p.j`); none for a type parameter
    assert ("Local.code().", "&p.0", "Cxt") in types and ("Local.run.", "&p.0", "Cxt") in types
    assert not any(owner == "Local.gen()." and name == "&p.0" for owner, name, _ in types)
    # a function's parameter of a named (not primitive) type: `&i`, what a literal passed there is read on
    assert ("viaMethod().", "&0", "Cxt") in types
    assert not any(name == "&1" for _, name, _ in _types("export function f(a: string, n: number) {}\n"))
    # an overloaded function or member: no contextual parameter types from either definition (as tsc)
    overloads = "function f(a: A): void;\nfunction f(a: B): void;\nfunction f(a: any) {}\n"
    overloads += "interface I { code(c: A): void; code(c: B): void; run(c: A): void }\n"
    assert {(o, n) for o, n, _ in _types(overloads) if n and n.startswith("&")} == {
        ("I.run().", "&0"),
        ("I.run().", "&p.0"),
    }


def test_self_is_a_plain_name_in_typescript() -> None:
    src = "import type { It } from './t';\nexport function f(it: It) {\n  const {self} = it;\n  self.logger.warn();\n}"
    assert _receivers(src)[(4, "warn")] == "It#self#logger"


def test_a_closure_deep_in_nested_callbacks_reads_the_local_around_it() -> None:
    # (ajv's uniqueItems: `gen` lost from the fourth nesting on, the closure walk shared the locals' depth budget)
    src = (
        "import type { Cxt } from './t';\nexport function code(cxt: Cxt) {\n  const {gen} = cxt;\n"
        "  function loop() {\n" + "    g(() => {\n" * 6 + "      gen.assign();\n" + "    });\n" * 6 + "  }\n}\n"
    )
    assert _receivers(src)[(11, "assign")] == "Cxt#gen"


def test_patterns_and_literal_members_extract_in_linear_time() -> None:
    def module(n: int) -> str:
        keys = ", ".join(f"k{i}: {{a{i}}}" for i in range(n))
        # (each callback's own local too: bound in its scope after the sweep, a bisection per local)
        calls = "".join(f"  make({{ m{i}: (g) => {{ const {{b}} = g; b.add(); }} }});\n" for i in range(n))
        return f"export function f({{{keys}}}: Cxt) {{\n{calls}  a0.go();\n}}\n"

    def best(src: str) -> float:
        assert _receivers(src)[(src.count("\n") - 1, "go")] == "Cxt#k0#a0"
        return best_cpu_s(lambda: _receivers(src))

    small, big = best(module(250)), best(module(4_000))
    assert big < 64 * max(small, 1e-4), (small, big)


def test_a_local_of_a_callback_is_read_in_the_callback() -> None:
    # (bound in the function before: `a` read the function's `x: K`, not the callback's element of `xs: J[]`)
    src = """import { K, J } from './t';
export function f(x: K, xs: J[]) {
  xs.forEach((x) => { const {a} = x; a.m(); for (const e of x.items) { e.go(); } });
  const {a} = x;
  a.p();
}
"""
    got = _receivers(src)
    assert (got[(3, "m")], got[(3, "go")]) == ("J[]#forEach&0.0#a", "J[]#forEach&0.0#items#[]")
    assert got[(5, "p")] == "K#a"


def test_a_function_returned_under_a_declared_function_type_takes_its_parameters() -> None:
    src = """import type { ParseCxt } from './t';
type GenParse = (cxt: ParseCxt) => void;
type GenT<T> = (cxt: T) => void;
export function token(fail: GenParse): GenParse {
  return (cxt) => { const {gen} = cxt; gen.assign(); };
}
export function generic(): GenT<ParseCxt> {
  return (cxt) => { cxt.gen.x(); };
}
"""
    got = _receivers(src)
    assert got[(5, "assign")] == "GenParse#&p.0#gen"
    assert got[(8, "x")] == "GenT#&p.0#gen"  # (GenT has no `&p.0` row: the graph finds nothing)
    types = _types(src)
    assert ("GenParse#", "&p.0", "ParseCxt") in types and not any(o == "GenT#" for o, _, _ in types)


def test_calling_a_parameter_or_local_is_not_the_modules_function_of_that_name() -> None:
    # (rxjs's `using(resourceFactory: () => ...)`: `resourceFactory()` was read as the module's function's result)
    src = """export function make(): K { return new K(); }
export function using(make: () => J) {
  const a = make();
  a.stop();
  return g((s) => { const b = make(); b.stop(); });
}
export function plain() { const c = make(); c.stop(); }
export function typed(left: K, right: K): { high: K } { const d = K(); d.stop(); }
"""
    got = _receivers(src)
    assert got[(4, "stop")] is None and got[(5, "stop")] is None
    assert got[(7, "stop")] == "=make"
    assert got[(8, "stop")] == "=K"  # (bson's `(left: Long, right: Long)`: a type's name is no parameter)
