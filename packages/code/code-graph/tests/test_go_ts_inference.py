"""Issue 24 (Go and TypeScript): receivers typed the way go/types and the TypeScript compiler type them,
on small real repositories indexed for real. Each expected site is the line holding its `// <tag>` marker;
`// not` marks a call no certain answer may list."""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers, indexed

GO = {
    "go.mod": "module example.com/logx\n\ngo 1.22\n",
    "logx/logger.go": """package logx

type Writer struct{}

func (w *Writer) Write() {}

type Hook interface{ Fire() }

type Sink interface{ Flush() }

type LevelHooks map[int][]Hook

type Logger struct {
	hooks LevelHooks
	out   *Writer
}

func New() *Logger { return &Logger{} }

func (l *Logger) Info() {}

func (hooks LevelHooks) FireAll(level int) {
	for _, hook := range hooks[level] {
		hook.Fire() // range-named
	}
}
""",
    "logx/exported.go": """package logx

var (
	// std is the package's logger
	std = New()
)

var sink Sink = nil

func Info() {
	std.Info() // package-var
	sink.Flush() // stated-var
}
""",
    "logx/route.go": """package logx

type group struct {
	host *Writer
	all  []*Writer
	byName map[string]*Logger
}

type conf struct {
	regexp group
}

type Route struct {
	conf
}

func (r *Route) Run(x interface{}, fs []*Logger) {
	r.regexp.host.Write() // chained
	for _, w := range r.regexp.all {
		w.Write() // range-field
	}
	r.regexp.all[0].Write() // index
	r.regexp.byName["a"].Info() // map-index
	if l, ok := x.(*Logger); ok {
		l.Info() // assertion
	}
	x.(*Writer).Write() // assertion-chain
	for _, f := range fs {
		f.Info() // range-param
	}
}

func (r *Route) Mixed(ws []*Writer, each func(func(f *Logger))) {
	each(func(f *Logger) { f.Info() }) // literal-param
	for _, f := range ws {
		f.Info() // not
	}
}
""",
}


def _lines(files: dict[str, str], tag: str) -> set[tuple[str, int]]:
    return {
        (path, i)
        for path, text in files.items()
        for i, line in enumerate(text.splitlines(), 1)
        if line.rstrip().endswith(f"// {tag}")
    }


def test_go_package_vars_chained_fields_assertions_and_range(tmp_path: Path) -> None:
    idx = indexed(tmp_path / "logx", GO)
    try:
        info = certain_callers(idx, "go logx/logger.go Logger.Info().")
        for tag in ("package-var", "map-index", "assertion", "range-param"):
            assert _lines(GO, tag) <= info, tag
        assert not (_lines(GO, "not") & info)  # `f` there is a *Writer (the literal's `f` is another name)
        write = certain_callers(idx, "go logx/logger.go Writer.Write().")
        for tag in ("chained", "range-field", "index", "assertion-chain"):
            assert _lines(GO, tag) <= write, tag
        # an element of a named map type (`type LevelHooks map[int][]Hook`): the interface's method
        assert _lines(GO, "range-named") <= certain_callers(idx, "go logx/logger.go Hook.Fire().")
        # `var sink Sink = nil`: the written type, in another file of the package
        assert _lines(GO, "stated-var") <= certain_callers(idx, "go logx/logger.go Sink.Flush().")
    finally:
        idx.close()


TS = {
    "lib/types.ts": """export interface Out { serialize(x: unknown): unknown }
export interface Combined { output: Out }
export interface RootConfig<T> { transformer: Combined }
export interface RouterDef<T> { _config: RootConfig<T> }
export interface Router<A, B> { _def: RouterDef<A> }
export type AnyRouter = Router<any, any>;
export interface Opts<TRouter extends AnyRouter> { router: TRouter }
export class Other { serialize(x: unknown): unknown { return x; } }
""",
    "lib/index.ts": "export * from './types';\n",
    "lib/http/use.ts": """import { Opts, AnyRouter, Router, RootConfig, Other } from '..';
export function f<TRouter extends AnyRouter>(opts: Opts<TRouter>) {
  const { router } = opts;
  const config = router._def._config;
  config.transformer.output.serialize(1); // generic-alias
}
export function g(r: Router<any, any>) {
  r._def._config.transformer.output.serialize(2); // chained
}
export function h(r: AnyRouter, o: Other) {
  r._def._config.transformer.output.serialize(3); // alias
  o.serialize(4); // not
}
""",
}


def test_typescript_directory_import_aliases_and_chained_interface_members(tmp_path: Path) -> None:
    """`import {..} from '..'` (the directory's index.ts, a barrel), `type AnyRouter = Router<any, any>`
    (an alias has its target's members) and five-step chains of interface members."""
    idx = indexed(tmp_path / "ts", TS)
    try:
        found = certain_callers(idx, "typescript lib/types.ts Out.serialize().")
        for tag in ("generic-alias", "chained", "alias"):
            assert _lines(TS, tag) <= found, tag
        assert not (_lines(TS, "not") & found)
    finally:
        idx.close()


GO_RESULTS = {
    "go.mod": "module example.com/seg\n\ngo 1.22\n",
    "seg/seg.go": """package seg

type Segment struct{ Start int }

func (s Segment) Len() int { return 0 }

type Segments struct{}

func (s *Segments) At(i int) Segment { return Segment{} }

type Reference interface{ Title() []byte }

type Reader interface {
	PeekLine() ([]byte, Segment)
	FindClosure(open, closing byte) (*Segments, bool)
	Ref(name string) (Reference, bool)
	Pair() (a, b *Segments)
}

type Other struct{}

func (o *Other) At(i int) int { return 0 }

func two() (*Other, *Segments) { return nil, nil }

var first, second = two()

var lit, lit2 = Other{}, Segments{}

type Option interface{ SetOption(s *Segments) }

var shared = &Segments{}
""",
    "seg/use.go": """package seg

func Use(r Reader) {
	line, seg := r.PeekLine()
	_ = line
	seg.Len() // second
	segs, found := r.FindClosure('[', ']')
	_ = found
	segs.At(0) // first-bool
	ref, ok := r.Ref("x")
	_ = ok
	ref.Title() // first-iface
	p, q := r.Pair()
	p.At(1) // grouped
	q.At(2) // grouped
	var o, s2 = two()
	s2.At(3) // var-second
	o.At(4) // not
	x, y := Other{}, Segments{}
	y.At(5) // pair
	x.At(6) // not
	var u, v = Other{}, &Segments{}
	v.At(7) // var-pair
	u.At(8) // not
	second.At(9) // package-second
	first.At(10) // not
	lit2.At(11) // package-pair
	lit.At(12) // none
}

func Apply(opts ...Option) {
	for _, o := range opts {
		o.SetOption(nil) // variadic
	}
	shared.At(13) // package-literal
}
""",
}


