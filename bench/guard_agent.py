"""Context guard with a real Claude Code: one scripted, realistic session on the example, run twice
(without and with the guard), measured from the scripted model server's request log.

Usage: uv run python bench/guard_agent.py [--keep DIR]

The session (examples/order-service as a git repository from examples/make_history.py, with two bugs
left uncommitted): run the failing tests, grep for the culprit, read two files, look at the diff, fix
one bug, re-run the tests, re-read both files (one changed, one unchanged), fix the other, install the
web front end's npm dependencies, run the tests green, diff and log. The model's turns are scripted,
so both runs send the same tool calls; only what the guard changes differs.

Figures (counted with the offline cl100k tokenizer, bpe-openai):
- tool-output tokens: every tool_result the model received, as the final request carries them
  (plus any additionalContext the guard attached);
- input tokens over the session: each main-conversation request's system, tools and messages,
  summed over all requests (what a provider would bill as input, cached or not);
- failing test ids: every `FAILED path::test` the unguarded run showed must appear in the guarded
  run's tool results.
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


def make_project(dest: Path) -> Path:
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_history.py"), str(dest)], check=True, capture_output=True
    )
    for rel, good, bad in BUGS:
        path = dest / rel
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(good, bad, 1), encoding="utf-8")
    return dest


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


def run(guard: bool, work: Path, claude: Path) -> dict[str, object]:
    base = work / ("with-guard" if guard else "without-guard")
    project, home = make_project(base / "project"), base / "home"
    expected = failing_ids(project)
    home.mkdir(parents=True)
    if guard:
        hook = f"{sys.executable} -m ctxops_memory_inject.guard hook claude-code"
        write_hooks(project, hook, events=GUARD_EVENTS)
    log = base / "server.jsonl"
    with ScriptedModelServer(scenario(project), seed=13, log_path=log) as server:
        done = run_claude(
            project, home, "The tests fail; find and fix the bugs.", server.url, executable=claude, timeout=600
        )
        done.check()
    result = measure(log, tokenizer())
    result["failing"] = expected
    return result


def reported_failing(test_id: str, seen: str) -> bool:
    """The id appears as failing (``FAILED id`` or ``id FAILED``), not merely listed as passing."""
    name = re.escape(test_id)
    return re.search(rf"(?:FAILED|ERROR) {name}\b|{name} (?:FAILED|ERROR)\b", seen) is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the runs' projects and logs in DIR")
    args = parser.parse_args()
    claude = ensure_claude_code()
    work = args.keep or Path(tempfile.mkdtemp(prefix="guard-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        without = run(False, work, claude)
        with_ = run(True, work, claude)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    failing = list(with_["failing"])  # type: ignore[call-overload]
    missing = [test_id for test_id in failing if not reported_failing(test_id, str(with_["seen"]))]
    missing_without = [test_id for test_id in failing if not reported_failing(test_id, str(without["seen"]))]
    tool_cut = 1 - int(with_["tool_output_tokens"]) / int(without["tool_output_tokens"])  # type: ignore[call-overload]
    input_cut = 1 - int(with_["input_tokens"]) / int(without["input_tokens"])  # type: ignore[call-overload]
    print(f"claude code {claude.parent.parent.parent.name}, {without['requests']} / {with_['requests']} main requests")
    print(f"{'':28}{'without':>10}{'with guard':>12}{'change':>9}")
    for key, label, cut in (
        ("tool_output_tokens", "tool-output tokens", tool_cut),
        ("input_tokens", "input tokens (session)", input_cut),
    ):
        print(f"{label:28}{without[key]:>10,}{with_[key]:>12,}{-cut:>9.1%}")
    print(
        f"failing test ids (pytest junit): {len(failing)}; seen by the model: {len(failing) - len(missing_without)} "
        f"without the guard, {len(failing) - len(missing)} with it"
    )
    ok = tool_cut >= 0.5 and input_cut >= 0.25 and not missing and len(failing) > 0
    print("targets (>= 50% tool output, >= 25% input, every failing id):", "met" if ok else "NOT met")
    if missing:
        print("missing:", *missing, sep="\n  ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
