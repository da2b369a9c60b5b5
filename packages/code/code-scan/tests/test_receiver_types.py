"""Receiver types of Python calls: what a file states through annotations and constructor calls."""

from __future__ import annotations

from typing import Any

import pytest
from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract
from ctxops_code_scan.receiver_types import plain_type

SOURCE = b"""
from typing import Optional


class Holder:
    machine: OrderStateMachine
    other: "Optional[Thing]"
    many: list[Thing]

    def go(self):
        self.machine.transition()
        self.given.transition()
        self.built.transition()
        self.noted.transition()
        self.other.transition()
        self.many.transition()

    def __init__(self, given: OrderStateMachine, w: int) -> None:
        self.given = given
        self.built = Thing(w)
        self.noted: OrderStateMachine | None = None
        self.plain = w


def f(machine: OrderStateMachine, h: Holder, u, n: int = 0):
    machine.transition()
    h.machine.transition()
    h.a.b.transition()
    u.transition()
    n.bit_length()
    loc = OrderStateMachine()
    loc.transition()
    twice = A()
    twice = B()
    twice.transition()
"""


# The hostile-input tests grow a file 16x: linear code takes ~16x the time, a quadratic ~256x. tree-sitter's own
# parse and query matching grow a little faster than linear on one huge block (16x the lines took 20-30x here, and
# a slower CI machine's caches stretch that further), so the bound sits between, far from both.
LINEAR_BOUND = 64


def _extract_s(src: str, path: str = "shapes.py") -> float:
    """The best of three extractions' CPU seconds."""
    return best_cpu_s(lambda: extract(src.encode(), path, "python"))


def test_receiver_types_of_calls() -> None:
    refs = extract(SOURCE, "m.py", "python").references
    got = {(r.line, r.qualifier): r.receiver_type for r in refs if r.role == "call" and r.qualifier}
    assert got == {
        (11, "self.machine"): "OrderStateMachine",  # class-level annotated field
        (12, "self.given"): "OrderStateMachine",  # __init__ attribute from an annotated parameter (defined below)
        (13, "self.built"): "=Thing",  # __init__ attribute from a constructor call
        (14, "self.noted"): "OrderStateMachine",  # annotated attribute, X | None
        (15, "self.other"): "Thing",  # "Optional[Thing]"
        (16, "self.many"): "Self#many",  # not settled here (a generic): left to the graph, which finds no class
        (26, "machine"): "OrderStateMachine",
        (27, "h.machine"): "Holder#machine",  # the field is looked up in Holder by the code graph
        (28, "h.a.b"): "Holder#a#b",  # two hops: the graph follows them (type_exprs.py)
        (29, "u"): None,
        (30, "n"): "int",  # kept as written; the graph keeps only names that are classes of the repository
        (32, "loc"): "=OrderStateMachine",
        (35, "twice"): "=B",  # bound twice: the assignment that reaches the call (a checker's flow typing)
    }


def test_other_languages_have_no_receiver_types() -> None:
    refs = extract(b"function f(m) { m.transition(); }\n", "a.js", "javascript").references
    assert [r.receiver_type for r in refs] == [None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("X", "X"),
        ("mod.X", "mod.X"),
        ('"X"', "X"),
        ("Optional[X]", "X"),
        ("typing.Optional['X']", "X"),
        ("X | None", "X"),
        ("None | X", "X"),
        ("X | Y", None),
        ("list[X]", None),
        ("Dict[str, X]", None),
        ("Type[X]", None),  # the class itself, not an instance
        ("Result[object]", "Result"),  # an instance of a generic class
        ("mod.K[int, str]", "mod.K"),
        ("Final[_tracing.Tracer]", "_tracing.Tracer"),
        ("ClassVar[Optional[K]]", "K"),
        ("Annotated[X, 'meta']", "X"),
        ("Union[X, None]", "X"),
        ("Union[X, Y]", None),
        ("HookCaller[T] | None", "HookCaller"),
        ("None", None),
        ("a.b.C", None),
    ],
)
def test_plain_type(text: str, expected: str | None) -> None:
    assert plain_type(text) == expected


INFERRED = b"""
import pytest
from web import current_app
from .models import Response


class Client:
    def __init__(self):
        self.transport = self.make_transport()

    def get(self, url) -> Response:
        return self.send(url)

    def build(self):
        return Request(1)

    def again(self) -> "Self":
        return self

    def either(self, flag):
        if flag:
            return A()
        return B()

    def run(self):
        r = self.get("x")
        r.json()
        self.get("x").json()
        (await self.get("y")).json()
        self.transport.handle()
        current_app.url_for("x")


@pytest.fixture
def app():
    app = Flask("x")
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


def test_it(app, client, tmp_path=None):
    client.get("/").json()
    with app.test_client() as c:
        c.open()


def helper(app):
    app.run()
"""


def test_type_expressions_for_the_graph() -> None:
    """What a file cannot settle alone is written as a type expression (type_exprs.py)."""
    out = extract(INFERRED, "tests/test_web.py", "python")
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(27, "json")] == "Self#get()"  # r = self.get("x")
    assert got[(28, "json")] == "Self#get()"
    assert got[(29, "json")] == "Self#get()await"  # what awaiting get's result gives (its `await` row)
    assert got[(30, "handle")] == "Self#transport"
    assert got[(31, "url_for")] == "^current_app"  # an imported module-level instance
    assert got[(46, "json")] == "@client#get()"  # a pytest fixture parameter
    assert got[(48, "open")] == "@app#test_client()"
    assert got[(52, "run")] is None  # not a test or fixture: `app` is a plain parameter
    types = {(owner.rsplit(" ", 1)[-1] if owner else None, name): expr for owner, name, expr in out.types}
    assert types == {
        ("Client.get().", None): "Response",
        ("Client.build().", None): "=Request",
        ("Client.again().", None): "Self",
        ("Client#", "transport"): "Self#make_transport()",
        ("app().", None): "=Flask",
        ("client().", None): "@app#test_client()",
        ("app().", "@app"): "=Flask",  # what pytest passes a parameter `app` (the graph looks the name up)
        ("client().", "@client"): "@app#test_client()",
        # Client.either returns two different classes: their union (session 24), which the graph trusts only
        # where both find the method called in one class
        ("Client.either().", None): "A|B",
    }


def test_fixture_parameters_only_in_test_files() -> None:
    out = extract(INFERRED, "web/helpers.py", "python")
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(46, "json")] is None