def test_go_results_past_the_first_and_beside_a_bool(tmp_path: Path) -> None:
    """`line, seg := r.PeekLine()` of `PeekLine() ([]byte, Segment)`: go/types gives each name its result's
    type, the second too, and the first beside any second (`(*Segments, bool)`), named results grouped
    (`(a, b *Segments)`); `var o, s = two()` and `x, y := A{}, B{}` pair names and values by position; a
    variadic `opts ...Option` is a []Option; `var shared = &Segments{}` (another file) is a *Segments."""
    idx = indexed(tmp_path / "seg", GO_RESULTS)
    try:
        files = {k: v for k, v in GO_RESULTS.items() if k.endswith(".go")}
        assert _lines(files, "second") <= certain_callers(idx, "go seg/seg.go Segment.Len().")
        assert _lines(files, "first-iface") <= certain_callers(idx, "go seg/seg.go Reference.Title().")
        at = certain_callers(idx, "go seg/seg.go Segments.At().")
        tags = ("first-bool", "grouped", "var-second", "pair", "var-pair", "package-second", "package-pair")
        for tag in (*tags, "package-literal"):
            assert _lines(files, tag) <= at, tag
        assert _lines(files, "variadic") <= certain_callers(idx, "go seg/seg.go Option.SetOption().")
        assert not ((_lines(files, "not") | _lines(files, "none")) & at)
        other = certain_callers(idx, "go seg/seg.go Other.At().")
        assert _lines(files, "not") <= other  # the first of each pair is an Other
        assert not (at & other)
    finally:
        idx.close()


TS_MIXED = {
    "lib/traits.ts": """export class Engine { consumeInternal(): number { return 1; } }
export class Lexer { LA(): number { return 1; } }
export class Other { LA(): number { return 2; } }
export interface Tracer<T> { TRACE(x: T): void }
export type Mixed = Engine & Lexer & Tracer<string>;
""",
    "lib/api.ts": """import { Mixed, Other, Engine } from './traits';
export class Api {
  CONSUME(this: Mixed): number {
    this.LA(); // la
    this.TRACE('x'); // trace
    return this.consumeInternal(); // consume
  }
}
export function run(p: Mixed, o: Other & Engine) {
  const that: Mixed = p;
  that.LA(); // la
  p.consumeInternal(); // consume
  o.LA(); // not
}
""",
}


def test_typescript_intersection_alias_has_each_parts_members(tmp_path: Path) -> None:
    """`type Mixed = Engine & Lexer & Tracer<string>` (chevrotain's traits, `this: MixedInParser`): the
    compiler finds `this.LA()` in the part that declares it; an intersection written elsewhere is not read."""
    idx = indexed(tmp_path / "mixed", TS_MIXED)
    try:
        la = certain_callers(idx, "typescript lib/traits.ts Lexer.LA().")
        assert _lines(TS_MIXED, "la") <= la
        assert not (_lines(TS_MIXED, "not") & la)
        assert _lines(TS_MIXED, "consume") <= certain_callers(idx, "typescript lib/traits.ts Engine.consumeInternal().")
        assert _lines(TS_MIXED, "trace") <= certain_callers(idx, "typescript lib/traits.ts Tracer.TRACE().")
        assert not (_lines(TS_MIXED, "la") & certain_callers(idx, "typescript lib/traits.ts Other.LA()."))
    finally:
        idx.close()


TS_UNION = {
    "lib/maybe.ts": """class MaybeImpl<T> {
  map(f: (t: T) => T): MaybeImpl<T> { return this; }
  unwrapOr(d: T): T { return d; }
}
export interface Just<T> extends MaybeImpl<T> { value: T }
export interface Nothing<T> extends Omit<MaybeImpl<T>, 'value'> {}
export type Maybe<T> = Just<T> | Nothing<T>;
class ResultImpl<T, E> { match(): void {} }
export interface Ok<T, E> extends Omit<ResultImpl<T, E>, 'error'> {}
export interface Err<T, E> extends Readonly<ResultImpl<T, E>> {}
export type Result<T, E> = Ok<T, E> | Err<T, E> | null;
export class Box<T> { match(): void {} }
export interface Holder<T> extends Box<ResultImpl<T, T>> {}
export function map<T>(m: Maybe<T>) {
  return m.map((x) => x); // map
}
""",
    "lib/use.ts": """import { Maybe, Result, Nothing, Holder } from './maybe';
export function f(m: Maybe<number>, r: Result<number, string>, n: Nothing<number>, h: Holder<number>) {
  m.unwrapOr(1); // unwrap
  n.unwrapOr(2); // unwrap
  r.match(); // match
  h.match(); // box
}
""",
}


def test_typescript_union_alias_and_omit_base_have_the_members(tmp_path: Path) -> None:
    """true-myth: `type Maybe<T> = Just<T> | Nothing<T>` with `interface Nothing<T> extends Omit<MaybeImpl<T>,
    'value'>`: the compiler finds `m.map()` in MaybeImpl, through each part of the union alias and through the
    utility type's argument. A generic base's own argument (`extends Box<ResultImpl<..>>`) is no base."""
    idx = indexed(tmp_path / "union", TS_UNION)
    try:
        assert _lines(TS_UNION, "map") <= certain_callers(idx, "typescript lib/maybe.ts MaybeImpl.map().")
        assert _lines(TS_UNION, "unwrap") <= certain_callers(idx, "typescript lib/maybe.ts MaybeImpl.unwrapOr().")
        result_match = certain_callers(idx, "typescript lib/maybe.ts ResultImpl.match().")
        assert _lines(TS_UNION, "match") <= result_match
        assert not (_lines(TS_UNION, "box") & result_match)
        assert _lines(TS_UNION, "box") <= certain_callers(idx, "typescript lib/maybe.ts Box.match().")
    finally:
        idx.close()


TS_FIELD_NEW = {
    "lib/map.ts": """export class SafeMap<K, V> { get(k: K): V | undefined { return undefined; } }
export class Plain { go(): void {} }
""",
    "lib/use.ts": """import { SafeMap, Plain } from './map';
import * as m from './map';
export class Rule {
  private readonly obligations = new SafeMap<string, Plain>();
  private plain = new Plain();
  private byName = new Map<string, Plain>();
  private other = new m.Plain();
  check(): void {
    this.obligations.get('x'); // get
    this.plain.go(); // go
    this.byName.get('y')?.go(); // go
  }
}
""",
}


def test_typescript_field_initialized_by_new_has_its_class(tmp_path: Path) -> None:
    """true-myth's `private readonly obligations = new SafeMap<ts.Symbol, Obligation>()`: a field without a
    written type has its initializer's class, as the compiler infers it (a `Map<_, V>` of V values)."""
    idx = indexed(tmp_path / "field", TS_FIELD_NEW)
    try:
        assert _lines(TS_FIELD_NEW, "get") <= certain_callers(idx, "typescript lib/map.ts SafeMap.get().")
        assert _lines(TS_FIELD_NEW, "go") <= certain_callers(idx, "typescript lib/map.ts Plain.go().")
    finally:
        idx.close()


