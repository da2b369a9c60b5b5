"""The streamed-partials rule, established with the real client: the scripted server answers one message with
a text block then a tool_use block and streams usage as the API does (`output_tokens` 1 in
`message_start`, the final count in `message_delta`); every transcript line Claude Code writes for that
message is compared with what the server sent, and the ledger counts the message once with the final count."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, run_claude, tool_use, transcripts, turn
from agent_harness.fixtures import AgentWorkspace
from ctxops_token_capture.ingest import Sources, ingest
from ctxops_token_capture.totals import totals

pytestmark = pytest.mark.e2e


def test_each_line_of_a_multi_block_message_carries_the_final_usage(
    agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    (ws.project / "a.py").write_text("x = 1\n")
    scenario = Scenario(
        [
            turn(
                "Let me read it.",
                tool_use("Read", {"file_path": str(ws.project / "a.py")}),
                usage=Usage(50, 777, cache_read_input_tokens=1000),
            ),
            turn("x is 1.", usage=Usage(10, 333)),
        ]
    )
    with ScriptedModelServer(scenario, seed=3, log_path=ws.server_log) as server:
        run_claude(ws.project, ws.home, "read a.py", server.url, executable=claude_executable).check()
        sent = {r["message_id"]: r["usage"] for r in server.responses("main")}
    lines: dict[str, list[tuple[list[str], dict[str, int]]]] = defaultdict(list)
    for path in transcripts(ws.home):
        for raw in path.read_text().splitlines():
            entry = json.loads(raw)
            if entry.get("type") == "assistant" and entry["message"].get("id") in sent:
                message = entry["message"]
                lines[message["id"]].append(([c.get("type") for c in message["content"]], message["usage"]))
    multi = [m for m, seen in lines.items() if len(seen) > 1]
    assert multi, "the first message should be written as one line per content block"
    for message_id, seen in lines.items():
        for _blocks, usage in seen:
            # Claude Code 2.1.332 writes the final count on every line, not message_start's running count.
            assert usage["output_tokens"] == sent[message_id]["output_tokens"]
            assert usage["input_tokens"] == sent[message_id]["input_tokens"]
    root = tmp_path / "ledger"
    ingest(Sources(claude_dirs=[ws.home / ".claude"]), root)
    total = totals(["model"], root=root).total
    assert total["calls"] == len(sent) and total["output_tokens"] == sum(u["output_tokens"] for u in sent.values())