def test_go_results_and_package_names() -> None:
    src = b"""package x

var CommandLine = NewFlagSet()

func NewFlagSet() *FlagSet { return nil }

func iter() (fieldIter, error) { return fieldIter{}, nil }

func f(xs []int) {
\tw, err := iter()
\tw.next()
\tnewPoint().String()
\tCommandLine.IntP()
\tfor _, v := range xs {
\t\tv.Run()
\t}
}
"""
    out = extract(src, "x/x.go", "go")
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got == {
        (11, "next"): "=iter",
        (12, "String"): "=newPoint",
        (13, "IntP"): "=NewFlagSet",
        (15, "Run"): None,  # a range variable: no known type
    }
    types = {(owner.rsplit(" ", 1)[-1] if owner else None, name): expr for owner, name, expr in out.types}
    assert types == {
        ("NewFlagSet().", None): "FlagSet",
        ("iter().", None): "fieldIter",
        (None, "CommandLine"): "=NewFlagSet",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*T", "T"),
        ("T", "T"),
        ("pkg.T", "pkg.T"),
        ("(*T, error)", "T"),
        ("(T, int)", "T"),  # the first of any results: what `x, n := f()` binds to x (go/types)
        ("(x, err error)", None),  # named results sharing `error`: no type `x`
        ("(a, b *T)", "T"),
        ("(func(a, b int) T, bool)", None),
        ("[]T", "T[]"),  # its elements (`xs[i]`, `range xs`) are Ts (issue 24)
        ("(w *Writer)", "Writer"),
        ("map[string]*T", "T[]"),
        ("(xs []*T, err error)", "T[]"),
        ("[]int", None),  # a basic type has no methods to find
        ("[][]T", "T[][]"),
        ("func() T", None),
        ("chan T", None),
    ],
)
def test_go_result(text: str, expected: str | None) -> None:
    from ctxops_code_scan.type_exprs import go_result

    assert go_result(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("([]byte, Segment)", [None, "Segment"]),
        ("(*Segments, bool)", ["Segments", None]),
        ("(a, b *Segments)", ["Segments", "Segments"]),
        ("(n int, s *S, err error)", [None, "S", None]),
        ("(m map[K, V]*T, ok bool)", ["T[]", None]),
    ],
)
def test_go_results_by_position(text: str, expected: list[str | None]) -> None:
    """Each result of a Go function, as `a, b := f()` binds them (go/types)."""
    from ctxops_code_scan.type_exprs import go_results

    assert go_results(text) == expected


def test_typescript_nullable_declared_types() -> None:
    src = b"function f(s: SchedulerLike | undefined, t: A | B) {\n  let a: Subscriber<T> | null = null;\n"
    src += b"  a.unsubscribe();\n  s.now();\n  t.now();\n}\n"
    refs = extract(src, "src/a.ts", "typescript").references
    got = {r.line: r.receiver_type for r in refs if r.role == "call" and r.qualifier}
    assert got == {3: "Subscriber", 4: "SchedulerLike", 5: "A|B"}  # the graph reads each member


def test_parameter_test_reads_the_list_once_and_agrees_with_the_pattern() -> None:
    """`_binds` answers from the list's parameter words; it must agree with the per-name pattern it replaced,
    on parameter lists as written (defaults, stars, annotations, odd spacing) and odd names."""
    import random
    import re

    from ctxops_code_scan.receiver_types import _binds

    def pattern(params: str, name: str) -> bool:
        return re.search(rf"[(,*\s]{re.escape(name)}\s*[:=,)]", params) is not None

    written = [
        "(self, client: Client, *args, timeout=3, **kw)",
        "(a,b)",
        "(x = f(y, z), *, key)",
        "(cls)",
        "()",
        "(é:int, _ß1)",
        "(self,\n    request ,\tresponse)",
    ]
    names = [
        "self",
        "client",
        "args",
        "timeout",
        "kw",
        "a",
        "b",
        "x",
        "y",
        "z",
        "key",
        "cls",
        "é",
        "_ß1",
        "f",
        "a.b",
        "",
    ]
    for params in written:
        for name in names:
            assert _binds(params, name) == pattern(params, name), (params, name)
    assert _binds("(self, client: Client)", "client") and not _binds("(self, clients)", "client")
    rng = random.Random(7)
    alphabet = "ab_x(),*: =\t\n[]'\"é1"
    for _ in range(20_000):
        params = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        for name in ("a", "ab", "x", "é", "_", "1", "a.b"):
            assert _binds(params, name) == pattern(params, name), (params, name)


TS_CONTEXT = b"""export function operate(init: (this: X, source: Stream, sink: Sink<T> | null) => void, n: number) {}
export class Holder {
  constructor(private s: Scheduler, readonly xs: Item[], plain: Clock) {}
  run(src: Stream, items: Item[]) {
    operate((source, sink) => sink.error());
    new Stream(function (inner) { inner.close(); });
    src.subscribe((v) => v.next());
    items.forEach((it) => it.use());
    for (const item of items) { item.use(); }
    const { s, xs: list } = this;
    s.now();
    list.pop();
    const d = this.s ?? fallback;
    d.now();
    (src as Other<T>).go();
    const later = () => src.close();
    fn((w) => w.close());
    let y = 1 - src!.done();
    const made = new Stream();
    made.close();
  }
}
"""


def test_typescript_contextual_facts() -> None:
    """Callback parameters, closures, destructuring, `??`, `as`, `x!`, `for ... of`, parameter properties:
    each receiver written as the type expression the code graph evaluates."""
    out = extract(TS_CONTEXT, "src/h.ts", "typescript")
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(5, "error")] == "&operate#0.1"  # the `this:` parameter does not count
    assert got[(6, "close")] == "&Stream#0.0"
    assert got[(7, "next")] == "Stream#subscribe&0.0"
    assert got[(8, "use")] == "Item[]#forEach&0.0"
    assert got[(9, "use")] == "Item[]#[]"
    assert got[(11, "now")] == "Self#s"
    assert got[(12, "pop")] == "Self#xs"
    assert got[(14, "now")] == "Self#s"  # `this.s ?? fallback`
    assert got[(15, "go")] == "Other"
    assert got[(16, "close")] == "Stream"  # a closure sees `src`
    assert got[(17, "close")] == "&fn#0.0"  # (the graph finds no function fn: no type)
    assert got[(18, "done")] == "Stream"  # tree-sitter's `(1 - src)!`
    assert got[(20, "close")] == "Stream"
    types = {(owner.rsplit(" ", 1)[-1] if owner else None, name): expr for owner, name, expr in out.types}
    assert types[("operate().", "&0.1")] == "Sink"  # `Sink<T> | null`
    assert ("operate().", "&0.0") in types and ("operate().", "&1.0") not in types
    assert types[("Holder#", "s")] == "Scheduler" and types[("Holder#", "xs")] == "Item[]"
    assert ("Holder#", "plain") not in types  # a plain constructor parameter is no field


def test_typescript_import_names_are_referenced_on_their_own_line() -> None:
    """A multi-line `import { a,\n  b }` references each name on its line (where the compiler sees it)."""
    out = extract(b"import {\n  a,\n  b as c,\n} from './m'\n", "src/x.ts", "typescript")
    assert {(r.symbol_name, r.line) for r in out.references if r.role == "import"} == {("a", 2), ("b", 3)}
    assert {(i.name, i.alias, i.line) for i in out.imports} == {("a", "a", 2), ("b", "c", 3)}