TS_NARROW = {
    "lib/shapes.ts": """export class Circle { kind: 'c' = 'c'; area(): number { return 1; } }
export class Square { kind: 's' = 's'; area(): number { return 2; } }
export type Shape = Circle | Square;
export function isCircle(s: Shape): s is Circle { return s.kind === 'c'; }
class Impl { map(): Impl { return this; } }
export class Just extends Impl { value = 1; }
export class Nothing extends Impl {}
export type Maybe = Just | Nothing;
export function isJust(m: Maybe): m is Just { return m instanceof Just; }
class Base { area(): number { return 3; } }
export class Tri extends Base { kind: 't' = 't'; }
export type Poly = Circle | Tri;
""",
    "lib/use.ts": """import { Circle, Square, Shape, isCircle, Maybe, isJust, Poly } from './shapes';
export function f(s: Shape, t: Circle | Square, u: Shape, m: Maybe) {
  if (s.kind === 'c') {
    s.area(); // square-excluded
  }
  switch (t.kind) {
    case 's':
      t.area(); // circle-excluded
  }
  if (isCircle(u)) u.area(); // square-excluded
  if (isJust(m)) m.map(); // map
  if (t instanceof Circle) {
    t.area(); // only-circle
  } else {
    t.area(); // circle-excluded
  }
  if (!(u instanceof Square)) return;
  u.area(); // circle-excluded
}
export function g(s: Shape, p: Poly) {
  s.area(); // both
  if (p.kind === 't') p.area(); // circle-excluded
}
export class Holder {
  shape: Shape = new Circle();
  run(): void {
    if (this.shape.kind === 'c') this.shape.area(); // square-excluded
  }
  all(): void {
    this.shape.area(); // both
  }
}
""",
}


def test_typescript_narrowed_union_lists_no_excluded_part(tmp_path: Path) -> None:
    """`if (s.kind === 'c') s.area()`, `switch (t.kind)`, a guard `s is Circle`, an `instanceof` else branch or
    early return: the compiler keeps only the parts the narrowing leaves, so a part it excluded is no certain
    callee there. Where every part finds the method in one base (`Just`, `Nothing` extend `Impl`), narrowing
    changes nothing; an un-narrowed union calls each part's method."""
    idx = indexed(tmp_path / "narrow", TS_NARROW)
    try:
        circle = certain_callers(idx, "typescript lib/shapes.ts Circle.area().")
        square = certain_callers(idx, "typescript lib/shapes.ts Square.area().")
        assert not (_lines(TS_NARROW, "square-excluded") & square)
        assert not (_lines(TS_NARROW, "circle-excluded") & circle)
        assert not (_lines(TS_NARROW, "only-circle") & square)
        assert _lines(TS_NARROW, "only-circle") <= circle
        assert _lines(TS_NARROW, "both") <= circle & square
        assert _lines(TS_NARROW, "map") <= certain_callers(idx, "typescript lib/shapes.ts Impl.map().")
    finally:
        idx.close()


TS_CONDITIONAL = {
    "lib/cache.ts": """export interface Cache { get(k: string): number; clear(): void }
export function createSingletonCache(): Cache { return null as any; }
export function createLruCache(n: number): Cache { return null as any; }
export class Base { go(): void {} }
export class Sub extends Base { go(): void {} }
export class Other { go(): void {} }
""",
    "lib/use.ts": """import { createSingletonCache, createLruCache, Base, Sub, Other } from './cache';
export function memoize(maxSize: number) {
  const cache = maxSize <= 1 ? createSingletonCache() : createLruCache(maxSize);
  function memoized() {
    cache.get('k'); // get
  }
  cache.clear(); // clear
  const b = maxSize ? new Sub() : new Base();
  b.go(); // base
  const s = maxSize ? new Sub() : new Sub();
  s.go(); // sub
  const o = maxSize ? new Sub() : new Other();
  o.go(); // neither
  return memoized;
}
""",
}


def test_typescript_conditional_is_the_union_of_its_arms_reduced(tmp_path: Path) -> None:
    """reselect's `const cache = maxSize <= 1 ? createSingletonCache(c) : createLruCache(maxSize, c)`: the
    compiler types a conditional as the union of its arms, reduced to a base where one arm's class is a subtype of
    the other's (`c ? new Sub() : new Base()` is a Base: `b.go()` is `Base.go`); unrelated classes give no
    certain answer."""
    idx = indexed(tmp_path / "cond", TS_CONDITIONAL)
    try:
        assert _lines(TS_CONDITIONAL, "get") <= certain_callers(idx, "typescript lib/cache.ts Cache.get().")
        assert _lines(TS_CONDITIONAL, "clear") <= certain_callers(idx, "typescript lib/cache.ts Cache.clear().")
        base = certain_callers(idx, "typescript lib/cache.ts Base.go().")
        sub = certain_callers(idx, "typescript lib/cache.ts Sub.go().")
        other = certain_callers(idx, "typescript lib/cache.ts Other.go().")
        assert _lines(TS_CONDITIONAL, "base") <= base
        assert not (_lines(TS_CONDITIONAL, "base") & sub)
        assert _lines(TS_CONDITIONAL, "sub") <= sub
        assert not (_lines(TS_CONDITIONAL, "neither") & (base | sub | other))
    finally:
        idx.close()


TS_DEFAULT = {
    "lib/core.ts": "export default class Ajv { compile(): void {} }\nexport class Other { compile(): void {} }\n",
    "lib/hash.ts": "class Hash { update(): void {} }\nexport default Hash;\n",
    "lib/fn.ts": "export default function sha256(): void {}\n",
    "lib/anon.ts": "export class Other { compile(): void {} }\nexport default { a: 1 };\n",
    "lib/plain.ts": "export class Plain { go(): void {} }\n",
    "lib/use.ts": """import AjvCore from './core';
import type AjvT from './core';
import H from './hash';
import digest from './fn';
import Other from './anon';
export class MyAjv extends AjvCore {
  run(): void {
    this.compile(); // inherited
  }
}
export function f(a: AjvT, o: Other) {
  const x = new AjvCore(); // new
  x.compile(); // method
  a.compile(); // typed
  new H().update(); // hash
  digest(); // fn
  o.compile(); // not
}
""",
}


def test_typescript_default_import_binds_the_default_export(tmp_path: Path) -> None:
    """ajv's `import AjvCore from './core'` (core.ts: `export default class Ajv`): tsc binds the local name to
    the module's default export, whatever it is called there: `new`, `extends`, a typed parameter, `import
    type`, `export default Hash;` of a class declared above, a renamed default function. A module whose
    default is anonymous binds no class of it (`Other` there is not the default)."""
    idx = indexed(tmp_path / "dflt", TS_DEFAULT)
    try:
        compile_ = certain_callers(idx, "typescript lib/core.ts Ajv.compile().")
        for tag in ("inherited", "method", "typed"):
            assert _lines(TS_DEFAULT, tag) <= compile_, tag
        assert _lines(TS_DEFAULT, "new") <= certain_callers(idx, "typescript lib/core.ts Ajv#"), "new"
        assert _lines(TS_DEFAULT, "hash") <= certain_callers(idx, "typescript lib/hash.ts Hash.update().")
        assert _lines(TS_DEFAULT, "fn") <= certain_callers(idx, "typescript lib/fn.ts sha256().")
        assert not (_lines(TS_DEFAULT, "not") & certain_callers(idx, "typescript lib/anon.ts Other.compile()."))
    finally:
        idx.close()


