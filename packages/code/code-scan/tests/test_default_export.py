"""A JavaScript/TypeScript module's default export as the `*default` row a default import binds to (issue 24,
session 22): a declared class or function, `export default NAME;`, an anonymous default (an empty name), none.
The module's top-level statements are read once, so a long module extracts in linear time."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _rows(src: str, lang: str = "typescript", path: str = "m.ts") -> list[tuple[str | None, str | None, str]]:
    return [t for t in extract(src.encode(), path, lang).types if t[1] == "*default"]


def test_the_named_default_export_is_the_row() -> None:
    assert _rows("export default class Ajv { a(): void {} }\n") == [(None, "*default", "Ajv")]
    assert _rows("export default abstract class Q {}\n") == [(None, "*default", "Q")]
    assert _rows("class Hash {}\nexport default Hash;\n") == [(None, "*default", "Hash")]
    assert _rows("export default function sha256() {}\n", "javascript", "m.js") == [(None, "*default", "sha256")]


def test_an_anonymous_default_has_no_name_and_a_module_without_one_no_row() -> None:
    assert _rows("export default { a: 1 };\n") == [(None, "*default", "")]
    assert _rows("export default () => 1;\n") == [(None, "*default", "")]
    assert _rows("export class Plain {}\nconst defaultValue = 1;\n") == []
    assert _rows("function f() { const x = { default: 1 }; }\n") == []


def test_a_long_module_extracts_in_linear_time() -> None:
    def module(n: int) -> str:
        return "".join(f"export const n{i} = {i};\n" for i in range(n)) + "export default class Last {}\n"

    def best(src: str) -> float:
        assert _rows(src) == [(None, "*default", "Last")]
        return best_cpu_s(lambda: _rows(src))

    small, big = best(module(250)), best(module(4_000))
    assert big < 64 * max(small, 1e-4), (small, big)
