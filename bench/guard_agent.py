"""Context guard with a real Claude Code: one scripted, realistic session on the example, run twice
(without and with the guard), measured from the scripted model server's request log.

Usage: uv run python bench/guard_agent.py [--session api|web] [--keep DIR]

Both sessions start from examples/order-service as a git repository (examples/make_history.py) with
bugs left uncommitted, as if a previous change broke them. The model's turns are scripted, so both runs
send the same tool calls; only what the guard changes differs.
- ``api`` (Python): run the failing tests, read the test file, the state machine and the payment
  callbacks, grep, ``git log -p``, read pricing, ``git diff``, re-read, fix one bug, ``pytest -v``,
  re-read two unchanged files, fix the other, install the web front end's npm dependencies, the tests
  green, ``git diff --stat && git log --stat -6``.
- ``web`` (TypeScript): a half-finished refactor of ``formatMoney`` (tsc errors at its call sites) and
  two behaviour bugs (node:test failures): ``npm install``, ``npm test`` (tsc fails), read money.ts and
  a caller, grep the callers, ``git diff``, ``git log -p`` of money.ts, fix the signature, ``npm test``
  (two tests fail), read polling.ts, cart.ts and the cart test, fix both, ``npm test`` green,
  ``tsc --noEmit && git diff --stat``.

Figures (counted with the offline cl100k tokenizer, bpe-openai):
- tool-output tokens: every tool_result the model received, as the final request carries them
  (plus any additionalContext the guard attached);
- input tokens over the session: each main-conversation request's system, tools and messages,
  summed over all requests (what a provider would bill as input, cached or not);
- failing ids: the runner's own answer on a copy of the project (api: pytest junit XML; web: tsc
  ``--pretty false`` locations and the node:test junit reporter's failing tests) must each appear, as a
  failure, in what the guarded run's model received.
Targets (issue 13): tool-output tokens >= 50% lower, input tokens >= 25% lower, every failing id kept.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from agent_harness import Scenario, ScriptedModelServer, run_claude, tool_use, turn, write_hooks  # noqa: E402
from agent_harness.claude_code import ensure_claude_code  # noqa: E402

BUGS = [  # (file, correct text, broken text): left uncommitted, as if a previous change broke them
    (
        "api/orders/state_machine.py",
        "return to_state in ALLOWED_TRANSITIONS.get(from_state, frozenset())",
        "return to_state in ALLOWED_TRANSITIONS.get(to_state, frozenset())",
    ),
    (
        "api/orders/pricing.py",
        "return (2 * numerator + denominator) // (2 * denominator)",
        "return numerator // denominator",
    ),
]
PYTEST = "python -m pytest api/tests -q -p no:cacheprovider"
PYTEST_V = "python -m pytest api/tests -v -p no:cacheprovider"
GUARD_EVENTS = ["PreToolUse", "PostToolUse", "SessionStart", "PreCompact"]

WEB_BUGS = [  # a half-finished signature change (tsc errors at the call sites) and two behaviour bugs
    (
        "web/src/utils/money.ts",
        'export function formatMoney(cents: number, currency: string, locale = "en-IE"): string {\n'
        '  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);',
        'export function formatMoney(amount: { cents: number; currency: string }, locale = "en-IE"): string {\n'
        "  const { cents, currency } = amount;\n"
        '  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);',
    ),
    (
        "web/src/orders/polling.ts",
        "return Math.min(Math.round(current * 1.5), max);",
        "return Math.max(Math.round(current * 1.5), max);",
    ),
    (
        "web/src/checkout/cart.ts",
        "    if (quantity <= 0) {\n      this.lines.delete(sku);",
        "    if (quantity < 0) {\n      this.lines.delete(sku);",
    ),
]
NPM_TEST = "(cd web && npm test)"


def make_project(dest: Path, bugs: list[tuple[str, str, str]]) -> Path:
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_history.py"), str(dest)], check=True, capture_output=True
    )
    for rel, good, bad in bugs:
        path = dest / rel
        text = path.read_text(encoding="utf-8")
        assert good in text, (rel, good)
        path.write_text(text.replace(good, bad, 1), encoding="utf-8")
    return dest


def web_scenario(project: Path) -> Scenario:
    money, summary = str(project / WEB_BUGS[0][0]), str(project / "web/src/components/OrderSummary.tsx")
    polling, cart = str(project / WEB_BUGS[1][0]), str(project / WEB_BUGS[2][0])
    cart_test = str(project / "web/src/checkout/cart.test.ts")
    return Scenario(
        [
            turn(
                "Installing the front end's dependencies first.",
                tool_use("Bash", {"command": "(cd web && npm install --no-audit --no-fund)", "description": "deps"}),
            ),
            turn(tool_use("Bash", {"command": NPM_TEST, "description": "build and test the web front end"})),
            turn(tool_use("Read", {"file_path": money})),
            turn(tool_use("Read", {"file_path": summary})),
            turn(tool_use("Bash", {"command": "grep -rn 'formatMoney' web/src", "description": "callers"})),
            turn(tool_use("Bash", {"command": "git diff", "description": "uncommitted changes"})),
            turn(tool_use("Bash", {"command": "git log -p -- web/src/utils/money.ts", "description": "history"})),
            turn(tool_use("Edit", {"file_path": money, "old_string": WEB_BUGS[0][2], "new_string": WEB_BUGS[0][1]})),
            turn(tool_use("Bash", {"command": NPM_TEST, "description": "which tests fail now"})),
            turn(tool_use("Read", {"file_path": polling})),
            turn(tool_use("Read", {"file_path": cart})),
            turn(tool_use("Read", {"file_path": cart_test})),
            turn(tool_use("Edit", {"file_path": polling, "old_string": WEB_BUGS[1][2], "new_string": WEB_BUGS[1][1]})),
            turn(tool_use("Edit", {"file_path": cart, "old_string": WEB_BUGS[2][2], "new_string": WEB_BUGS[2][1]})),
            turn(tool_use("Bash", {"command": NPM_TEST, "description": "tests green"})),
            turn(
                tool_use(
                    "Bash",
                    {
                        "command": "(cd web && npx tsc --noEmit -p tsconfig.json) && git diff --stat",
                        "description": "check",
                    },
                )
            ),
            turn("Fixed: formatMoney's callers and signature agree again, backoff is capped, zero removes a line."),
        ]
    )


def web_failing(project: Path) -> list[str]:
    """The runners' own answers on a copy: tsc locations (``--pretty false``) of the broken tree, then the
    node:test junit reporter's failing tests once the signature is fixed."""
    import xml.etree.ElementTree as ET

    expected: list[str] = []
    scratch = Path(tempfile.mkdtemp(prefix="guard-web-"))
    try:
        copy = scratch / "p"
        shutil.copytree(project, copy)
        web = copy / "web"
        subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=web, capture_output=True, check=True)
        tsc = subprocess.run(
            ["npx", "tsc", "-p", "tsconfig.json", "--pretty", "false"],
            cwd=web,
            capture_output=True,
            text=True,
            check=False,
        )
        expected += [f"tsc {m}" for m in re.findall(r"^(\S+\(\d+,\d+\)): error TS\d+", tsc.stdout, re.M)]
        path = copy / WEB_BUGS[0][0]
        path.write_text(path.read_text(encoding="utf-8").replace(WEB_BUGS[0][2], WEB_BUGS[0][1], 1), encoding="utf-8")
        subprocess.run(["npx", "tsc", "-p", "tsconfig.json"], cwd=web, capture_output=True, check=True)
        junit = subprocess.run(
            ["node", "--test", "--test-reporter=junit", "dist/"], cwd=web, capture_output=True, text=True, check=False
        )
        for case in ET.fromstring(junit.stdout).iter("testcase"):
            if case.find("failure") is not None:
                expected.append(f"test {case.attrib['name']}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return sorted(expected)


def scenario(project: Path) -> Scenario:
    sm, pricing = str(project / BUGS[0][0]), str(project / BUGS[1][0])
    tests, callbacks = str(project / "api/tests/test_state_machine.py"), str(project / "api/payments/callbacks.py")
    return Scenario(
        [
            turn("Running the tests first.", tool_use("Bash", {"command": PYTEST, "description": "run tests"})),
            turn(tool_use("Read", {"file_path": tests})),
            turn(tool_use("Read", {"file_path": sm})),
            turn(tool_use("Read", {"file_path": callbacks})),
            turn(tool_use("Bash", {"command": "grep -rn 'state\\|transition' api", "description": "find uses"})),
            turn(tool_use("Bash", {"command": "git log -p -3 -- api/orders", "description": "recent changes"})),
            turn(tool_use("Read", {"file_path": pricing})),
            turn(tool_use("Bash", {"command": "git diff", "description": "uncommitted changes"})),
            turn(tool_use("Read", {"file_path": sm})),  # back to the state machine, unchanged
            turn(tool_use("Edit", {"file_path": sm, "old_string": BUGS[0][2], "new_string": BUGS[0][1]})),
            turn(tool_use("Bash", {"command": PYTEST_V, "description": "which tests still fail"})),
            turn(tool_use("Read", {"file_path": tests})),  # unchanged since it was read
            turn(tool_use("Read", {"file_path": pricing})),  # unchanged since it was read
            turn(tool_use("Edit", {"file_path": pricing, "old_string": BUGS[1][2], "new_string": BUGS[1][1]})),
            turn(tool_use("Bash", {"command": "(cd web && npm install --no-audit --no-fund)", "description": "deps"})),
            turn(tool_use("Bash", {"command": PYTEST, "description": "tests green"})),
            turn(tool_use("Bash", {"command": "git diff --stat && git log --stat -6", "description": "summary"})),
            turn("Both bugs are fixed: the state machine looked up the target state, and rounding dropped half cents."),
        ]
    )


def failing_ids(project: Path) -> list[str]:
    """The runner's own answer: failing test ids (pytest junit XML) before and after the first fix."""
    import xml.etree.ElementTree as ET

    ids: set[str] = set()
    scratch = Path(tempfile.mkdtemp(prefix="guard-junit-"))
    try:
        copy = scratch / "p"
        shutil.copytree(project, copy)
        for fix in (None, BUGS[0]):
            if fix is not None:
                path = copy / fix[0]
                path.write_text(path.read_text(encoding="utf-8").replace(fix[2], fix[1], 1), encoding="utf-8")
            junit = scratch / "junit.xml"
            subprocess.run([*PYTEST.split(), f"--junitxml={junit}"], cwd=copy, capture_output=True, check=False)
            for case in ET.parse(junit).getroot().iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    ids.add(case.attrib["classname"].replace(".", "/") + ".py::" + case.attrib["name"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return sorted(ids)


def tokenizer():
    import bpe_openai

    return bpe_openai.get_encoding("cl100k_base")


def measure(log: Path, enc) -> dict[str, object]:
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    main = [
        r["body"]
        for r in requests
        if r["kind"] == "request" and isinstance(r.get("body"), dict) and r["body"].get("tools")
    ]
    count = lambda text: len(enc.encode_ordinary(text))  # noqa: E731
    total_input = sum(count(json.dumps({k: body.get(k) for k in ("system", "tools", "messages")})) for body in main)
    last = main[-1]["messages"]
    results: list[str] = []
    for message in last[1:]:
        if message["role"] != "user" or not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                content = block.get("content")
                results.append(content if isinstance(content, str) else json.dumps(content))
            elif block.get("type") == "text":
                results.append(block["text"])
    seen = "\n".join(results)
    return {"requests": len(main), "input_tokens": total_input, "tool_output_tokens": count(seen), "seen": seen}


SESSIONS = {  # name: (bugs, scenario, the runner's failing ids, the user's prompt)
    "api": (BUGS, scenario, failing_ids, "The tests fail; find and fix the bugs."),
    "web": (WEB_BUGS, web_scenario, web_failing, "The web front end's npm test fails; find and fix the bugs."),
}


def run(guard: bool, work: Path, claude: Path, session: str = "api") -> dict[str, object]:
    bugs, make_scenario, failing, prompt = SESSIONS[session]
    base = work / ("with-guard" if guard else "without-guard")
    project, home = make_project(base / "project", bugs), base / "home"
    expected = failing(project)
    home.mkdir(parents=True)
    if guard:
        hook = f"{sys.executable} -m ctxops_memory_inject.guard hook claude-code"
        write_hooks(project, hook, events=GUARD_EVENTS)
    log = base / "server.jsonl"
    with ScriptedModelServer(make_scenario(project), seed=13, log_path=log) as server:
        done = run_claude(project, home, prompt, server.url, executable=claude, timeout=600)
        done.check()
    result = measure(log, tokenizer())
    result["failing"] = expected
    return result


def reported_failing(test_id: str, seen: str) -> bool:
    """The id appears as a failure, not merely listed as passing: ``FAILED id`` / ``id FAILED`` (pytest),
    ``location: error TS…`` (tsc), ``not ok N - name`` / ``✖ name`` (node:test)."""
    kind, _, rest = test_id.partition(" ")
    name = re.escape(rest)
    if kind == "tsc":
        return re.search(rf"{name}: error TS\d+", seen) is not None
    if kind == "test":
        return re.search(rf"not ok \d+ - {name}$|✖ {name}\b", seen, re.M) is not None
    name = re.escape(test_id)
    return re.search(rf"(?:FAILED|ERROR) {name}\b|{name} (?:FAILED|ERROR)\b", seen) is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--session", choices=sorted(SESSIONS), default="api", help="which scripted session")
    parser.add_argument("--keep", type=Path, help="keep the runs' projects and logs in DIR")
    args = parser.parse_args()
    claude = ensure_claude_code()
    work = args.keep or Path(tempfile.mkdtemp(prefix="guard-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        without = run(False, work, claude, args.session)
        with_ = run(True, work, claude, args.session)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    failing = list(with_["failing"])  # type: ignore[call-overload]
    missing = [test_id for test_id in failing if not reported_failing(test_id, str(with_["seen"]))]
    missing_without = [test_id for test_id in failing if not reported_failing(test_id, str(without["seen"]))]
    tool_cut = 1 - int(with_["tool_output_tokens"]) / int(without["tool_output_tokens"])  # type: ignore[call-overload]
    input_cut = 1 - int(with_["input_tokens"]) / int(without["input_tokens"])  # type: ignore[call-overload]
    print(f"session {args.session}; claude code {claude.parent.parent.parent.name}, ", end="")
    print(f"{without['requests']} / {with_['requests']} main requests")
    print(f"{'':28}{'without':>10}{'with guard':>12}{'change':>9}")
    for key, label, cut in (
        ("tool_output_tokens", "tool-output tokens", tool_cut),
        ("input_tokens", "input tokens (session)", input_cut),
    ):
        print(f"{label:28}{without[key]:>10,}{with_[key]:>12,}{-cut:>9.1%}")
    print(
        f"failing ids (the runners' own): {len(failing)}; seen by the model: {len(failing) - len(missing_without)} "
        f"without the guard, {len(failing) - len(missing)} with it"
    )
    ok = tool_cut >= 0.5 and input_cut >= 0.25 and not missing and len(failing) > 0
    print("targets (>= 50% tool output, >= 25% input, every failing id):", "met" if ok else "NOT met")
    if missing:
        print("missing:", *missing, sep="\n  ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