TS_CONTEXT = {
    "lib/gen.ts": "export class CodeGen { add(): void {} }\nexport class Other { add(): void {} }\n",
    "lib/types.ts": """import { CodeGen, Other } from './gen';
export interface It { gen: CodeGen }
export interface Cxt { gen: CodeGen; it: It; other: Other }
interface Base { keyword: string; code: (cxt: Cxt, ruleType?: string) => void }
export interface CodeDef extends Base { trackErrors?: boolean }
export type Shaped = { run(cxt: Cxt): void };
export interface Gen<T> { code: (cxt: T) => void }
export interface Either { code: (cxt: Cxt) => void }
export interface Or { code: (cxt: Other) => void }
export interface MergeArgs { mergeNames: (gen: CodeGen, to: string) => void }
export function makeMerge({mergeNames}: MergeArgs): void {}
export function makeAny<T>(a: T): void {}
export function makeEither(a: MergeArgs | Or): void {}
export class Maker { make(n: number, a: MergeArgs): void {} }
export type GenParse = (cxt: Cxt) => void;
export interface Holds { other: CodeGen }
""",
    "lib/use.ts": """import type { Cxt, CodeDef, Shaped, Gen, Either, Or, Maker, GenParse, Holds } from './types';
import { makeMerge, makeAny, makeEither } from './types';
export function flat({gen, other: o}: Cxt): void {
  gen.add(); // destructured
}
export function nested({it: {gen}}: Cxt, { gen: g = undefined as any }: Cxt): void {
  gen.add(); // destructured
  g.add(); // destructured
}
export const arrow = ({gen}: Cxt): void => {
  gen.add(); // destructured
};
export class Holder {
  m({gen}: Cxt): void {
    gen.add(); // destructured
  }
}
export function untyped({gen}: any): void {
  gen.add(); // not
}
export function union({gen}: Cxt | Shaped): void {
  gen.add(); // not
}
const def: CodeDef = {
  keyword: "k",
  code(cxt) {
    cxt.gen.add(); // contextual
    const {gen} = cxt;
    gen.add(); // contextual
  },
};
const shaped: Shaped = {
  run(cxt) { cxt.gen.add(); }, // contextual
};
const generic: Gen<Cxt> = {
  code(cxt) { cxt.gen.add(); }, // not
};
const either: Either | Or = {
  code(cxt) { cxt.gen.add(); }, // not
};
const plain = {
  code(cxt) { cxt.gen.add(); }, // not
};
export const merged = {
  props: makeMerge({
    mergeNames: (gen, to) => gen.add(), // passed
  }),
  any: makeAny({ mergeNames: (gen) => gen.add() }), // not
  either: makeEither({ mergeNames: (gen) => gen.add() }), // not
};
export function viaMethod(mk: Maker): void {
  mk.make(1, { mergeNames: (gen) => { gen.add(); } }); // passed
  mk.make(1, { mergeNames: ({ add }) => add() });
}
export function token(): GenParse {
  return (cxt) => {
    const {gen} = cxt;
    gen.add(); // returned
  };
}
export function scoped(x: Cxt, xs: Holds[]): void {
  xs.forEach((x) => {
    const {other} = x;
    other.add(); // scoped
  });
}
""",
}


def test_typescript_destructured_and_contextually_typed_parameters(tmp_path: Path) -> None:
    """ajv's `function f({gen, it: {gen}}: Cxt)` and `const def: CodeDef = {code(cxt) {...}}` (issue 24): tsc
    types a destructured parameter's names by the declared type's members, and an unannotated parameter of
    a method written in an object literal of a declared type by the declared member's (here inherited, a
    function-typed field; or a type alias's method), also where the literal is passed to a function or
    method whose parameter states the type (`makeMergeEvaluated({mergeNames: (gen) => ...})`), or returned under
    a declared function-type alias; a callback's own local is read on the callback's parameter (`x: Holds`, not
    the function's `x: Cxt`). An `any`
    pattern, a union, a generic member or parameter, an object literal without a declared type: nothing
    certain."""
    idx = indexed(tmp_path / "ctx", TS_CONTEXT)
    try:
        add = certain_callers(idx, "typescript lib/gen.ts CodeGen.add().")
        for tag in ("destructured", "contextual", "passed", "returned", "scoped"):
            assert _lines(TS_CONTEXT, tag) <= add, tag
        assert not (_lines(TS_CONTEXT, "not") & add)
        other = certain_callers(idx, "typescript lib/gen.ts Other.add().")
        assert not ((_lines(TS_CONTEXT, "not") | _lines(TS_CONTEXT, "scoped")) & other)
    finally:
        idx.close()


TS_NARROW_SUB = {
    "lib/a.ts": """export class Base { m(): void {} n(): void {} }
export class Sub extends Base { m(): void {} }
export class Leaf { m(): void {} }
export function f(x: Base, y: Leaf) {
  if (x instanceof Sub) {
    x.m(); // sub
  }
  if (!(x instanceof Sub)) return;
  x.m(); // sub
  x.n(); // n
  if (!(y instanceof Leaf)) return;
  y.m(); // leaf
}
export function g(x: Base) {
  if (!(x instanceof Sub)) throw new Error();
  x.m(); // sub
}
export function h(x: Base) {
  if (!(x instanceof Sub)) return;
  x = new Base();
  x.m(); // not
}
""",
}


def test_typescript_narrowing_to_a_subclass_lists_no_base_method(tmp_path: Path) -> None:
    """`x: Base; if (!(x instanceof Sub)) return; x.m()`: the compiler says `Sub.m` where Sub overrides m (main
    listed `Base.m` certain there); an exit by `throw` too; a method Sub does not override is Base's. A parameter
    assigned again is left as declared (`Base.m`, as the compiler's assignment narrowing gives a Base)."""
    idx = indexed(tmp_path / "sub", TS_NARROW_SUB)
    try:
        base_m = certain_callers(idx, "typescript lib/a.ts Base.m().")
        sub_m = certain_callers(idx, "typescript lib/a.ts Sub.m().")
        assert not (_lines(TS_NARROW_SUB, "sub") & base_m)
        assert _lines(TS_NARROW_SUB, "sub") <= sub_m
        assert not (_lines(TS_NARROW_SUB, "not") & sub_m)
        assert _lines(TS_NARROW_SUB, "n") <= certain_callers(idx, "typescript lib/a.ts Base.n().")
        assert _lines(TS_NARROW_SUB, "leaf") <= certain_callers(idx, "typescript lib/a.ts Leaf.m().")
    finally:
        idx.close()


TS_OBJECT_CONST = {
    "lib/bytes.ts": """export class Buf { copy(): number { return 1; } }
export const nodeUtils = {
  toLocal(x: number): Buf { return new Buf(); },
  compare(a: number): number {
    return nodeUtils.toLocal(a).copy(); // local copy
  },
};
export const webUtils = {
  toLocal(x: number): Buf { return new Buf(); },
};
export let mutable = {
  toLocal(x: number): Buf { return new Buf(); },
};
""",
    "lib/use.ts": """import { nodeUtils, webUtils, mutable } from './bytes';
export function f() {
  nodeUtils.toLocal(1); // local
  nodeUtils.toLocal(2).copy(); // local copy
  webUtils.toLocal(3); // web
  mutable.toLocal(4); // not
}
""",
}


