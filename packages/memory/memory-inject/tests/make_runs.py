"""Regenerate tests/runs/: real failing runs of pytest, go test, tsc, eslint, ruff, mypy, vitest and jest on
a broken copy of examples/order-service, each with the runner's machine-readable output beside it.

    PATH=$PATH:/usr/lib/go/bin uv run python packages/memory/memory-inject/tests/make_runs.py TOOLS_DIR [jest]

TOOLS_DIR holds node_modules with typescript@5, eslint, typescript-eslint, vitest, jest, ts-jest and
@types/node (``npm install --prefix TOOLS_DIR typescript@5 eslint typescript-eslint vitest jest@30 ts-jest
@jest/globals @types/node@20``); a trailing ``jest`` re-records only the jest run. Each run
writes ``<name>.out`` (what the agent's Bash tool would show: stdout then stderr), ``<name>.cmd`` and
the machine-readable file (``.junit.xml``, ``.gotest.jsonl``, ``.tsc.txt``, ``.eslint.json``,
``.ruff.json``, ``.mypy.jsonl``, ``.vitest.json``, ``.jest.json``). Not a test: the suite reads what it recorded.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent / "runs"
EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "order-service"

# (file, old, new): bugs an agent might be fixing
BREAKS = [
    (
        "api/orders/pricing.py",
        "return (2 * numerator + denominator) // (2 * denominator)",
        "return numerator // denominator",
    ),
    (
        "worker/internal/orders/order.go",
        "func CanTransition(from, to State) bool {",
        "func CanTransition(from, to State) bool {\n\treturn from == to\n",
    ),
    (
        "api/orders/state_machine.py",
        "return to_state in ALLOWED_TRANSITIONS.get(from_state, frozenset())",
        "return to_state in ALLOWED_TRANSITIONS.get(to_state, frozenset())",
    ),
    (
        "web/src/utils/money.ts",
        "export function formatMoney(cents: number",
        "export const broken: number = 'x';\nexport function formatMoney(cents: string",
    ),
    (
        "web/src/orders/status.ts",
        "export function isTerminal(state: OrderState): boolean {",
        "export function isTerminal(state: OrderState): boolean {\n  const unused: number = state;",
    ),
]


def run(name: str, cwd: Path, command: str, machine: tuple[str, str] | None = None) -> None:
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, check=False)
    (HERE / f"{name}.cmd").write_text(command + "\n", encoding="utf-8")
    (HERE / f"{name}.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    if machine is not None:
        suffix, machine_command = machine
        m = subprocess.run(machine_command, shell=True, cwd=cwd, capture_output=True, text=True, check=False)
        (HERE / f"{name}{suffix}").write_text(m.stdout, encoding="utf-8")
    print(f"{name}: exit {done.returncode}, {len(done.stdout + done.stderr)} chars")


# The web tests use node:test; vitest runs the same files once they import `test` from vitest.
VITEST_BREAKS = [
    (
        "src/utils/money.ts",
        "return Math.floor((2 * subtotalCents * taxRateBp + BASIS_POINTS) / (2 * BASIS_POINTS));",
        "return Math.ceil((subtotalCents * taxRateBp) / BASIS_POINTS) + 1;",
    ),
    (
        "src/orders/polling.ts",
        "return Math.min(Math.round(current * 1.5), max);",
        "return Math.max(Math.round(current * 2), max);",
    ),
]


def vitest_runs(work: Path, bin_: Path) -> None:
    web = work / "web-vitest"
    shutil.copytree(EXAMPLE / "web", web)
    for rel, old, new in VITEST_BREAKS:
        path = web / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    for test in web.rglob("*.test.ts*"):
        test.write_text(test.read_text(encoding="utf-8").replace('from "node:test"', 'from "vitest"'), encoding="utf-8")
    run("vitest", web, f"{bin_}/vitest run src", (".vitest.json", f"{bin_}/vitest run src --reporter=json"))


def jest_runs(work: Path, bin_: Path) -> None:
    """The same broken web tests under jest 30 with ts-jest (the globals imported from @jest/globals)."""
    web = work / "web-jest"
    shutil.rmtree(web, ignore_errors=True)
    shutil.copytree(EXAMPLE / "web", web)
    for rel, old, new in VITEST_BREAKS:
        path = web / rel
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    for test in web.rglob("*.test.ts*"):
        text = test.read_text(encoding="utf-8").replace('from "node:test"', 'from "@jest/globals"')
        test.write_text(text, encoding="utf-8")
    (web / "jest.config.js").write_text(
        'module.exports = { preset: "ts-jest", testEnvironment: "node", testMatch: ["**/src/**/*.test.ts?(x)"] };\n',
        encoding="utf-8",
    )
    run("jest", web, f"{bin_}/jest --ci --verbose", (".jest.json", f"{bin_}/jest --ci --json 2>/dev/null"))


def main() -> int:
    tools = Path(sys.argv[1]).resolve()
    work = tools / "corpus"
    if sys.argv[2:] == ["jest"]:  # one runner, without rebuilding the rest of the corpus
        HERE.mkdir(exist_ok=True)
        work.mkdir(exist_ok=True)
        jest_runs(work, tools / "node_modules" / ".bin")
        return 0
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(EXAMPLE, work)
    for rel, old, new in BREAKS:
        path = work / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    HERE.mkdir(exist_ok=True)
    py = sys.executable
    bin_ = tools / "node_modules" / ".bin"
    run(
        "pytest-q",
        work,
        f"{py} -m pytest api/tests -q -p no:cacheprovider",
        (
            ".junit.xml",
            f"{py} -m pytest api/tests -q -p no:cacheprovider --junitxml=/dev/stdout >/dev/null; cat /dev/null",
        ),
    )
    run("pytest-v", work, f"{py} -m pytest api/tests -v -p no:cacheprovider --junitxml=junit.xml")
    shutil.move(work / "junit.xml", HERE / "pytest-v.junit.xml")
    (HERE / "pytest-q.junit.xml").write_text(
        (HERE / "pytest-v.junit.xml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    run("gotest", work / "worker", "go test ./...", (".gotest.jsonl", "go test -json ./..."))
    run("gotest-v", work / "worker", "go test -v ./...")
    run(
        "tsc",
        work / "web",
        f"{bin_}/tsc -p tsconfig.json --noEmit",
        (".tsc.txt", f"{bin_}/tsc -p tsconfig.json --noEmit --pretty false"),
    )
    run("tsc-pretty", work / "web", f"{bin_}/tsc -p tsconfig.json --noEmit --pretty true")
    (work / "web" / "eslint.config.mjs").write_text(
        "import tseslint from 'typescript-eslint';\n"
        "export default tseslint.config(...tseslint.configs.strict, ...tseslint.configs.stylistic,"
        " { rules: { 'no-magic-numbers': 'warn', 'prefer-const': 'error', 'eqeqeq': 'error' } });\n",
        encoding="utf-8",
    )
    run(
        "eslint",
        work / "web",
        f"NODE_PATH={tools}/node_modules {bin_}/eslint src",
        (".eslint.json", f"{bin_}/eslint src -f json"),
    )
    run(
        "ruff",
        work,
        f"{py} -m ruff check --select E,F,W,B,UP,ANN,PL,N --no-cache api",
        (".ruff.json", f"{py} -m ruff check --select E,F,W,B,UP,ANN,PL,N --no-cache --output-format json api"),
    )
    run("ruff-concise", work, f"{py} -m ruff check --select E,F,W,B,UP,ANN,PL,N --no-cache --output-format concise api")
    vitest_runs(work, bin_)
    jest_runs(work, bin_)
    run(
        "mypy",
        work,
        f"{py} -m mypy --strict --no-incremental api",
        (".mypy.jsonl", f"{py} -m mypy --strict --no-incremental -O json api"),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
