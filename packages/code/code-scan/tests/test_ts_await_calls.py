"""TypeScript `await f<T>()`: tree-sitter reads `(await f)<T>()`, a call whose function is an await expression;
it is still a call of f (tsc), one reference row as for `await f()` (issue 24, session 24)."""

from __future__ import annotations

from ctxops_code_scan.extract import extract

SRC = b"""export async function load<T>(a: number): Promise<T> { return null as any; }
export class C { async get<T>(): Promise<T> { return null as any; } }
export async function run(c: C) {
  const a = await load<string>(1);
  const d = await c.get<number>();
  await load<string>(2);
  const e = load<string>(3);
}
"""


def test_an_awaited_call_with_type_arguments_has_its_row() -> None:
    out = extract(SRC, "x/x.ts", "typescript")
    calls = sorted((r.line, r.qualifier, r.symbol_name, r.receiver_type) for r in out.references if r.role == "call")
    assert calls == [(4, None, "load", None), (5, "c", "get", "C"), (6, None, "load", None), (7, None, "load", None)]