def test_typescript_object_literal_const_methods_are_its_members(tmp_path: Path) -> None:
    """bson's `export const nodeJsByteUtils = { toLocalBufferType(...) {...}, ... }`: the compiler types the
    const as its literal, so `nodeJsByteUtils.toLocalBufferType(a)` (in its file or through an import) calls that
    method, not the same-named one of another literal, and `.copy()` on its result is the declared result's. A
    `let` may be reassigned: no certain answer."""
    idx = indexed(tmp_path / "obj", TS_OBJECT_CONST)
    try:
        node = certain_callers(idx, "typescript lib/bytes.ts nodeUtils.toLocal().")
        web = certain_callers(idx, "typescript lib/bytes.ts webUtils.toLocal().")
        assert _lines(TS_OBJECT_CONST, "local") | _lines(TS_OBJECT_CONST, "local copy") <= node
        assert _lines(TS_OBJECT_CONST, "local copy") <= certain_callers(idx, "typescript lib/bytes.ts Buf.copy().")
        assert _lines(TS_OBJECT_CONST, "web") <= web
        assert not (_lines(TS_OBJECT_CONST, "web") & node)
        assert not (_lines(TS_OBJECT_CONST, "not") & certain_callers(idx, "typescript lib/bytes.ts toLocal()."))
        assert not (_lines(TS_OBJECT_CONST, "not") & (node | web))
    finally:
        idx.close()


TS_OBJECT_SHAPES = {
    "lib/long.ts": """export class Long {
  static fromNumber(n: number): Long { return new Long(); }
  add(o: Long): Long { return this; }
  or(o: Long): Long { return this; }
}
export class Other { or(o: Long): Long { return o; } add(o: Long): Long { return o; } }
""",
    "lib/dec.ts": """import { Long, Other } from './long';
function multiply64x2(left: number): { high: Long; low: Other } {
  return null as any;
}
export function f(a: number) {
  const significand = multiply64x2(a);
  significand.high.add(Long.fromNumber(1)); // long-add
  significand.low.add(Long.fromNumber(1)); // other-add
  const dec = { low: Long.fromNumber(0), high: new Long() };
  dec.high.or(Long.fromNumber(1)); // long-or
  dec.low.or(Long.fromNumber(1)); // long-or
  let moved = { high: new Long() };
  moved.high.or(Long.fromNumber(1)); // not
}
""",
}


def test_typescript_object_shapes_of_locals_type_their_members(tmp_path: Path) -> None:
    """bson's `multiply64x2(): {high: Long; low: Long}` then `const significand = multiply64x2(...);
    significand.high.add()`, and `const dec = {high: Long.fromNumber(0)}; dec.high.or()`: the compiler types
    the members by the written object type or the literal's initializers. A `let` is left possible."""
    idx = indexed(tmp_path / "shapes", TS_OBJECT_SHAPES)
    try:
        long_add = certain_callers(idx, "typescript lib/long.ts Long.add().")
        other_add = certain_callers(idx, "typescript lib/long.ts Other.add().")
        long_or = certain_callers(idx, "typescript lib/long.ts Long.or().")
        assert _lines(TS_OBJECT_SHAPES, "long-add") <= long_add
        assert not (_lines(TS_OBJECT_SHAPES, "long-add") & other_add)
        assert _lines(TS_OBJECT_SHAPES, "other-add") <= other_add
        assert not (_lines(TS_OBJECT_SHAPES, "other-add") & long_add)
        assert _lines(TS_OBJECT_SHAPES, "long-or") <= long_or
        assert not (_lines(TS_OBJECT_SHAPES, "not") & long_or)
    finally:
        idx.close()


TS_GUARD_ASSIGNED = {
    "lib/long.ts": """export class Timestamp { isZero(): boolean { return true; } }
export class Long {
  static isLong(value: unknown): value is Long { return true; }
  static fromValue(v: number | Long | Timestamp): Long { return new Long(); }
  isZero(): boolean { return true; }
}
export function compare(other: number | Long | Timestamp): void {
  if (!Long.isLong(other)) other = Long.fromValue(other);
  other.isZero(); // long
}
export function twice(other: number | Long | Timestamp): void {
  if (!Long.isLong(other)) other = Long.fromValue(other);
  if (other) other = new Timestamp() as any;
  other.isZero(); // not
}
export function none(other: number | Long | Timestamp): void {
  if (!Long.isLong(other)) console.log(other);
  other.isZero(); // not
}
""",
}


def test_typescript_guard_then_assignment_is_the_union_of_the_paths(tmp_path: Path) -> None:
    """bson's `if (!Long.isLong(other)) other = Long.fromValue(other); other.isNegative()`: after the `if`
    the compiler's type is the guard's `Long` joined with the assigned `Long`, so `Long.isZero`, not
    `Timestamp.isZero`; a path that does not assign, or a second assignment, leaves the union (possible).
    (Read where the guard's class is of the same file, as bson's `long.ts`.)"""
    idx = indexed(tmp_path / "guard", TS_GUARD_ASSIGNED)
    try:
        long_ = certain_callers(idx, "typescript lib/long.ts Long.isZero().")
        stamp = certain_callers(idx, "typescript lib/long.ts Timestamp.isZero().")
        assert _lines(TS_GUARD_ASSIGNED, "long") <= long_
        assert not (_lines(TS_GUARD_ASSIGNED, "long") & stamp)
        assert not (_lines(TS_GUARD_ASSIGNED, "not") & (long_ | stamp))
    finally:
        idx.close()


TS_FIELD_VALUE = {
    "lib/long.ts": """export class Long {
  static ZERO = Long.fromInt(0);
  static fromInt(n: number): Long { return new Long(); }
  mul(o: Long): Long { return this; }
}
export class Other { mul(o: Long): Long { return o; } }
""",
    "lib/use.ts": """import { Long } from './long';
export function parse(s: string): Long {
  let result = Long.ZERO;
  for (const c of s) {
    result = result.mul(Long.fromInt(1)); // mul
  }
  Long.ZERO.mul(result);
  return result;
}
""",
}


def test_typescript_static_field_without_a_type_has_its_initializers(tmp_path: Path) -> None:
    """bson's `static ZERO = Long.fromInt(0)` then `let result = Long.ZERO; result = result.mul(...)`: the
    field's type is its initializer's (fromInt's declared `Long`), and so is the `let`'s."""
    idx = indexed(tmp_path / "field", TS_FIELD_VALUE)
    try:
        assert _lines(TS_FIELD_VALUE, "mul") <= certain_callers(idx, "typescript lib/long.ts Long.mul().")
        assert not (_lines(TS_FIELD_VALUE, "mul") & certain_callers(idx, "typescript lib/long.ts Other.mul()."))
    finally:
        idx.close()


