"""Costs against Claude Code's own figures: `claude -p --output-format json` reports `total_cost_usd` and, per
model, `modelUsage[model].costUSD`. The ledger's exact rule (1-hour cache writes at their rate, a prompt above
200k tokens wholly at the long-context rate) must give the same dollars for the same calls, including models
ccusage@17 prices at $0."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, run_claude, tool_use, turn
from agent_harness.fixtures import AgentWorkspace
from ctxops_ledger_report.reports import Filters, grouped
from ctxops_ledger_report.store import open_view
from ctxops_token_capture.ingest import Sources, ingest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-sonnet-4-5", "claude-haiku-4-5"])
def test_session_cost_equals_claude_codes_own(
    model: str, agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    (ws.project / "a.py").write_text("def f():\n    return 1\n")
    scenario = Scenario(
        [
            turn(
                "Reading.",
                tool_use("Read", {"file_path": str(ws.project / "a.py")}),
                usage=Usage(320, 180, cache_creation_5m=4_000, cache_creation_1h=2_500, cache_read_input_tokens=9_000),
            ),
            # A long prompt: 1,000 + 3,000 + 230,000 > 200k tokens.
            turn(
                tool_use("Bash", {"command": "ls", "description": "list"}),
                usage=Usage(1_000, 700, cache_creation_5m=3_000, cache_read_input_tokens=230_000),
            ),
            turn("f returns 1.", usage=Usage(40, 2_000, cache_read_input_tokens=12_000)),
        ]
    )
    with ScriptedModelServer(scenario, seed=5, log_path=ws.server_log) as server:
        run = run_claude(
            ws.project,
            ws.home,
            "what does f return?",
            server.url,
            extra_args=["--model", model],
            executable=claude_executable,
        ).check()
    output = run.output
    assert isinstance(output, dict)
    model_usage = output.get("modelUsage") or {}
    assert model in model_usage, model_usage
    root = tmp_path / "ledger"
    ingest(Sources(claude_dirs=[ws.home / ".claude"]), root)
    with open_view(root) as view:
        rows = grouped(view, "model", Filters(session=run.session_id)).rows
    ours = {r["model"]: r["cost_usd"] for r in rows}
    assert ours[model] == pytest.approx(model_usage[model]["costUSD"], abs=1e-6)
    # Every model Claude Code used in the session is in the transcript and costs the same in total.
    assert sum(ours.values()) == pytest.approx(output["total_cost_usd"], abs=1e-6), (ours, model_usage)