def test_typescript_function_type_parameters_bind_nothing() -> None:
    """`effect: (r: Reporter) => void` names a parameter of a function type: `r` in the body is another name."""
    src = b"function f(effect: (r: Reporter) => void) {\n  const r = new Reaction();\n  r.track();\n}\n"
    refs = extract(src, "src/a.ts", "typescript").references
    assert {r.line: r.receiver_type for r in refs if r.symbol_name == "track"} == {3: "Reaction"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (": Observable<T>", "Observable"),
        ("Subscriber<T> | null", "Subscriber"),
        ("Annotation | boolean", "Annotation"),
        ("A | B", "A|B"),  # the graph reads each member
        ("A<T> | B | null | A", "A|B"),
        ("K[] | K", "K[]|K"),
        ("K | (() => void)", "K"),  # a function type has no methods of a class
        ("A | { m(): void }", None),  # an object type: members the graph cannot read
        ("A | this", None),
        ("Map<string, Item<T>>", "Item{}"),
        ("ReadonlyMap<K, V[]>", None),  # a map of arrays: no element steps for it
        ("Set<Item>", "Item[]"),
        ("Map<K>", None),
        ("Item[]", "Item[]"),
        ("Array<Item<T>>", "Item[]"),
        ("readonly Item[]", "Item[]"),
        ("this", "Self"),
        ("(x: K) => void", None),
        ("'a' | 'b'", None),
    ],
)
def test_ts_type(text: str, expected: str | None) -> None:
    from ctxops_code_scan.type_exprs import ts_type

    assert ts_type(text) == expected


def test_typescript_results_from_returns_and_dollar_names() -> None:
    """A method without a stated result gives what all its own returns agree on (a callback's `return` is
    the callback's); `$from` is a name like any other."""
    src = b"""class Pos {
  get parent() {
    return this.node();
  }
  node(): Node {
    return null;
  }
  both(flag: boolean) {
    xs.map((x) => { return x; });
    if (flag) return new Pos();
    return undefined;
  }
  use() {
    let $from = this.node();
    $from.cut();
  }
}
"""
    out = extract(src, "src/p.ts", "typescript")
    types = {(owner.rsplit(" ", 1)[-1] if owner else None, name): expr for owner, name, expr in out.types}
    assert types[("Pos.parent().", None)] == "Self#node()"
    assert types[("Pos.both().", None)] == "=Pos"
    assert {r.line: r.receiver_type for r in out.references if r.symbol_name == "cut"} == {15: "Self#node()"}


TS_GENERIC = b"""import * as core from './core';
export function make<T, D = T>(name: string, init: (inst: T, def: D) => void): core.$Maker<T, D> {}
export function tap<T>(value: T, extra: T[], fn: (v: T) => T): void {}
export const Thing: core.$Maker<Thing> = core.make<Thing>("t", (inst) => inst.check());
tap(new Cube(), [], (v) => v.side());
"""


def test_typescript_instantiation_facts() -> None:
    """A callback parameter typed by the callee's own type parameter is a recipe naming where a call takes
    it from; a call states those sources in rows of its file, and its callbacks' steps name the call."""
    out = extract(TS_GENERIC, "src/g.ts", "typescript")
    types = {(owner.rsplit(" ", 1)[-1] if owner else None, name): expr for owner, name, expr in out.types}
    assert types[("make().", "&1.0")] == "%t0,r:$Maker:0"  # explicit, else the declared `$Maker<K, _>`
    assert types[("make().", "&1.1")] == "%t1,r:$Maker:1"
    assert types[("tap().", "&2.0")] == "%t0,u2,a0,u1"  # the callback's own result and `T[]`: not followed
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    at = TS_GENERIC.index(b'core.make<Thing>("t"')
    assert got[(4, "check")] == f"&core.make#1.0%{at}@src/g.ts"  # a namespace's function, at module level
    assert types[(None, f"%{at}.t0")] == "Thing" and types[(None, f"%{at}.r:$Maker:0")] == "Thing"
    assert types[(None, f"%{at}.a0")] == "?" and types[(None, f"%{at}.r")] == "core.$Maker"
    tap = TS_GENERIC.index(b"tap(new Cube()")
    assert got[(5, "side")] == f"&tap#2.0%{tap}@src/g.ts"
    assert types[(None, f"%{tap}.a0")] == "=Cube" and types[(None, f"%{tap}.a1")] == "?"


def _narrowed(src: str) -> dict[tuple[int, str], str | None]:
    out = extract(src.encode(), "shapes.py", "python")
    return {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}


def test_isinstance_narrowing_reads_each_block_once() -> None:
    # A hostile file: one block of n asserts and n calls. Each call's narrowing is looked up, not re-read from
    # the block's statements (which was quadratic: 8x the lines took ~64x the time).
    def source(n: int) -> str:
        body = "".join(f"    assert isinstance(x{i}, K)\n    x{i}.m()\n    y.n(x{i})\n" for i in range(n))
        return "class K:\n    def m(self):\n        return 1\n\n\ndef f(y):\n" + body

    small, big = source(200), source(3200)
    got = _narrowed(big)
    assert got[(8, "m")] == "K" and got[(9, "n")] is None  # (typed where the test is stated, not elsewhere)
    assert _extract_s(big) < LINEAR_BOUND * _extract_s(small)


def test_isinstance_narrowing_needs_one_class_and_no_rebinding() -> None:
    got = _narrowed(
        """
def f(a, b, c):
    assert isinstance(a, K)
    assert isinstance(a, L)
    a.m()
    if isinstance(b, K):
        b.m()
        b = 1
    if isinstance(c, K):
        c.m()
    c.m()
"""
    )
    assert got[(5, "m")] is None  # two classes stated for `a`
    assert got[(7, "m")] is None  # `b` is bound again in the body
    assert got[(10, "m")] == "K" and got[(11, "m")] is None


def test_the_assignment_that_reaches_a_call_types_its_receiver() -> None:
    # starlette's gzip middleware: `headers = Headers(...)`, later `headers = MutableHeaders(...)` in the same
    # function; a checker types each use by the assignment that reaches it, not by every assignment at once
    got = _narrowed(
        """
def f(raw, items, c):
    h = Headers(raw)
    h.get()
    h = MutableHeaders(raw)
    h.add_vary()
    if c:
        h.add_vary()
        h = Other()
        h.run()
    else:
        h.add_vary()
    h.get()
    g = Headers(raw)
    for i in items:
        g.run()
        g = Other()
    k = Headers(raw)
    try:
        k = Other()
    except ValueError:
        k.run()
    k = Ruler[int]()
    k.run(k := Other())
    d: Headers = MutableHeaders(raw)
    d.add_vary()
    while c:
        m = Headers(raw)
        m.get()
        m = Other()
    n = Headers(raw)
    n.x.run()
    n = n.copy()
    n.run()
"""
    )
    assert got[(4, "get")] == "=Headers" and got[(6, "add_vary")] == "=MutableHeaders"
    assert got[(8, "add_vary")] == "=MutableHeaders" and got[(10, "run")] == "=Other"
    assert got[(12, "add_vary")] == "=MutableHeaders"  # (the `if` branch that rebinds does not run before `else`)
    assert got[(13, "get")] is None  # either branch's value reaches it
    assert got[(16, "run")] is None  # the loop brings `Other` back
    assert got[(22, "run")] is None  # the `try` body may have run
    assert got[(24, "run")] is None  # a walrus in the same statement
    assert got[(26, "add_vary")] == "Headers"  # a declared local keeps its declared type
    assert got[(29, "get")] == "=Headers"  # a binding inside the loop's body, before the call, reaches it
    assert got[(33, "copy")] == "=Headers"  # the right side reads the binding before its own
    assert got[(34, "run")] == "=Headers#copy()"  # `n = n.copy()`: what `copy` of that Headers gives


