"""TypeScript answers tsc decides on held-out VI's misses (issue 24, session 24): the value of a Map's entry
(`for (const [k, v] of m)`, `m.entries()`, an array's or a Set's `entries()`), a field of an options parameter
typed by an intersection (`options: CommandOptions & Abortable`, mongodb's `options.timeoutContext?.csotEnabled()`),
and `(a ?? K).m()` with K a class: the class's static `m` beside the left side's."""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers, indexed

TS_MAPS = {
    "lib/kinds.ts": """export class TimeoutContext {
  csotEnabled(): boolean { return true; }
}
export class Other {
  csotEnabled(): boolean { return false; }
}
export interface Abortable { signal?: AbortSignal }
export interface BaseOptions { timeoutMS?: number }
export interface CommandOptions extends BaseOptions {
  timeoutContext?: TimeoutContext;
}
export class Resp {
  static make(b: number): Resp { return new Resp(); }
}
export interface RespCtor { make(b: number): Resp }
export class Child { destroy(): void {} }
export class Key { destroy(): void {} }
export interface Entry { child: Child; }
""",
    "lib/use.ts": """import { TimeoutContext, Abortable, CommandOptions } from './kinds';
import { Resp, RespCtor, Child, Key, Entry } from './kinds';
export class Conn {
  private children: Map<Key, Entry> = new Map();
  private kids: Set<Child> = new Set();
  private list: Child[] = [];
  run(options: CommandOptions & Abortable = {}, ctor?: RespCtor): void {
    if (options.timeoutContext?.csotEnabled()) {} // optfield
    const r = (ctor ?? Resp).make(1); // nullish
    const s = (ctor || Resp).make(2); // nullish
    for (const [key, entry] of this.children) {
      entry.child.destroy(); // entry
      key.destroy(); // key
    }
    for (const [k, e] of this.children.entries()) {
      e.child.destroy(); // entry
    }
    for (const [i, c] of this.list.entries()) {
      c.destroy(); // child
    }
    for (const [a, d] of this.kids.entries()) {
      d.destroy(); // child
    }
  }
  plain(options: CommandOptions): void {
    options.timeoutContext?.csotEnabled(); // optfield
  }
  partial(tracker: Partial<TimeoutContext>, listener?: Readonly<TimeoutContext>): void {
    tracker.csotEnabled?.(); // optfield
    listener?.csotEnabled?.(); // optfield
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


def test_a_map_entrys_value_is_the_maps_value_type(tmp_path: Path) -> None:
    """grpc-js' `for (const [endpoint, entry] of this.children) entry.child.destroy()` with `children:
    Map<string, ChildEntry>`, and `m.entries()`; an array's and a Set's `entries()` give [index, element] /
    [element, element]. The key (not tracked) gets no answer rather than the value's."""
    idx = indexed(tmp_path / "maps", TS_MAPS)
    try:
        destroy = certain_callers(idx, "typescript lib/kinds.ts Child.destroy().")
        assert _lines(TS_MAPS, "entry") | _lines(TS_MAPS, "child") <= destroy
        assert not (_lines(TS_MAPS, "key") & destroy)
    finally:
        idx.close()


def test_an_intersection_typed_options_parameters_field(tmp_path: Path) -> None:
    """mongodb's `options: CommandOptions & Abortable = {}` then `options.timeoutContext?.csotEnabled()`: the
    member is the intersection member's that declares it; no other class's method of the name. grpc-js'
    `tracker: Partial<CallEventTracker>` then `tracker.addMessageSent?.()`: CallEventTracker's method."""
    idx = indexed(tmp_path / "opts", TS_MAPS)
    try:
        enabled = certain_callers(idx, "typescript lib/kinds.ts TimeoutContext.csotEnabled().")
        assert _lines(TS_MAPS, "optfield") <= enabled
        assert not (_lines(TS_MAPS, "optfield") & certain_callers(idx, "typescript lib/kinds.ts Other.csotEnabled()."))
    finally:
        idx.close()


def test_a_nullish_fallback_to_a_class_calls_its_static_method(tmp_path: Path) -> None:
    """mongodb's `(responseType ?? MongoDBResponse).make(bson)`: tsc's symbol is the union property of the
    constructor interface's `make` and the class's `static make`; each is a certain callee."""
    idx = indexed(tmp_path / "nullish", TS_MAPS)
    try:
        nullish = _lines(TS_MAPS, "nullish")
        assert nullish <= certain_callers(idx, "typescript lib/kinds.ts Resp.make().")
        assert nullish <= certain_callers(idx, "typescript lib/kinds.ts RespCtor.make().")
    finally:
        idx.close()


TS_RECORDS = {
    "stats.ts": """export class FieldStat { ensure(): void {} }
export class TypeStat {
  perField: { [k: string]: FieldStat } = Object.create(null);
  byName: Record<string, FieldStat> = {};
  ensure(): void {
    for (const f of Object.values(this.perField)) {
      f.ensure(); // record
    }
    for (const [name, g] of Object.entries(this.byName)) {
      g.ensure(); // record
    }
    for (const pair of this.byName) {
      pair.ensure(); // pair
    }
  }
  other(bag: Bag): void {
    for (const f of Object.values(bag)) {
      f.ensure(); // instance
    }
  }
}
export class Bag { values(): FieldStat[] { return []; } }
""",
}


def test_a_records_values_are_its_value_type(tmp_path: Path) -> None:
    """@apollo/server's `perFieldStat: { [k: string]: OurFieldStat }` then `for (const s of
    Object.values(this.perFieldStat)) s.ensureCountsAreIntegers()`; `Record<string, K>` the same;
    `Object.values(x)` of a class's instance is no call of its `values()`."""
    idx = indexed(tmp_path / "records", TS_RECORDS)
    try:
        ensure = certain_callers(idx, "typescript stats.ts FieldStat.ensure().")
        assert _lines(TS_RECORDS, "record") <= ensure
        assert not (_lines(TS_RECORDS, "instance") & ensure)  # (an object's own values, not its `values()`)
        assert not (_lines(TS_RECORDS, "pair") & ensure)  # (iterating a record is an error: no element of it)
    finally:
        idx.close()
