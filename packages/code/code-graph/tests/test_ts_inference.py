"""TypeScript receivers the compiler types from context: callback parameters typed by the callee's
signature, array elements, `??` / `||` defaults, closures, parameter properties, destructuring, `as`.
Each certain edge names its inference (Edge.resolution); what nothing states stays name-only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index, certain_sites

USE = """import { Sink, Other } from '../lib/sink';
import { Clock, Scheduler, systemClock } from '../lib/clock';
import { Stream, operate } from '../lib/stream';

export function viaFunction(): Stream {
  return operate((source, sink) => {
    sink.error(1);
  });
}
export function viaConstructor(): Stream {
  return new Stream((sink) => sink.close());
}
export function viaMethod(s: Stream): void {
  s.each((sink, i) => sink.close());
}
export function viaArray(sinks: Sink[], others: Other[]): void {
  sinks.forEach((x) => x.close());
  for (const o of others) {
    o.error(2);
  }
  sinks[0].error(3);
  sinks.pop()!.close();
}
export function viaDefault(clock?: Clock, scheduler?: Scheduler): number {
  const c = clock ?? systemClock;
  const d = scheduler || clock;
  const e = c.now();
  const f = d.now();
  return e + f + 1 - scheduler!.now();
}
export function viaClosure(sink: Sink): () => void {
  const later = () => sink.close();
  return later;
}
export class Holder {
  constructor(private readonly sink: Sink, protected clock: Clock) {}
  flush(): void {
    const { sink } = this;
    sink.close();
    this.clock.now();
    (this.other() as Sink).error(4);
  }
  other(): unknown {
    return null;
  }
}
type Pair = {
  first: Sink
  second: Other
}
export class Pool {
  #sinks: Array<Sink> = []
  #pairs: Pair[] = []
  drain(): void {
    this.#sinks.filter((s) => s !== null).forEach((s) => s.close());
    this.#pairs.forEach((p) => p.second.error(5));
  }
}
export function nested(s: Stream, fallback: Sink): void {
  s.each((sink) => {
    const inner = () => fallback.error(6);
    inner();
  });
}
export function bound(this: Sink, visit: (other: Other) => void): void {
  this.close();
  const later = () => this.error(7);
}
export function untyped(fn: any, sink: Sink): void {
  fn((x) => x.close());
  [sink].forEach((y) => y.close());
}
"""

FILES = {
    "lib/sink.ts": "export class Sink {\n  error(err: unknown): void {}\n  close(): void {}\n}\n"
    "export class Other {\n  error(err: unknown): void {}\n}\n",
    "lib/clock.ts": "export interface Clock {\n  now(): number;\n}\nexport interface Scheduler extends Clock {\n"
    "  run(task: () => void): void;\n}\nexport const systemClock: Clock = { now: () => 0 };\n",
    "lib/stream.ts": "import { Sink } from './sink';\n\nexport class Stream {\n"
    "  constructor(private producer?: (this: Stream, sink: Sink) => void) {}\n"
    "  each(visit: (sink: Sink, index: number) => void): void {}\n}\n"
    "export function operate(init: (source: Stream, sink: Sink) => void): Stream {\n  return new Stream();\n}\n",
    "app/use.ts": USE,
    # a barrel: `export * from` / `export { x as y } from` re-export what the modules define
    "lib/index.ts": "export * from './sink';\nexport { operate as run } from './stream';\n",
    "app/barrel.ts": "import { Sink, run } from '../lib/index';\n\nexport function go(s: Sink) {\n"
    "  s.close();\n  run((source, sink) => sink.error(8));\n}\n",
}


def _line(needle: str) -> int:
    return next(i for i, text in enumerate(USE.splitlines(), 1) if needle in text)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("ts") / "stream", FILES)


def _sites(idx: CodeIndex, symbol_id: str) -> dict[int | None, str | None]:
    return certain_sites(idx, symbol_id, "app/use.ts")


def test_callback_parameters_take_the_callee_signature(index: CodeIndex) -> None:
    close = _sites(index, "typescript lib/sink.ts Sink.close().")
    assert close[_line("new Stream((sink)")] == "callback-parameter"  # the constructor's signature
    assert close[_line("s.each(")] == "callback-parameter"  # a method's signature, through s: Stream
    error = _sites(index, "typescript lib/sink.ts Sink.error().")
    assert error[_line("sink.error(1)")] == "callback-parameter"  # an imported function's signature


def test_array_elements_defaults_closures_and_members(index: CodeIndex) -> None:
    close = _sites(index, "typescript lib/sink.ts Sink.close().")
    for needle in ("sinks.forEach", "sinks.pop()!", "const later", "    sink.close();"):
        assert close[_line(needle)] == "typed-receiver", needle
    error = _sites(index, "typescript lib/sink.ts Sink.error().")
    assert {_line("sinks[0]"), _line("as Sink")} <= set(error)
    assert _line("o.error(2)") not in error  # an element of Other[]
    assert _line("o.error(2)") in _sites(index, "typescript lib/sink.ts Other.error().")
    now = _sites(index, "typescript lib/clock.ts Clock.now().")
    # `clock ?? systemClock`, `scheduler || clock` (Scheduler extends Clock), `1 - scheduler!.now()`, a
    # parameter property
    assert set(now) == {_line(n) for n in ("c.now()", "d.now()", "scheduler!.now()", "this.clock.now()")}


def test_private_fields_object_types_and_nested_closures(index: CodeIndex) -> None:
    """`this.#sinks` (a private field, `Array<Sink>`) through `filter()`, the members of an object type
    (`type Pair = {...}`), and a closure inside a callback that reads the function's parameter."""
    close = _sites(index, "typescript lib/sink.ts Sink.close().")
    assert close[_line("this.#sinks")] == "typed-receiver"
    assert _line("p.second.error(5)") in _sites(index, "typescript lib/sink.ts Other.error().")
    assert _line("p.second.error(5)") not in _sites(index, "typescript lib/sink.ts Sink.error().")
    assert _line("fallback.error(6)") in _sites(index, "typescript lib/sink.ts Sink.error().")


def test_this_parameters_and_barrel_re_exports(index: CodeIndex) -> None:
    close = _sites(index, "typescript lib/sink.ts Sink.close().")
    assert close[_line("  this.close();")] == "typed-receiver"  # `this: Sink`
    assert _line("this.error(7)") in _sites(index, "typescript lib/sink.ts Sink.error().")  # an arrow keeps `this`
    hops = index.callers("typescript lib/sink.ts Sink.close().", 1, certain_only=True)
    assert ("app/barrel.ts", 4) in {(h.edge.path, h.edge.line) for h in hops}  # Sink through `export *`
    operate = index.callers("typescript lib/stream.ts operate().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line, h.edge.resolution) for h in operate if h.edge.path == "app/barrel.ts"} == {
        ("app/barrel.ts", 5, "import")  # `run` is `operate`, re-exported under another name
    }
    errors = index.callers("typescript lib/sink.ts Sink.error().", 1, certain_only=True)
    assert ("app/barrel.ts", 5) in {(h.edge.path, h.edge.line) for h in errors}


def test_what_nothing_states_stays_name_only(index: CodeIndex) -> None:
    close = _sites(index, "typescript lib/sink.ts Sink.close().")
    assert _line("fn((x)") not in close  # a callee the index does not know
    assert _line("[sink].forEach") not in close  # an array literal states no element type
    possible = {h.edge.line for h in index.callers("typescript lib/sink.ts Sink.close().", 1) if h.edge.path}
    assert _line("fn((x)") in possible