GO_BLOCKS = {
    "go.mod": "module example.com/blk\n\ngo 1.22\n",
    "blk/cfg/cfg.go": """package cfg

type Config struct{}

func (c *Config) SetOption() {}
""",
    "blk/blk.go": """package blk

import "example.com/blk/blk/cfg"

type A struct{}

func (a A) M() {}
func (a A) Next() B { return B{} }

type B struct{}

func (b B) M() {}

var x = B{}

func mkA() A { return A{} }
func mkB() B { return B{} }
func pair() (int, A) { return 0, A{} }
func pairB() (int, B) { return 0, B{} }

func Blocks(ok bool, as []A, bs []B) {
	if ok {
		_, seg := pair()
		seg.M() // a
	} else {
		_, seg := pairB()
		seg.M() // b
	}
	for c := mkA(); ok; {
		c.M() // a
	}
	for c := mkB(); ok; {
		c.M() // b
	}
	for _, ip := range as {
		ip.M() // a
	}
	for _, ip := range bs {
		ip.M() // b
	}
	v := A{}
	if ok {
		v := B{}
		v.M() // b
	}
	v.M() // a
	w := mkA()
	{
		w.M() // a
		w := w.Next()
		w.M() // b
	}
	x.M() // b
	{
		x.M() // b
		x := mkA()
		x.M() // a
	}
	x.M() // b
	func(v B) {
		v.M() // b
	}(B{})
	switch y := 1; y {
	case 1:
		y := mkA()
		y.M() // a
	}
}

type Wrap struct {
	cfg.Config
	n int
}

type Local struct{ A }

func Embedded(w *Wrap, l Local) {
	w.Config.SetOption() // config
	l.A.M() // a
}

type I interface{ M() }

func Switch(v I) {
	switch m := v.(type) {
	case A:
		m.M() // a
	case *B:
		m.M() // b
	case A, B:
		m.M() // i
	default:
		m.M() // i
	}
}
""",
}


def test_go_local_read_from_the_declaration_of_its_block(tmp_path: Path) -> None:
    """A name declared in different blocks of one function (`seg` in both arms, `c` of two `for` inits, `ip`
    of two `range` loops, `v` shadowed in an inner block): each use reads the declaration enclosing it, as
    go/types scopes it; before its declaration in a block a use is the outer name's (`w := w.Next()`, the
    package var `x`); a func literal's parameter hides a local of its name; a type switch's `m` is a T in a
    clause of one type T, the switch's (never A's or B's) in a clause of several; an embedded field is named
    by its type (`w.Config.SetOption()`)."""
    idx = indexed(tmp_path / "blk", GO_BLOCKS)
    try:
        files = {k: v for k, v in GO_BLOCKS.items() if k.endswith(".go")}
        a = certain_callers(idx, "go blk/blk.go A.M().")
        b = certain_callers(idx, "go blk/blk.go B.M().")
        assert _lines(files, "a") == a
        assert _lines(files, "b") == b
        assert _lines(files, "config") <= certain_callers(idx, "go blk/cfg/cfg.go Config.SetOption().")
    finally:
        idx.close()


TS_STATIC_NAMESAKES = {
    "lib/fetch.ts": """export class FetchResponse {
  static clone(response: FetchResponse): FetchResponse {
    return response.clone(); // instance
  }
  static hash(v: string): string {
    return FetchResponse.from(v).hash(); // instance
  }
  static from(v: string): FetchResponse { return new FetchResponse(); }
  static isRedirect(s: number): boolean { return s > 300; }
  static make(v: string): string {
    return this.hash(v); // static
  }
  clone(): FetchResponse { return this; }
  hash(): string { return this.clone().hash(); } // instance
  again(): FetchResponse { return this.clone(); } // instance
}
export class Sub extends FetchResponse {}
export class Plain {
  static go(): void {}
  run(): void { Plain.go(); } // plain
}
""",
    "lib/use.ts": """import { FetchResponse, Sub } from './fetch';
export function use(r: FetchResponse, s: Sub) {
  FetchResponse.clone(r); // static
  r.clone(); // instance
  Sub.clone(r); // static
  s.clone(); // instance
  FetchResponse.hash('x'); // static
}
export function narrowed(r: FetchResponse) {
  if (FetchResponse.isRedirect(1)) {
    return;
  }
  FetchResponse.clone(r); // static
}
""",
}


def test_typescript_static_and_instance_methods_of_one_name_are_apart(tmp_path: Path) -> None:
    """@mswjs/interceptors' `static clone(response)` beside `clone()` (and ethers' TypedDataEncoder): each call
    is the static one's on the class object (`FetchResponse.clone(r)`, `Sub.clone(r)`, `this.hash(v)` in a
    static method), the instance one's on an instance, as tsc resolves it; before, both ids listed every call.
    A class without such a pair (`Plain.go()`) is resolved as before."""
    idx = indexed(tmp_path / "static", TS_STATIC_NAMESAKES)
    try:
        static = certain_callers(idx, "typescript lib/fetch.ts FetchResponse.clone().")
        static |= certain_callers(idx, "typescript lib/fetch.ts FetchResponse.hash().")
        instance = certain_callers(idx, "typescript lib/fetch.ts FetchResponse.clone(+1).")
        instance |= certain_callers(idx, "typescript lib/fetch.ts FetchResponse.hash(+1).")
        assert static == _lines(TS_STATIC_NAMESAKES, "static")
        assert instance == _lines(TS_STATIC_NAMESAKES, "instance")
        assert _lines(TS_STATIC_NAMESAKES, "plain") == certain_callers(idx, "typescript lib/fetch.ts Plain.go().")
    finally:
        idx.close()


TS_MODULE_CALLBACKS = {
    "src/interceptor.ts": """export class Interceptor<Events> {
  apply(): void {}
  on(name: string): this { return this; }
}
export class Other {
  apply(): void {}
}
""",
    "src/interceptor.test.ts": """import { Interceptor, Other } from './interceptor';
const shared = new Other();
it('applies', () => {
  const interceptor = new Interceptor(Symbol('x'));
  interceptor.apply(); // interceptor
  interceptor.on('a').apply(); // interceptor
  shared.apply(); // other
});
describe('group', () => {
  const outer = new Interceptor(Symbol('y'));
  it('nested', async () => {
    outer.apply(); // interceptor
    const interceptor = new Other();
    interceptor.apply(); // other
  });
});
it('again', () => { const interceptor = new Other(); interceptor.apply(); }); // other
""",
}


def test_typescript_locals_of_module_level_callbacks_type_their_calls(tmp_path: Path) -> None:
    """@mswjs/interceptors' tests: `it('...', () => { const interceptor = new Interceptor(symbol);
    interceptor.apply() })` at module level (70 of its 78 misses on held-out V): each callback's local is its
    own, a nested callback reads the one around it, a sibling's local of the same name is another's."""
    idx = indexed(tmp_path / "cb", TS_MODULE_CALLBACKS)
    try:
        mine = certain_callers(idx, "typescript src/interceptor.ts Interceptor.apply().")
        other = certain_callers(idx, "typescript src/interceptor.ts Other.apply().")
        assert mine == _lines(TS_MODULE_CALLBACKS, "interceptor")
        assert other == _lines(TS_MODULE_CALLBACKS, "other")
    finally:
        idx.close()


TS_SUPER_INTERFACE = {
    "src/transport.ts": """export interface Transport {
  addEventListener(type: string): void;
}
export class Base {
  addEventListener(type: string): void {}
}
export class Outside extends EventTarget implements Transport {
  addEventListener(type: string): void {
    return super.addEventListener(type); // not
  }
}
export class Inside extends Base implements Transport {
  addEventListener(type: string): void {
    super.addEventListener(type); // base
    this.addEventListener(type);
  }
}
""",
}


