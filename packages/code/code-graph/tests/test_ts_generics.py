"""TypeScript receivers typed through generics and unions: `T extends K` parameters and fields,
`Map<_, K>` / `Set<K>` containers, `A | B` unions, `instanceof` narrowing; files with generic call
signatures that tree-sitter misreads unless they are separated; closures calling each other (TypeScript
and Python). What nothing states stays name-only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index, certain_sites

USE = """import { Sink, Other, Base } from '../lib/sink';

export function constrained<T extends Sink, U>(s: T, u: U, many: T[]): void {
  s.close();
  u.close();
  many[0].error(1);
}
export class Box<S extends Other> {
  item: S;
  constructor(item: S) { this.item = item; }
  poke(): void {
    this.item.error(2);
  }
}
export class Registry {
  byName: Map<string, Sink> = new Map();
  seen: Set<Other> = new Set();
  lookup(name: string): void {
    this.byName.get(name)!.close();
    this.byName.forEach((sink) => sink.error(3));
    for (const s of this.byName.values()) {
      s.close();
    }
    for (const pair of this.byName) {
      pair.close();
    }
    this.seen.forEach((o) => o.error(4));
  }
}
export function either(x: Sink | Other, finish: Sink | (() => void)): void {
  x.error(5);
  finish.close();
}
export function narrowed(t: Base): void {
  if (t instanceof Sink) {
    t.close();
  } else {
    t.close();
  }
  t instanceof Other && t.error(6);
}
"""

# A generic call signature on its own line (no `;`): tree-sitter-typescript reads the line before's type
# as generic unless the members are separated, and the error used to swallow the rest of the file.
FACTORY = """import { Sink } from './sink';

export interface Factory {
    <T extends Sink>(fn: T): T
    <T extends Sink>(name: string, fn: T): T
    bound: Sink
}

export function makeFactory(): Factory {
    const res: Factory = function factory(a: any, b?: any): any {
        return finish(a)
    } as Factory
    return res
}

function finish(x: any): any {
    return x
}
"""

# Functions nested in a function call each other and themselves by their bare names (lexical scope); a
# top-level function of the same name is not what they call.
NFA = """export function node(): number {
  return 0
}

export function nfa(): number {
  function node(): number {
    return 1
  }
  function compile(n: number): number {
    if (n > 0) return compile(n - 1)
    return node()
  }
  return compile(3) + node()
}

export function outside(): number {
  return node()
}

export function plugin(): unknown {
  class Draft {
    set(): number {
      return prepare()
    }
  }
  function prepare(): number {
    return 2
  }
  return Draft
}
"""
NESTED_PY = """def edge():
    return 0


def nfa():
    def edge():
        return 1

    def compile(n):
        def inner():
            return edge()

        return compile(n - 1) if n else inner()

    return compile(3)