def test_the_reaching_assignment_reads_each_block_once() -> None:
    # A hostile block: n locals each assigned and called, one block; each call's binding is looked up in an
    # index of the block built once, not by reading the statements before it (quadratic)
    def source(n: int) -> str:
        body = "".join(f"    x{i} = K()\n    x{i}.m()\n    y.n(x{i})\n" for i in range(n))
        return "class K:\n    def m(self):\n        return 1\n\n\ndef f(y):\n" + body

    small, big = source(200), source(3200)
    got = _narrowed(big)
    assert got[(8, "m")] == "=K" and got[(9, "n")] is None
    assert _extract_s(big) < LINEAR_BOUND * _extract_s(small)


def test_the_reaching_assignment_of_a_method_result_is_followed() -> None:
    # structlog's typing tests: `fblog = fblogger.bind(...)`, `fblog = fblog.unbind("k")`, `fblog.debug(...)`:
    # each use reads the assignment before it, whose own receiver is read where that assignment is
    got = _narrowed(
        """
def f(fblogger: Logger, make):
    fblog = fblogger.bind(k=1)
    fblog.info("bound")
    fblog = fblog.unbind("k")
    fblog.debug("unbound")
    other = Client()
    other = other.session()
    other.get()
    fblog = make()
    fblog.warn()
    hook: Hook | None = getattr(make, "h")
    hook = getattr(make, "h")
    hook.call()
"""
    )
    assert got[(14, "call")] == "Hook"  # a declared local keeps its declared type after an assignment
    assert got[(4, "info")] == "Logger#bind()"
    assert got[(6, "debug")] == "Logger#bind()#unbind()"
    assert got[(9, "get")] == "=Client#session()"
    assert got[(11, "warn")] is None  # `make` is a parameter: its call is not a function's result


def test_a_class_level_annotation_is_the_attribute_type_for_every_assignment() -> None:
    # structlog's AsyncBoundLogger: `sync_bl: BoundLogger` in the class body, `self.sync_bl = _sync_bl` (an
    # `Any` parameter) in `__init__`: a checker holds the attribute to its declared type
    got = _narrowed(
        """
from typing import Any


class Async:
    sync_bl: BoundLogger

    def __init__(self, _sync_bl: Any = None, other: Other = None):
        if _sync_bl:
            self.sync_bl = _sync_bl
        else:
            self.sync_bl = make()
        self.later = other
        self.later = Third()

    def unbind(self):
        self.sync_bl.unbind()
        self.later.run()
"""
    )
    assert got[(17, "unbind")] == "BoundLogger"
    assert got[(18, "run")] in (None, "Self#later")  # undeclared, assigned two types: no class here


FIXTURE_CASES = """
import pytest


@pytest.fixture(scope="module", name="client")
def make_client() -> Iterator[Client]:
    yield build()


@pytest.fixture
def conn() -> t.Generator["Conn", None, None]:
    yield connect()


@pytest.fixture()
def db(db):
    db.reset()
    return db


@pytest.fixture
def loose() -> Any:
    return Loose()


@other.decorator
def not_a_fixture():
    return Storage()


@pytest.mark.parametrize("a, b", [(1, 2)])
@pytest.mark.parametrize(argnames=["c"], argvalues=[3])
@pytest.mark.parametrize(("d", "e"), [(1, 2)], indirect=["e"])
@pytest.mark.parametrize("f", [1], indirect=True)
def test_params(a, b, c, d, e, f, g):
    a.m(), b.m(), c.m(), d.m(), e.m(), f.m(), g.m()


@pytest.mark.parametrize("h", [1])
class TestK:
    def test_in_class(self, h, client):
        h.m(), client.get()
"""


def test_fixture_rows_and_parameters() -> None:
    """pytest's rules: `name=` renames a fixture; a generator fixture's value is what it yields; a fixture
    requesting its own name gets the one it overrides (`@<db`); `@pytest.mark.parametrize` fills its
    parameters (of the function and of the classes around it) unless it is `indirect`."""
    out = extract(FIXTURE_CASES.encode(), "tests/test_fix.py", "python")
    rows = {(owner.rsplit(" ", 1)[-1], name): expr for owner, name, expr in out.types if name and name[:1] == "@"}
    assert rows == {
        ("make_client().", "@client"): "Client",
        ("conn().", "@conn"): "Conn",
        ("db().", "@db"): "@<db",
        ("loose().", "@loose"): "Any",  # the stated type, not `Loose` (the graph finds no class `Any`)
    }  # `not_a_fixture` is no fixture
    got = {(r.line, r.qualifier): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(17, "db")] == "@<db"
    assert [got[(36, q)] for q in "abcdefg"] == [None, None, None, None, "@e", "@f", "@g"]
    assert got[(42, "h")] is None and got[(42, "client")] == "@client"


def test_fixture_parameters_read_each_test_once() -> None:
    # A hostile test module: n renamed fixtures and n parametrized tests in parametrized classes; each test's
    # decorators and the classes around it are read once (16x the lines within LINEAR_BOUND times the time).
    def source(n: int) -> str:
        out = ["import pytest\n"]
        for i in range(n):
            out.append(f"@pytest.fixture(name='g{i}')\ndef f{i}() -> K:\n    return K()\n")
            out.append(f"@pytest.mark.parametrize('p', [1])\nclass TestC{i}:\n")
            out.append("    @pytest.mark.parametrize(('q', 'r'), [(1, 2)], indirect=['r'])\n")
            out.append(f"    def test_{i}(self, g{i}, p, q, r):\n        g{i}.m(p, q, r)\n")
        return "".join(out)

    small, big = source(75), source(1200)
    out = extract(big.encode(), "tests/test_big.py", "python")
    got = {r.qualifier: r.receiver_type for r in out.references if r.role == "call" and r.symbol_name == "m"}
    assert got["g7"] == "@g7"
    assert _extract_s(big, "tests/test_big.py") < LINEAR_BOUND * _extract_s(small, "tests/test_big.py")


def test_caught_exceptions_and_class_object_parameters() -> None:
    """`except K as e` binds an instance of K (a tuple of classes: none); `self.cls = cls` with `cls: type[K]`
    in `__init__` makes `self.cls(...)` a K (the attribute's row `cls()`)."""
    src = b"""
import tenacity


class Retrying:
    def __init__(self, retry_error_cls: type[RetryError] = RetryError, n: int = 0):
        self.retry_error_cls = retry_error_cls
        self.n = n

    def run(self, fut):
        retry_exc = self.retry_error_cls(fut)
        retry_exc.reraise()


def f():
    try:
        g()
    except tenacity.RetryError as retry_err:
        retry_err.reraise()
    except (RetryError, KeyError) as k:
        k.reraise()


def h(x):
    try:
        g()
    except a.b.RetryError as e:
        e.reraise()
    e = x
    e.reraise()
"""
    out = extract(src, "m.py", "python")
    got = {(r.line, r.qualifier): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(12, "retry_exc")] == "Self#retry_error_cls()"
    assert got[(19, "retry_err")] == "=tenacity.RetryError"
    assert got[(21, "k")] is None
    assert got[(28, "e")] is None and got[(30, "e")] is None  # `e` bound twice, to different things
    rows = {(owner.rsplit(" ", 1)[-1], name): expr for owner, name, expr in out.types}
    assert rows[("Retrying#", "retry_error_cls()")] == "RetryError"


