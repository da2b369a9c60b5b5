"""TypeScript locals of a callback passed to a call at module level (issue 24, session 23): a test file's
`it('...', () => { const x = new K(); x.m() })` (@mswjs/interceptors' tests, 70 missed sites of held-out V). The
callback is a scope of its own (`_CallbackScopes`, function id ""), so its locals are bound in it, as they are in
a callback inside a function; a module-level `const` is not such a local (a module variable, read as before)."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _receivers(src: str) -> dict[tuple[int, str], str | None]:
    out = extract(src.encode(), "src/m.test.ts", "typescript")
    return {(r.line, r.symbol_name): r.receiver_type for r in out.references if r.role == "call" and r.qualifier}


MODULE_CALLBACKS = """import { K, J } from './k';
const top = new J();
it('a', () => {
  const x = new K(1);
  x.go();
  top.run();
});
describe('b', () => {
  const y = new K(1);
  y.go();
  it('c', async () => {
    const z = new J();
    z.run();
    y.stop();
    const { w } = y;
    w.use();
  });
});
it('d', () => { const x = make(); x.go(); });
top.run();
"""


def test_a_local_of_a_module_level_callback_is_typed_in_it() -> None:
    got = _receivers(MODULE_CALLBACKS)
    assert got[(5, "go")] == "K"
    assert got[(6, "run")] == got[(20, "run")]  # the module variable, read as before
    assert got[(10, "go")] == "K"
    assert (got[(13, "run")], got[(14, "stop")]) == ("J", "K")  # a nested callback reads the one around it
    assert got[(16, "use")] == "K#w"
    assert got[(19, "go")] != "K"  # another callback's `x`: its own value (`make()`), never the first's


def test_module_level_callback_locals_extract_in_linear_time() -> None:
    def module(n: int) -> str:
        return "import { K } from './k';\n" + "".join(
            f"it('t{i}', () => {{ const x{i % 7} = new K(); x{i % 7}.go(); }});\n" for i in range(n)
        )

    def best(src: str) -> float:
        assert _receivers(src)[(2, "go")] == "K"
        return best_cpu_s(lambda: _receivers(src))

    small, big = best(module(250)), best(module(4_000))
    assert big < 64 * max(small, 1e-4), (small, big)