"""

FILES = {
    # re-exports several levels deep: an alias re-export from a barrel, a barrel of barrels (TypeScript and Python)
    "lib/core/api.ts": "export function _lte(v: number): number {\n  return v\n}\n",
    "lib/core/index.ts": "export * from './api';\n",
    "lib/classic/checks.ts": "export {\n  _lte as lte,\n} from '../core/index';\n",
    "app/checks_use.ts": "import * as checks from '../lib/classic/checks';\n"
    "import { lte } from '../lib/classic/checks';\n\n"
    "export function use(): number {\n  return checks.lte(1) + lte(2);\n}\n",
    "pkg/__init__.py": "from .sub import *\n",
    "pkg/sub/__init__.py": "from .mod import helper\n",
    "pkg/sub/mod.py": "def helper():\n    return 1\n",
    "app/pyuse.py": "from pkg import helper\nimport pkg\n\n\ndef go():\n    return helper() + pkg.helper()\n",
    "lib/nfa.ts": NFA,
    "lib/nfa.py": NESTED_PY,
    "lib/sink.ts": "export class Base {\n  close(): void {}\n}\nexport class Sink extends Base {\n"
    "  error(err: unknown): void {}\n  close(): void {}\n}\nexport class Other {\n  error(err: unknown): void {}\n}\n",
    "lib/factory.ts": FACTORY,
    "app/use.ts": USE,
}
SINK_CLOSE = "typescript lib/sink.ts Sink.close()."
SINK_ERROR = "typescript lib/sink.ts Sink.error()."
OTHER_ERROR = "typescript lib/sink.ts Other.error()."


def _line(needle: str, text: str = USE, nth: int = 0) -> int:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("tsg") / "generics", FILES)


def _sites(idx: CodeIndex, symbol_id: str, path: str = "app/use.ts") -> set[int | None]:
    return set(certain_sites(idx, symbol_id, path))


def test_type_parameters_are_their_constraints(index: CodeIndex) -> None:
    close = _sites(index, SINK_CLOSE)
    assert _line("  s.close();") in close  # s: T, T extends Sink
    assert _line("u.close()") not in close  # U has no constraint: nothing known
    assert _line("many[0].error(1)") in _sites(index, SINK_ERROR)  # T[]
    assert _line("this.item.error(2)") in _sites(index, OTHER_ERROR)  # a field of the class's S extends Other


def test_map_and_set_elements(index: CodeIndex) -> None:
    close = _sites(index, SINK_CLOSE)
    assert _line("this.byName.get(name)!.close()") in close
    assert _line("      s.close();") in close  # for (s of map.values())
    assert _line("pair.close()") not in close  # iterating a Map gives [key, value] pairs
    assert _line("sink.error(3)") in _sites(index, SINK_ERROR)  # forEach's first parameter is the value
    assert _line("o.error(4)") in _sites(index, OTHER_ERROR)


def test_unions_call_every_member(index: CodeIndex) -> None:
    assert _line("x.error(5)") in _sites(index, SINK_ERROR)
    assert _line("x.error(5)") in _sites(index, OTHER_ERROR)
    assert _line("finish.close()") in _sites(index, SINK_CLOSE)  # the function type has no close


def test_instanceof_narrows_only_where_it_holds(index: CodeIndex) -> None:
    close = _sites(index, SINK_CLOSE)
    base_close = _sites(index, "typescript lib/sink.ts Base.close().")
    assert _line("    t.close();", nth=0) in close
    assert _line("    t.close();", nth=1) not in close  # the else branch: a Base
    assert _line("    t.close();", nth=1) in base_close
    assert _line("t.error(6)") in _sites(index, OTHER_ERROR)


def test_generic_call_signatures_do_not_hide_the_file(index: CodeIndex) -> None:
    names = {s.name for s in index.symbols_in_file("lib/factory.ts")}
    assert {"Factory", "makeFactory", "finish", "bound"} <= names
    assert _line("return finish(a)", FACTORY) in _sites(index, "typescript lib/factory.ts finish().", "lib/factory.ts")


def test_closures_call_each_other_by_bare_name(index: CodeIndex) -> None:
    inner = _sites(index, "typescript lib/nfa.ts nfa.node().", "lib/nfa.ts")
    top = _sites(index, "typescript lib/nfa.ts node().", "lib/nfa.ts")
    assert inner == {_line("return node()", NFA, 0), _line("compile(3) + node()", NFA)}
    assert top == {_line("return node()", NFA, 1)}  # only `outside` calls the top-level one
    assert _sites(index, "typescript lib/nfa.ts nfa.compile().", "lib/nfa.ts") == {
        _line("return compile(n - 1)", NFA),
        _line("compile(3) + node()", NFA),
    }
    # a method of a class defined in a function sees the function's names
    assert _sites(index, "typescript lib/nfa.ts plugin.prepare().", "lib/nfa.ts") == {_line("return prepare()", NFA)}
    py_inner = _sites(index, "python lib/nfa.py nfa.edge().", "lib/nfa.py")
    assert py_inner == {_line("return edge()", NESTED_PY)}  # from a closure two levels down
    assert _sites(index, "python lib/nfa.py edge().", "lib/nfa.py") == set()
    assert _line("return compile(n - 1)", NESTED_PY) in _sites(index, "python lib/nfa.py nfa.compile().", "lib/nfa.py")


def test_re_exports_are_followed_several_levels(index: CodeIndex) -> None:
    ts = index.callers("typescript lib/core/api.ts _lte().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line, h.edge.resolution) for h in ts} == {
        ("app/checks_use.ts", 5, "import"),  # `lte` from checks.ts: `_lte as lte` from a barrel's `export *`
        ("app/checks_use.ts", 5, "module-qualified"),  # `checks.lte` through the namespace import
    }
    py = index.callers("python pkg/sub/mod.py helper().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line) for h in py} == {("app/pyuse.py", 6)}
    assert {h.edge.resolution for h in py} == {"import", "module-qualified"}