def test_a_local_named_like_a_class_is_no_class() -> None:
    """wtforms' tests: `F = make_form(...)` (a class made by `type(...)`) then `form = F(...)`: the local `F`
    shadows the module's `class F`, so `form` is not the module's F (a parameter `F` shadows it too)."""
    src = b"""
class F(Form):
    pass


def test_a():
    F = make_form(a=1)
    form = F(1)
    form.validate()
    F(2).validate()


def helper(F):
    form = F(1)
    form.validate()


def test_c():
    form = F(1)
    form.validate()
    F(2).validate()
"""
    out = extract(src, "tests/test_f.py", "python")
    got = [(r.line, r.receiver_type) for r in out.references if r.role == "call" and r.symbol_name == "validate"]
    assert got == [(9, None), (10, None), (15, None), (20, "=F"), (21, "=F")]


def test_narrowing_holds_past_stores_into_the_object_and_comments() -> None:
    # tomlkit's `Container.append`: `if isinstance(item, Table):` then `item.trivia.indent = "\n"` (a store into
    # the object, no new binding of `item`) and a comment `b=1` in the narrowed block: a checker keeps `item`
    # a Table there; `item = ...`, `x, item = ...`, `for item in ...`, `as item` are new bindings
    got = _narrowed(
        """
def f(item, other, third, fourth, key):
    if isinstance(item, Table):
        if not key:
            item.invalidate()
        item.trivia.indent = "\\n"
        item[0] = 1
        self.item = item  # e.g. [a] b=1 item
        item.run()
    if isinstance(other, Table):
        other.run()
        x, other = 1, 2
    if isinstance(third, Table):
        third.run()
        with open("#x") as third:
            pass
    if isinstance(fourth, Table):
        fourth.run()
        y = "#"; fourth = 1
"""
    )
    assert got[(5, "invalidate")] == "Table" and got[(9, "run")] == "Table"
    assert got[(11, "run")] is None and got[(14, "run")] is None and got[(18, "run")] is None


def test_comments_are_cut_in_linear_time() -> None:
    # a hostile line: thousands of `#` inside a string, each once looked at
    def source(n: int) -> str:
        body = "".join(f"        s{i} = '{'#' * 2000}' # b=1\n" for i in range(n))
        return f"def f(x):\n    if isinstance(x, K):\n{body}        x.m()\n"

    small, big = source(25), source(400)
    assert _narrowed(big)[(402 + 1, "m")] == "K"
    assert _extract_s(big) < LINEAR_BOUND * _extract_s(small)


def test_checker_classes_extract_linearly() -> None:
    # a hostile file of session 14's forms: classes defined in methods with `self.X` bases and `super()`
    # calls, awaited calls, identity helpers, in thousands
    def source(n: int) -> str:
        body = "".join(
            f"    async def t{i}(self, x):\n"
            f"        class C{i}(self.Cache):\n"
            f"            def m(self):\n"
            f"                return super().m()\n"
            f"        (await x.get{i}()).run()\n"
            f"        copy.deepcopy(K{i}()).run()\n"
            for i in range(n)
        )
        return "import copy\n\n\nclass T:\n    Cache: type[K]\n\n" + body

    small, big = source(75), source(1200)
    out = extract(big.encode(), "shapes.py", "python")
    got = {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}
    assert got[(10, "m")] is None and got[(12, "run")] == "=K0"  # (a base `self.Cache` is no name to look up)
    inherited = {(r.line, r.symbol_name, r.qualifier) for r in out.references if r.role == "inherit"}
    assert (8, "K", None) in inherited and (8, "Cache", "self") in inherited  # `Cache: type[K]`: also K
    assert _extract_s(big) < LINEAR_BOUND * _extract_s(small)


def test_the_reaching_assignment_reads_only_statements_that_hold_the_name(monkeypatch) -> None:
    # A statement whose text does not hold the name binds no such name: its names are left unread (main read
    # every statement of every block around a call). The same reaching value either way.
    from ctxops_code_scan import type_exprs

    read: list[str] = []
    real = type_exprs.bound_names

    def counted(text: str) -> frozenset[str]:
        read.append(text)
        return real(text)

    monkeypatch.setattr(type_exprs, "bound_names", counted)
    body = "".join(f"    v{i} = g({i})\n" for i in range(40))
    source = "class K:\n    def m(self):\n        return 1\n\n\ndef f():\n    h = K()\n" + body + "    h.m()\n"
    got = _narrowed(source)
    assert got[(48, "m")] == "=K"
    assert not any(text.startswith("v") for text in read)


def test_a_region_asked_about_many_names_is_read_once(monkeypatch) -> None:
    # A hostile `try`: a long body, then a handler calling n module-level names the body never binds; each
    # call asks whether the body (which ran before the handler) rebinds its name. Past a few names the body's
    # words are read once and answer the rest, not its bytes copied and searched again for every name
    # (quadratic: 4.0 CPU-s at n = 16,000 before, 1.9 after)
    from ctxops_code_scan import type_exprs

    read: list[str] = []
    real = type_exprs.bound_names

    def counted(text: str) -> frozenset[str]:
        read.append(text)
        return real(text)

    def source(n: int) -> str:
        head = "".join(f"n{i} = K()\n" for i in range(n))
        body = "".join(f"    z{i} = {i}\n" for i in range(n))
        calls = "".join(f"    n{i}.m()\n" for i in range(n))
        return "class K:\n    def m(self):\n        return 1\n\n\n" + head + "try:\n" + body + "except E:\n" + calls

    small, big = source(500), source(8000)
    assert _extract_s(big) < LINEAR_BOUND * _extract_s(small)
    monkeypatch.setattr(type_exprs, "bound_names", counted)
    got = _narrowed(source(40))
    assert got[(5 + 40 + 1 + 40 + 1 + 1, "m")] == "=K" and got[(5 + 40 + 1 + 40 + 1 + 40, "m")] == "=K"
    assert sum(text.startswith("z0 = 0") for text in read) == 1


GO_UNPACKINGS = {  # one `a0, ..., an := ...` of n names: each name placed once per declaration, not per name
    "a call": lambda names, n: f"func f() {{\n\t{names} := g()\n}}\n",
    "literals": lambda names, n: f"func f() {{\n\t{names} := {', '.join('K{}' for _ in range(n))}\n}}\n",
    "package var": lambda names, n: f"var {names} = g()\n",
}


