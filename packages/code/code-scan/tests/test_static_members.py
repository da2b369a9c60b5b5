"""TypeScript static and instance methods of one name (`static_members`): the `:static` rows."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

SRC = """export class R {
  static clone(r: R): R { return r; }
  static make(): R { return new R(); }
  clone(): R { return this; }
  run(): void {}
}
export class Plain {
  static go(): void {}
  run(): void {}
}
export interface I { clone(): R; }
export const o = { clone() { return 1; } };
"""


def _static(src: str) -> set[str]:
    out = extract(src.encode(), "src/r.ts", "typescript")
    return {owner.rsplit(" ", 1)[-1] for owner, name, _ in out.types if name == ":static" and owner}


def test_statics_of_a_class_with_a_namesake_pair_are_marked() -> None:
    # every static of R (a `this.m()` in any of them is on the class object); none of Plain (no pair)
    assert _static(SRC) == {"R.clone().", "R.make()."}


def test_static_rows_extract_in_linear_time() -> None:
    def module(n: int) -> str:
        body = "".join(f"  static m{i}(): void {{}}\n  m{i}(): void {{}}\n" for i in range(n))
        return f"export class K {{\n{body}}}\n"

    def best(src: str) -> float:
        assert "K.m0()." in _static(src)
        return best_cpu_s(lambda: _static(src))

    small, big = best(module(250)), best(module(4_000))
    assert big < 64 * max(small, 1e-4), (small, big)
