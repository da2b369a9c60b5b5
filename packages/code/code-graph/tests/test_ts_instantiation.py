"""TypeScript callback parameters typed by the callee's own type parameter (`<T>(init: (inst: T) => void)`):
each call instantiates T, from an explicit type argument, from an argument of type T, or from the type the
call's value is declared with (`const K: Maker<K> = maker(...)`, a stated result), in the compiler's order;
callbacks at module level; generic interface bases (`interface A extends B<T>`); `K.m()` where K is both an
interface and a value (the value's method); a namespace re-exported by name (`import { util }` of an
`export * as util`). What the call does not
state, or states in a way not followed (`T[]`, a callback's result), stays name-only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index, certain_sites

CORE = """export interface Trait {
  def: unknown
}
export interface Maker<T extends Trait, D = T["def"]> {
  new (def: D): T
  init(inst: T, def: D): void
}
export function maker<T extends Trait, D = T["def"]>(name: string, init: (inst: T, def: D) => void): Maker<T, D> {
  return null as any
}
export function tap<T>(value: T, fn: (v: T) => void): T {
  fn(value)
  return value
}
export function both<T>(a: T, b: T[], fn: (v: T) => void): void {}
export class Registry {
  on<T>(value: T, fn: (v: T) => void): void {}
}
export function later<T>(fn: (v: T) => T): T {
  return null as any
}
"""

SHAPES = """import * as core from '../lib/index';
import { tap, both, later, util } from '../lib/index';

export interface Shape extends core.Trait {
  check(): void
}
export interface Round<N = number> extends Shape {
  radius(): N
}
export interface Circle extends Round<number> {}

export const Shape: core.Maker<Shape> = core.maker("Shape", (inst, def) => {
  inst.check();
});
export const Circle: core.Maker<Circle> = /*@__PURE__*/ core.maker("Circle", (inst) => {
  inst.check();
  inst.radius();
});
export function make(): core.Maker<Shape> {
  return core.maker("S", (inst) => inst.check());
}
export const loose = core.maker("Loose", (inst) => inst.check());

export class Square {
  side(): number {
    return 1
  }
}
export class Cube extends Square {
  side(): number {
    return 2
  }
}
export class Dice extends Cube {
  static roll(): Dice {
    return new Dice()
  }
}
export function viaValues(x: unknown, d: unknown): void {
  Shape.init(x as any, d);
  Dice.roll();
  util.assign();
}
export function viaArguments(s: Square, reg: core.Registry): void {
  tap(s, (v) => v.side());
  tap(new Cube(), (v) => v.side());
  tap<Cube>(s as any, (v) => v.side());
  both(s, [], (w) => w.side());
  later((u) => u.side());
  reg.on(new Cube(), (c) => c.side());
}
"""

FILES = {
    "lib/core.ts": CORE,
    "lib/index.ts": "export * from './core';\nexport * as util from './util';\n",
    "lib/util.ts": "export function assign(): void {}\n",
    # the same in Python: a module bound by name in a package module, a class's name as a value
    "pyk/context.py": "from . import reduction\n",
    "pyk/reduction.py": "def dump():\n    return 1\n\n\nclass Handle:\n    def close(self):\n        return 2\n",
    "pyk/user.py": "from .context import reduction\nimport pyk.reduction\n\n\ndef go(h):\n"
    "    reduction.dump()\n    pyk.reduction.Handle.close(h)\n",
    "app/shapes.ts": SHAPES,
}


def _line(needle: str, nth: int = 0) -> int:
    return [i for i, text in enumerate(SHAPES.splitlines(), 1) if needle in text][nth]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("tsi") / "shapes", FILES)


def _sites(idx: CodeIndex, symbol_id: str) -> dict[int | None, str | None]:
    return certain_sites(idx, symbol_id, "app/shapes.ts")


def test_declared_type_instantiates_the_callback_parameter(index: CodeIndex) -> None:
    check = _sites(index, "typescript app/shapes.ts Shape.check().")
    assert check.get(_line("inst.check();", 0)) == "callback-parameter"  # `const Shape: core.Maker<Shape>`
    assert _line("inst.check();", 1) in check  # Circle, through the generic base Round<number>
    assert _line('core.maker("S"') in check  # `return ...` in a function stated to give Maker<Shape>
    assert _line('core.maker("Loose"') not in check  # nothing declared: T is not known
    assert _line("inst.radius()") in _sites(index, "typescript app/shapes.ts Round.radius().")


def test_arguments_and_explicit_type_arguments_instantiate(index: CodeIndex) -> None:
    square = _sites(index, "typescript app/shapes.ts Square.side().")
    cube = _sites(index, "typescript app/shapes.ts Cube.side().")
    assert square.get(_line("tap(s, (v)")) == "callback-parameter"
    assert _line("tap(s, (v)") not in cube
    assert _line("tap(new Cube()") in cube and _line("tap(new Cube()") not in square
    assert _line("tap<Cube>") in cube and _line("tap<Cube>") not in square  # the written argument wins
    assert _line("reg.on(new Cube()") in cube  # a method's own type parameter


def test_inferences_not_followed_stay_name_only(index: CodeIndex) -> None:
    square = _sites(index, "typescript app/shapes.ts Square.side().")
    cube = _sites(index, "typescript app/shapes.ts Cube.side().")
    for needle in ("both(s, [],", "later((u)"):  # T also from `b: T[]`; T from the callback's own result
        assert _line(needle) not in square and _line(needle) not in cube, needle


def test_generic_bases_are_inherit_references(index: CodeIndex) -> None:
    refs = [r for r in index.references("Round") if r.line == _line("export interface Circle")]
    assert [r.role for r in refs] == ["inherit"]  # not also a `type` reference


def test_a_name_in_value_position_is_the_value(index: CodeIndex) -> None:
    init = _sites(index, "typescript lib/core.ts Maker.init().")
    assert init.get(_line("Shape.init(x as any")) == "module-instance"  # the const, not the interface Shape
    assert _line("Dice.roll()") in _sites(index, "typescript app/shapes.ts Dice.roll().")  # a class: its static
    assign = index.callers("typescript lib/util.ts assign().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line, h.edge.resolution) for h in assign} == {
        ("app/shapes.ts", _line("util.assign()"), "module-qualified")
    }


def test_python_module_bound_by_name_and_class_values(index: CodeIndex) -> None:
    dump = index.callers("python pyk/reduction.py dump().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line, h.edge.resolution) for h in dump} == {("pyk/user.py", 6, "module-qualified")}
    close = index.callers("python pyk/reduction.py Handle.close().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line) for h in close} == {("pyk/user.py", 7)}  # `mod.K.m(h)`: K's method