@pytest.mark.parametrize("shape", sorted(GO_UNPACKINGS))
def test_one_long_go_declaration_extracts_linearly(shape: str) -> None:
    from cpu_timing import best_cpu_s

    def best(n: int) -> float:
        src = "package x\n\ntype K struct{}\n\n" + GO_UNPACKINGS[shape](", ".join(f"a{i}" for i in range(n)), n)
        return best_cpu_s(lambda: extract(src.encode(), "x/x.go", "go"))

    assert best(4_000) < 64 * best(250)


def test_long_typescript_intersection_alias_extracts_linearly() -> None:
    from cpu_timing import best_cpu_s

    def best(n: int) -> float:
        src = "type P = " + " & ".join(f"A{i}" for i in range(n)) + ";\n"
        return best_cpu_s(lambda: extract(src.encode(), "m.ts", "typescript"))

    assert best(4_000) < 64 * best(250)


@pytest.mark.parametrize(
    "shape",
    [
        lambda n: "type P = " + " | ".join(f"A{i}<T>" for i in range(n)) + ";\n",  # an alias's union
        lambda n: "function f(x: " + " | ".join(f"A{i}" for i in range(n)) + ") {}\n",  # a union elsewhere
        lambda n: "interface I extends " + ", ".join(f"Omit<A{i}<B<C>>, 'k'>" for i in range(n)) + " {}\n",
    ],
)
def test_long_typescript_unions_and_utility_bases_extract_linearly(shape: Any) -> None:
    from cpu_timing import best_cpu_s

    def best(n: int) -> float:
        src = shape(n)
        return best_cpu_s(lambda: extract(src.encode(), "m.ts", "typescript"))

    assert best(4_000) < 64 * best(250)


TS_NARROWING = b"""import { Shape, isCircle } from './shapes';
export function f(s: Shape, t: Shape, u: Shape, v: Shape, w: Shape) {
  w.area();
  if (s.kind === 'c') s.area();
  switch (t.kind) { case 's': t.area(); }
  if (!isCircle(u)) return;
  u.area();
  const g = () => v.area();
  if (v) {}
  v.area();
  w.area();
  assertSquare(w);
  w.area();
}
"""


def test_typescript_receiver_a_narrowing_may_pick_union_parts_of_is_marked() -> None:
    # `!`: the graph keeps no certain answer there where a union's parts disagree (a condition around the
    # call names the receiver, or an `if` or a call passing it comes before, in the same function).
    refs = extract(TS_NARROWING, "src/u.ts", "typescript").references
    got = [(r.line, r.receiver_type) for r in refs if r.symbol_name == "area"]
    assert got == [
        (3, "Shape"),
        (4, "!Shape"),
        (5, "!Shape"),
        (7, "!Shape"),
        (8, "Shape"),  # (a function's body: narrowing before it does not reach into it)
        (10, "!Shape"),
        (11, "Shape"),
        (13, "!Shape"),
    ]


@pytest.mark.parametrize(
    "shape",
    [
        lambda n: "function f(x: A) {\n" + "".join(f"  if (x.k === {i}) return;\n  x.m();\n" for i in range(n)) + "}\n",
        lambda n: "function f(x: A) {\n" + "if (x.k && (" * n + "x.m()" + "))" * n + ";\n}\n",
        lambda n: "function f(x: A) {\n" + "".join(f"  if (y{i}) {{ x.m(); }}\n" for i in range(n)) + "}\n",
        lambda n: "function f(x: A) {\n" + "if (y) { x.m();\n" * n + "}" * n + "\n}\n",  # nested: walks bounded
    ],
)
def test_typescript_narrowing_marks_extract_linearly(shape: Any) -> None:
    from cpu_timing import best_cpu_s

    def best(n: int) -> float:
        src = shape(n)
        return best_cpu_s(lambda: extract(src.encode(), "m.ts", "typescript"))

    assert best(4_000) < 64 * best(250)


TS_CONDITIONAL = b"""function one(): Cache { return null as any }
export function f(n: number) {
  const cache = n <= 1 ? one() : two(n);
  cache.get('y');
  function inner() { cache.get('z'); }
  function shadowed(cache: Other) { cache.get('w'); }
  const p = (n > 1) ? new K() : 3;
  p.go();
  return cache;
}
"""


def test_typescript_conditional_local_has_both_arms() -> None:
    # `a;b`: the graph evaluates each arm and keeps one class only where they agree or one is a base of the
    # other; a closure reads the outer local, a parameter of that name shadows it; an arm not read, nothing.
    out = extract(TS_CONDITIONAL, "src/c.ts", "typescript")
    got = [(r.line, r.receiver_type) for r in out.references if r.role == "call" and r.qualifier]
    assert got == [(4, "=one;=two"), (5, "=one;=two"), (6, "Other"), (8, None)]
    assert not [t for t in out.types if ";" in t[2]]  # (only a receiver holds both arms: `return cache` none)


TS_OBJECT_CONST = b"""export const utils = {
  size: 1,
  alloc(n: number): Buf { return new Buf(); },
  inner: { deep(): void {} },
  copy(a: Buf): number { return utils.alloc(1).len(); },
};
let later = { go(): void {} };
const typed: Api = { run(): void {} };
export function f(utils2: number) {
  utils.alloc(2);
  later.go();
  typed.run();
}
export function g(utils: Api) {
  utils.alloc(3);
}
"""


def test_typescript_object_literal_const_methods_are_its_members() -> None:
    # `const o = { m() {} }` at module level: m is o's member (`o.m`), and `o.m()` reads o itself (`^o`); a
    # `let` (reassignable), a const with a written type (that type, as before), a nested literal's method and
    # a parameter of that name are left as they were.
    out = extract(TS_OBJECT_CONST, "src/o.ts", "typescript")
    parents = {s.qualname: s.parent for s in out.symbols if s.kind == "method"}
    assert parents == {
        "utils.alloc": "typescript src/o.ts utils.",
        "deep": None,
        "utils.copy": "typescript src/o.ts utils.",
        "go": None,
        "run": None,
    }
    got = [(r.line, r.symbol_name, r.receiver_type) for r in out.references if r.role == "call" and r.qualifier]
    assert got == [
        (5, "len", "^utils#alloc()"),
        (5, "alloc", "^utils"),
        (10, "alloc", "^utils"),
        (11, "go", None),
        (12, "run", "Api"),
        (15, "alloc", "Api"),
    ]


TS_OBJECT_SHAPES = b"""import { Long } from './long';
function multiply(left: number): { high: Long; low?: Long; n: number } {
  return null as any;
}
export function f(a: number) {
  const s = multiply(a);
  s.high.add(a);
  s.high.shift(49).and(a);
  s.low.add(a);
  const dec = { low: Long.fromNumber(0), high: new Long(1), n: 3, ...other };
  dec.high.or(a);
  const d2 = { low: Long.fromNumber(0), high: new Long(1), n: 3 };
  d2.high.or(a);
  d2.low.or(a);
  d2.n.toFixed();
  let lt = { high: new Long(1) };
  lt.high.or(a);
  const h = s.high;
  h.sub();
}
"""