def test_typescript_super_is_never_an_implemented_interfaces_method(tmp_path: Path) -> None:
    """@mswjs/interceptors' `class WebSocketClassTransport extends EventTarget implements WebSocketTransport`:
    `super.addEventListener(...)` is EventTarget's (outside the repository), not the interface's; where the
    base class is in the repository, its method, as before."""
    idx = indexed(tmp_path / "super", TS_SUPER_INTERFACE)
    try:
        iface = certain_callers(idx, "typescript src/transport.ts Transport.addEventListener().")
        base = certain_callers(idx, "typescript src/transport.ts Base.addEventListener().")
        assert not (_lines(TS_SUPER_INTERFACE, "not") & iface)
        assert _lines(TS_SUPER_INTERFACE, "base") <= base
    finally:
        idx.close()


TS_IMPLEMENTS = {
    "src/subchannel.ts": """export interface SubchannelInterface {
  throttle(ms: number): void;
  state(): number;
}
export abstract class BaseWrapper implements SubchannelInterface {
  throttle(ms: number): void {}
  state(): number { return 0; }
}
export class Wrapper extends BaseWrapper implements SubchannelInterface {
  refresh(): void {
    this.throttle(1); // base
  }
}
export class Outside extends EventTarget implements SubchannelInterface {
  throttle(ms: number): void {}
  state(): number { return 1; }
  poll(): void {
    this.dispatchEvent(new Event('x'));
  }
}
export declare interface Emitter { emit(e: string): boolean; }
export class Emitter { on(e: string): void {} }
export class Stream extends Emitter {
  close(): void {
    this.emit('close'); // merged
  }
}
export class Pool {
  private readonly wrappers: Set<Wrapper> = new Set();
  private one: Wrapper = new Wrapper();
  throttleAll(ms: number): void {
    for (const w of this.wrappers) {
      w.throttle(ms); // base
    }
    this.one.throttle(ms); // base
    const s: SubchannelInterface = this.one;
    s.state(); // iface
  }
}
""",
}


def test_typescript_implements_adds_no_member_to_a_class(tmp_path: Path) -> None:
    """grpc-js' `class ChannelSubchannelWrapper extends BaseSubchannelWrapper implements SubchannelInterface`:
    `w.throttleKeepalive()` is the base class's method, as tsc resolves it; an interface a class implements
    adds no member to it (TypeScript makes the class declare each), so it is never a callee through the class;
    an interface merged with a class of its name (mongodb's `TypedEventEmitter`) is part of that class."""
    idx = indexed(tmp_path / "impl", TS_IMPLEMENTS)
    try:
        ids = "typescript src/subchannel.ts "
        base = certain_callers(idx, ids + "BaseWrapper.throttle().")
        iface = certain_callers(idx, ids + "SubchannelInterface.throttle().")
        assert _lines(TS_IMPLEMENTS, "base") <= base
        assert not (_lines(TS_IMPLEMENTS, "base") & iface)
        assert _lines(TS_IMPLEMENTS, "iface") <= certain_callers(idx, ids + "SubchannelInterface.state().")
        # an interface merged with the class of its name is the class: its members are reached
        assert _lines(TS_IMPLEMENTS, "merged") <= certain_callers(idx, ids + "Emitter.emit().")
    finally:
        idx.close()


TS_SERVICE_GROUPS = {
    "src/providers.ts": """export interface CommentProvider { getComment(n: string): string; }
export interface Linker { link(n: string): void; }
export interface WorkspaceLock { read(n: string): void; }
export class Mutex { read(n: string): void {} }
export class Other { read(n: string): void {} }
""",
    "src/services.ts": """import type { CommentProvider, Linker, WorkspaceLock, Mutex, Other } from './providers.js';
export type Generated = { readonly Grammar: string };
export type DefaultServices = {
    readonly documentation: {
        readonly CommentProvider: CommentProvider
    }
    readonly references: {
        readonly Linker: Linker
        readonly nested: { readonly Lock: WorkspaceLock }
    }
};
export type CoreServices = Generated & DefaultServices;
export interface Clashing {
    readonly a: { readonly Lock: Mutex }
    readonly b: { readonly Lock: Mutex & Other }
}
""",
    "src/use.ts": """import type { CoreServices, Clashing } from './services.js';
export function collect(services: CoreServices, c: Clashing) {
    const commentProvider = services.documentation.CommentProvider;
    commentProvider.getComment('x'); // comment
    services.references.Linker.link('x'); // link
    const lock = services.references.nested.Lock;
    lock.read('x'); // lock
    c.a.Lock.read('x');
    c.b.Lock.read('x'); // not
}
""",
}


def test_typescript_nested_object_type_members_are_read_through_their_group(tmp_path: Path) -> None:
    """langium's DI services, `type Services = { readonly documentation: { readonly CommentProvider:
    CommentProvider } }`: the compiler types `services.documentation.CommentProvider` by the nested object type's
    member. code-scan files a nested literal's members under the declaring type (the group reads as that type);
    a member name two groups of one type declare gives no certain answer (`c.b.Lock`, an intersection, is no Mutex)."""
    idx = indexed(tmp_path / "svc", TS_SERVICE_GROUPS)
    try:
        ids = "typescript src/providers.ts "
        assert _lines(TS_SERVICE_GROUPS, "comment") <= certain_callers(idx, ids + "CommentProvider.getComment().")
        assert _lines(TS_SERVICE_GROUPS, "link") <= certain_callers(idx, ids + "Linker.link().")
        assert _lines(TS_SERVICE_GROUPS, "lock") <= certain_callers(idx, ids + "WorkspaceLock.read().")
        wrong = certain_callers(idx, ids + "Mutex.read().") | certain_callers(idx, ids + "Other.read().")
        wrong |= certain_callers(idx, ids + "WorkspaceLock.read().")
        assert not (_lines(TS_SERVICE_GROUPS, "not") & wrong)
    finally:
        idx.close()


TS_NAMESPACE_VALUE = {
    "src/convert.ts": """export interface ValueConverter { convert(input: string): string; }
export class DefaultValueConverter implements ValueConverter {
    convert(input: string): string {
        return ValueConverter.convertString(input); // string
    }
}
export namespace ValueConverter {
    export function convertString(input: string): string { return input; }
}
export namespace UriUtils {
    export function normalize(uri: string): string { return uri; }
    export function same(a: string): boolean { return UriUtils.normalize(a) === a; } // normalize
}
export class Converter { convertString(input: string): string { return input; } }
export function use(c: ValueConverter) {
    c.convert('x');
}
""",
}


def test_typescript_namespace_named_in_its_file_is_a_value(tmp_path: Path) -> None:
    """langium's `export namespace ValueConverter { export function convertString() }` beside `export interface
    ValueConverter`: the compiler reads `ValueConverter.convertString(x)` (a value) as the namespace's function,
    in the namespace's file too, and `UriUtils.normalize()` inside namespace UriUtils; never a class's method of
    that name (`Converter.convertString`)."""
    idx = indexed(tmp_path / "ns", TS_NAMESPACE_VALUE)
    try:
        ids = "typescript src/convert.ts "
        assert _lines(TS_NAMESPACE_VALUE, "string") <= certain_callers(idx, ids + "ValueConverter.convertString().")
        assert _lines(TS_NAMESPACE_VALUE, "normalize") <= certain_callers(idx, ids + "UriUtils.normalize().")
        assert not certain_callers(idx, ids + "Converter.convertString().")
    finally:
        idx.close()