def test_typescript_object_shapes_type_their_members() -> None:
    # A module-level function's inline object result (`multiply(): {high: Long}`) types `s.high` after `const s
    # = multiply()`; a `const` local's literal types `d2.high` by its initializer. An optional member, a
    # literal with a spread, a `let` and a member of no class give nothing.
    out = extract(TS_OBJECT_SHAPES, "src/d.ts", "typescript")
    got = [(r.line, r.symbol_name, r.receiver_type) for r in out.references if r.role == "call" and r.qualifier]
    assert got == [
        (7, "add", "Long"),
        (8, "and", "Long#shift()"),
        (8, "shift", "Long"),
        (9, "add", None),
        (10, "fromNumber", "^Long"),
        (11, "or", None),
        (12, "fromNumber", "^Long"),
        (13, "or", "=Long"),
        (14, "or", "^Long#fromNumber()"),
        (15, "toFixed", None),
        (17, "or", None),
        (19, "sub", "Long"),
    ]
    assert not [t for t in out.types if t[2].startswith("{")]


def _object_shapes_source(n: int) -> bytes:
    fns = "".join(f"function f{i}(): {{ high: K{i}; low: K }} {{ return null as any; }}\n" for i in range(n))
    body = "".join(
        f"  const s{i} = f{i}();\n  s{i}.high.go();\n  const d{i} = {{ a: s{i}.high, b: d{max(i - 1, 0)} }};\n"
        f"  d{i}.b.b.a.go();\n"
        for i in range(n)
    )
    return (
        fns
        + "export const o = {\n"
        + "".join(f"  m{i}(): void {{}},\n" for i in range(n))
        + "};\n"
        + "export function g() {\n"
        + body
        + "  o.m0();\n}\n"
    ).encode()


def test_typescript_object_shapes_extract_linearly() -> None:
    # Object-literal consts' members, inline object results and local literals read through one another (each
    # read bounded by MAX_DEPTH): 16x the declarations stays under 64x the time.
    small = best_cpu_s(lambda: extract(_object_shapes_source(250), "src/o.ts", "typescript"))
    large = best_cpu_s(lambda: extract(_object_shapes_source(4000), "src/o.ts", "typescript"))
    assert large < 64 * max(small, 0.001), (small, large)


TS_GUARD_ASSIGNED = b"""export class Timestamp { isZero(): boolean { return true; } }
export class Long {
  static isLong(value: unknown): value is Long { return true; }
  static fromValue(v: number | Long | Timestamp): Long { return new Long(); }
  isZero(): boolean { return true; }
  compare(other: number | Long | Timestamp): number {
    if (!Long.isLong(other)) other = Long.fromValue(other);
    other.isZero();
    return 0;
  }
  twice(other: number | Long | Timestamp): number {
    if (!Long.isLong(other)) other = Long.fromValue(other);
    other = new Timestamp() as any;
    other.isZero();
    return 0;
  }
  none(other: number | Long | Timestamp): number {
    if (!Long.isLong(other)) console.log(other);
    other.isZero();
    return 0;
  }
  inner(other: number | Long | Timestamp): number {
    if (!Long.isLong(other)) { other = Long.fromValue(other); } else { other = Long.fromValue(1); }
    other.isZero();
    return [1].map(() => other.isZero())[0] ? 1 : 0;
  }
}
"""


def test_typescript_guard_then_assignment_types_both_paths() -> None:
    # `if (!Long.isLong(x)) x = Long.fromValue(x); x.isZero()`: the two paths' types as arms (the guard's
    # `isLong()is` row, the value's); a second assignment, an if that assigns nothing, an else branch and a
    # closure leave the union as it was.
    out = extract(TS_GUARD_ASSIGNED, "src/long.ts", "typescript")
    got = {r.line: r.receiver_type for r in out.references if r.role == "call" and r.qualifier == "other"}
    assert got == {
        8: "!Long#isLong()is;Long#fromValue()",
        14: "!Long|Timestamp",
        19: "!Long|Timestamp",
        24: "!Long|Timestamp",
        25: "Long|Timestamp",
    }
    assert ("typescript src/long.ts Long#", "isLong()is", "Long") in out.types


def _guarded_source(n: int) -> bytes:
    checks = "".join(f"    if (!Long.isLong(x{i % 7})) x{i % 7} = Long.fromValue(x{i % 7});\n" for i in range(n))
    calls = "".join(f"    x{i % 7}.isZero();\n" for i in range(n))
    nested = "".join("    if (a) {\n" for _ in range(n // 40)) + calls[:2000] + "    }\n" * (n // 40)
    params = ", ".join(f"x{i}: number | Long" for i in range(7))
    return (
        "export class Long {\n  static isLong(v: unknown): v is Long { return true; }\n"
        f"  run(a: boolean, {params}): void {{\n{checks}{calls}{nested}  }}\n}}\n"
    ).encode()


def test_typescript_guard_then_assignment_extracts_linearly() -> None:
    # Each block's guarded ifs and each function's assignments are read once (memoized); the walk up from a
    # call is bounded: 16x the statements stays under 64x the time.
    small = best_cpu_s(lambda: extract(_guarded_source(250), "src/g.ts", "typescript"))
    large = best_cpu_s(lambda: extract(_guarded_source(4000), "src/g.ts", "typescript"))
    assert large < 64 * max(small, 0.001), (small, large)


def test_typescript_guards_of_one_name_extract_linearly() -> None:
    # n guarded ifs of one name, then n calls of it (and the early-exit form): each call finds the last if
    # before it by bisection, not by reading every if of the block (quadratic before: x7.4 for x4 input).
    def source(n: int) -> bytes:
        checks = "    if (!Long.isLong(x)) x = Long.fromValue(x);\n    x.isZero();\n" * n
        exits = "    if (!(y instanceof Long)) return;\n    y.isZero();\n" * n
        return (
            "export class Long {\n  static isLong(v: unknown): v is Long { return true; }\n"
            f"  run(x: number | Long, y: unknown): void {{\n{checks}{exits}  }}\n}}\n"
        ).encode()

    # 24x the input: the quadratic part shows only past a few thousand ifs (measured 33x after, 108x before)
    small = best_cpu_s(lambda: extract(source(500), "src/g.ts", "typescript"))
    large = best_cpu_s(lambda: extract(source(12000), "src/g.ts", "typescript"), runs=1)
    assert large < 64 * max(small, 0.001), (small, large)


TS_EARLY_EXIT = b"""export class Base { m(): void {} }
export class Sub extends Base { m(): void {} }
export function f(x: Base, y: Base, z: Base) {
  if (!(x instanceof Sub)) return;
  x.m();
  if (!(y instanceof Sub)) { throw new Error(); }
  y.m();
  if (!(z instanceof Sub)) console.log(z);
  z.m();
}
export function g(x: Base) {
  if (!(x instanceof Sub)) return;
  x = new Base();
  x.m();
}
"""


def test_typescript_early_exit_by_instanceof_types_the_receiver() -> None:
    # `if (!(x instanceof Sub)) return;` (or `throw`): x is a Sub after it, as the compiler narrows a
    # parameter never assigned; an `if` that does not exit, or a parameter assigned again, leaves x a Base.
    out = extract(TS_EARLY_EXIT, "src/e.ts", "typescript")
    got = {r.line: r.receiver_type for r in out.references if r.role == "call" and r.symbol_name == "m"}
    assert got == {5: "!Sub", 7: "!Sub", 9: "!Base", 14: "!Base"}


TS_GUARD_UNKNOWN = b"""import { Long } from './long';
export class Check { static ok(v: unknown): boolean { return true; } }
export function f(other: Long | number) {
  if (!Check.ok(other)) other = Long.fromValue(other);
  other.isZero();
}
"""


def test_typescript_guard_of_no_known_predicate_keeps_the_declared_type() -> None:
    # A guard this file states no `v is K` of (`Check.ok(v): boolean`, or a class of another file): the
    # receiver keeps its declared type, as before (no arm the graph could not read).
    out = extract(TS_GUARD_UNKNOWN, "src/u.ts", "typescript")
    got = {r.line: r.receiver_type for r in out.references if r.role == "call" and r.symbol_name == "isZero"}
    assert got == {5: "!Long"}


TS_FIELD_VALUE = b"""export class Long {
  static ZERO = Long.fromInt(0);
  static NAME = 'long';
  static SELF = this.name;
  typed: Other = make();
  static fromInt(n: number): Long { return new Long(); }
  f(): void {
    let result = Long.ZERO;
    result = result.mul(result);
  }
}
"""


def test_typescript_field_without_a_written_type_has_its_initializers() -> None:
    # `static ZERO = Long.fromInt(0)`: the compiler infers the field's type from its initializer (a chain the
    # graph evaluates); a literal, a `this` read and a written type (its own row, as before) add no such row.
    out = extract(TS_FIELD_VALUE, "src/long.ts", "typescript")
    rows = [t for t in out.types if t[0] == "typescript src/long.ts Long#"]
    assert rows == [
        ("typescript src/long.ts Long#", "ZERO", "Long#fromInt()"),
        ("typescript src/long.ts Long#", "typed", "Other"),
    ]


TS_GROUPS = b"""export type Services = {
    readonly documentation: {
        readonly CommentProvider: CommentProvider
    }
    readonly lsp: { readonly Lock: Mutex; readonly Hover: HoverProvider }
    readonly workspace: { readonly Lock: Mutex & Other }
    readonly Plain: Linker
};
"""


def test_typescript_nested_object_type_members_read_as_the_type() -> None:
    """A member typed by a nested object type reads as the type (`Self`): code-scan files the nested members
    under it, so `Services#documentation#CommentProvider` is a CommentProvider; a name two groups declare
    (`Lock`) has no row (no group could read another's `Lock`)."""
    out = extract(TS_GROUPS, "src/services.ts", "typescript")
    rows = {name: expr for owner, name, expr in out.types if owner and owner.endswith(" Services#")}
    assert rows["documentation"] == rows["lsp"] == rows["workspace"] == "Self"
    assert rows["CommentProvider"] == "CommentProvider" and rows["Plain"] == "Linker"
    assert rows["Hover"] == "HoverProvider" and "Lock" not in rows


def test_typescript_many_nested_object_types_extract_linearly() -> None:
    from cpu_timing import best_cpu_s

    def best(n: int) -> float:
        groups = "".join(f"  g{i}: {{ m{i}: K{i}; n{i}: {{ o{i}: K }} }}\n" for i in range(n))
        src = f"export type S = {{\n{groups}}};\n"
        return best_cpu_s(lambda: extract(src.encode(), "src/s.ts", "typescript"))

    assert best(2_000) < 64 * best(125)


def test_typescript_await_steps_and_rows() -> None:
    """`await x.m()` is the step `m()await` (the function's `await` row): a stated `Promise<K>` gives K there,
    a plain stated result itself; the result row stays `Promise` (unawaited, it is no K)."""
    src = b"""export class K { async get(): Promise<Net | null> { return null; } own(): Net { return new Net(); } }
export async function run(k: K) {
    const n = await k.get();
    n.go();
    (await k.own()).go();
}
"""
    out = extract(src, "src/k.ts", "typescript")
    rows = {(owner.rsplit(" ", 1)[-1], name): expr for owner, name, expr in out.types if owner}
    assert rows[("K.get().", None)] == "Promise" and rows[("K.get().", "await")] == "Net"
    assert rows[("K.own().", "await")] == "Net"
    got = {r.line: r.receiver_type for r in out.references if r.symbol_name == "go"}
    assert got == {4: "K#get()await", 5: "K#own()await"}


def test_typescript_generic_base_arguments_and_type_parameter_fields() -> None:
    """`readonly provider!: P` in `class AbstractSigner<P extends Provider>`: the row `<provider` names P's index
    (beside the constraint's row); `extends AbstractSigner<JsonRpcApiProvider>` gives the row `<0`. An interface's
    member and a union argument give none."""
    src = b"""export class AbstractSigner<P extends null | Provider = null | Provider, Q = string> {
    readonly provider!: P;
    other!: Q;
}
export interface Holder<P> { held: P }
export class JsonRpcSigner extends AbstractSigner<JsonRpcApiProvider, Other> {}
export class Mixed extends AbstractSigner<A | B> {}
"""
    out = extract(src, "src/s.ts", "typescript")
    rows = {(owner.rsplit(" ", 1)[-1], name): expr for owner, name, expr in out.types if owner}
    assert rows[("AbstractSigner#", "provider")] == "Provider" and rows[("AbstractSigner#", "<provider")] == "0"
    assert rows[("AbstractSigner#", "<other")] == "1"
    assert rows[("JsonRpcSigner#", "<0")] == "JsonRpcApiProvider" and rows[("JsonRpcSigner#", "<1")] == "Other"
    assert ("Holder#", "<held") not in rows and ("Mixed#", "<0") not in rows


def test_typescript_angle_bracket_assertion_states_the_type() -> None:
    """`(<Network>network).clone()` is `network as Network`: what the code states (ethers)."""
    src = b"""export function f(network: unknown, w: unknown) {
    const clone = (<Network>network).clone();
    (w as Wordlist).getWord(1);
    return (<Wordlist>w).getWord(1);
}
"""
    refs = extract(src, "src/n.ts", "typescript").references
    got = {(r.line, r.symbol_name): r.receiver_type for r in refs if r.role == "call"}
    assert got[(2, "clone")] == "Network" and got[(4, "getWord")] == got[(3, "getWord")] == "Wordlist"


def test_typescript_function_typed_field_has_a_call_row() -> None:
    """`workspaceManager: () => WorkspaceManager`: the row `workspaceManager()` (what calling it gives); none for
    `=> void` or a union."""
    src = b"""export class B {
    readonly workspaceManager: () => WorkspaceManager;
    readonly cb: (x: number) => void;
    readonly either: () => A | C;
}
"""
    out = extract(src, "src/b.ts", "typescript")
    rows = {name: expr for owner, name, expr in out.types if owner and owner.endswith(" B#")}
    assert rows == {"workspaceManager()": "WorkspaceManager"}