TS_AWAITED = {
    "src/net.ts": """export class Network { getPlugin(n: string): void {} }
export class FetchResponse { assertOk(): void {} }
export interface Subscriber { stop(): void; }
type Sub = { tag: string; subscriber: Subscriber };
export interface Provider { getNetwork(): Promise<Network>; }
export class Request {
    async send(): Promise<FetchResponse> { return new FetchResponse(); }
    sync(): Network { return new Network(); }
    async made() { return new Network(); }
}
export class Thenable { then(f: () => void): void {} assertOk(): void {} }
export class Deferred {
    pending(): Promise<Thenable> { return null as any; }
}
""",
    "src/use.ts": """import { Provider, Request, Deferred } from './net.js';
export class P {
    async #getSub(event: string): Promise<null | Sub> { return null; }
    async on(event: string, provider: Provider, req: Request, d: Deferred) {
        const sub = await this.#getSub(event);
        if (sub) { sub.subscriber.stop(); } // stop
        const network = await provider.getNetwork();
        network.getPlugin('x'); // plugin
        const response = await req.send();
        response.assertOk(); // ok
        const n = await req.sync();
        n.getPlugin('y'); // plugin
        const m = await req.made();
        m.getPlugin('z'); // plugin
        d.pending().then(() => {}); // not
    }
}
type Sub = { tag: string; subscriber: Subscriber };
import type { Subscriber } from './net.js';
""",
}


def test_typescript_await_of_a_promise_result_is_its_argument(tmp_path: Path) -> None:
    """ethers' `const network = await provider.getNetwork()` with `getNetwork(): Promise<Network>`: the
    compiler types the await as the Promise's argument (`null | Sub` as Sub once narrowed); awaiting a plain
    result gives it, as does awaiting an async method's inferred result. Unawaited, the Promise is no Thenable:
    `d.pending().then()` is not Thenable's `then`."""
    idx = indexed(tmp_path / "aw", TS_AWAITED)
    try:
        ids = "typescript src/net.ts "
        assert _lines(TS_AWAITED, "stop") <= certain_callers(idx, ids + "Subscriber.stop().")
        assert _lines(TS_AWAITED, "plugin") <= certain_callers(idx, ids + "Network.getPlugin().")
        assert _lines(TS_AWAITED, "ok") <= certain_callers(idx, ids + "FetchResponse.assertOk().")
        assert not (_lines(TS_AWAITED, "not") & certain_callers(idx, ids + "Thenable.then()."))
    finally:
        idx.close()


TS_GENERIC_BASE = {
    "src/provider.ts": """export interface Provider { estimateGas(): number; }
export class AbstractProvider implements Provider { estimateGas(): number { return 1; } }
export class JsonRpcApiProvider extends AbstractProvider { send(m: string): void {} }
""",
    "src/signer.ts": """import type { Provider } from './provider.js';
export abstract class AbstractSigner<P extends null | Provider = null | Provider> {
    readonly provider!: P;
    gas(): number {
        return this.provider!.estimateGas(); // provider
    }
}
export class VoidSigner extends AbstractSigner {
    gas2(): number { return this.provider!.estimateGas(); } // provider
}
""",
    "src/jsonrpc.ts": """import { AbstractSigner } from './signer.js';
import { JsonRpcApiProvider } from './provider.js';
export class JsonRpcSigner extends AbstractSigner<JsonRpcApiProvider> {
    sign(): void {
        this.provider.send('eth_sign'); // send
        this.provider.estimateGas(); // abstract
    }
}
""",
}


def test_typescript_field_of_a_type_parameter_is_the_subclass_type_argument(tmp_path: Path) -> None:
    """ethers' `class JsonRpcSigner extends AbstractSigner<JsonRpcApiProvider>` with `readonly provider!: P` in
    `AbstractSigner<P extends null | Provider>`: the compiler reads `this.provider` in the subclass as the type
    argument (its `send`, the `estimateGas` it inherits), not the constraint; in the base and in a subclass
    passing no argument it is the constraint."""
    idx = indexed(tmp_path / "gen", TS_GENERIC_BASE)
    try:
        ids = "typescript src/provider.ts "
        assert _lines(TS_GENERIC_BASE, "send") <= certain_callers(idx, ids + "JsonRpcApiProvider.send().")
        assert _lines(TS_GENERIC_BASE, "abstract") <= certain_callers(idx, ids + "AbstractProvider.estimateGas().")
        provider = certain_callers(idx, ids + "Provider.estimateGas().")
        assert _lines(TS_GENERIC_BASE, "provider") <= provider
        assert not (_lines(TS_GENERIC_BASE, "abstract") & provider)
    finally:
        idx.close()


TS_ANGLE_ASSERTION = {
    "src/network.ts": """export class Network { clone(): Network { return this; } }
export class Other { clone(): Other { return this; } }
export function from(network: unknown): Network {
    const copy = (<Network>network).clone(); // clone
    return (<Network>(<unknown>copy)).clone(); // clone
}
""",
}


def test_typescript_angle_bracket_assertion_types_the_receiver(tmp_path: Path) -> None:
    """ethers' `(<Network>network).clone()`: the compiler reads `<K>x` as `x as K` (never Other's `clone`)."""
    idx = indexed(tmp_path / "ang", TS_ANGLE_ASSERTION)
    try:
        ids = "typescript src/network.ts "
        assert _lines(TS_ANGLE_ASSERTION, "clone") <= certain_callers(idx, ids + "Network.clone().")
        assert not certain_callers(idx, ids + "Other.clone().")
    finally:
        idx.close()


TS_FUNCTION_FIELD = {
    "src/ws.ts": """export class WorkspaceManager { searchFolder(u: string): void {} }
export class Other { searchFolder(u: string): void {} }
export class Builder {
    protected readonly workspaceManager: () => WorkspaceManager;
    protected readonly maker: (() => Other) | undefined;
    protected readonly docs: () => WorkspaceManager | Other;
    constructor(w: () => WorkspaceManager) { this.workspaceManager = w; this.maker = undefined; this.docs = w; }
    run(): void {
        this.workspaceManager().searchFolder('x'); // search
        this.docs().searchFolder('y'); // not
    }
}
""",
}


def test_typescript_function_typed_field_called_gives_its_result(tmp_path: Path) -> None:
    """langium's `protected readonly workspaceManager: () => WorkspaceManager` (a lazy service):
    `this.workspaceManager().searchFolder()` is WorkspaceManager's; a result of two classes is neither's."""
    idx = indexed(tmp_path / "fnf", TS_FUNCTION_FIELD)
    try:
        ids = "typescript src/ws.ts "
        ws = certain_callers(idx, ids + "WorkspaceManager.searchFolder().")
        assert _lines(TS_FUNCTION_FIELD, "search") <= ws
        assert not (_lines(TS_FUNCTION_FIELD, "not") & (ws | certain_callers(idx, ids + "Other.searchFolder().")))
    finally:
        idx.close()
