"""Costs against Claude Code's own figures: `claude -p --output-format json` reports `total_cost_usd` and, per
model, `modelUsage[model].costUSD`. The ledger's exact rule (1-hour cache writes at their rate, a prompt above
200k tokens wholly at the long-context rate) must give the same dollars for the same calls, including models
ccusage@17 prices at $0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, run_claude, tool_use, turn
from agent_harness.claude_code import ensure_claude_code
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


def _web_search_scenario() -> Scenario:
    # Two web searches per call on opus-4-8 (issue 25's session), a 1-hour cache write, and one call with
    # US-only inference (usage.inference_geo "us") that also fetched a page.
    return Scenario(
        [
            turn(
                tool_use("Bash", {"command": "ls", "description": "list"}),
                usage=Usage(900, 300, cache_creation_1h=2_000, cache_read_input_tokens=8_000, web_search_requests=2),
            ),
            turn(
                "Found it.",
                usage=Usage(
                    400,
                    500,
                    cache_read_input_tokens=11_000,
                    web_search_requests=2,
                    web_fetch_requests=1,
                    inference_geo="us",
                ),
            ),
        ]
    )


US_CALL_TOKENS_USD = 400 * 5e-6 + 500 * 25e-6 + 11_000 * 0.5e-6  # the "us" call's tokens at opus-4-8's rates


def _proxy(upstream: str, root: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "ctxops_token_capture", "proxy", "--upstream", upstream, "--port", "0"]
    proxy = subprocess.Popen(
        [*command, "--data-dir", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proxy.stdout is not None
    banner = proxy.stdout.readline()
    return proxy, "http://127.0.0.1:" + banner.split("http://127.0.0.1:")[1].split()[0]


def _cost(root: Path, session: str | None = None) -> float:
    with open_view(root) as view:
        return sum(r["cost_usd"] for r in grouped(view, "model", Filters(session=session)).rows)


@pytest.mark.parametrize("version", [None, "2.1.197"])
def test_web_searches_cost_what_claude_code_says_through_the_proxy_and_the_transcript(
    version: str | None, agent_workspace: AgentWorkspace, tmp_path: Path
) -> None:
    """The pinned Claude Code (2.1.332) prices web searches at $10 per 1,000 and a call with inference_geo "us"
    at 1.1x its tokens, as Anthropic bills them; the ledger equals its total_cost_usd through the proxy, the
    transcript and both merged. Claude Code 2.1.197 (the version issue 25 measured) left the 1.1x out: its
    total is below the ledger's by exactly a tenth of the "us" call's tokens."""
    claude_executable = ensure_claude_code(version)
    ws = agent_workspace
    model = "claude-opus-4-8"
    via_proxy = tmp_path / "proxy-ledger"
    with ScriptedModelServer(_web_search_scenario(), seed=9, log_path=ws.server_log) as server:
        proxy, url = _proxy(server.url, via_proxy)
        try:
            run = run_claude(
                ws.project, ws.home, "search the web", url, extra_args=["--model", model], executable=claude_executable
            ).check()
        finally:
            proxy.terminate()
            proxy.wait(15)
        sent = [r for r in server.responses() if r.get("kind") == "response"]
    output = run.output
    assert isinstance(output, dict)
    searches = sum(r["usage"].get("server_tool_use", {}).get("web_search_requests", 0) for r in sent)
    assert searches == 4 and len(sent) == 2
    claude_total = output["total_cost_usd"]
    expected = claude_total if version is None else claude_total + 0.1 * US_CALL_TOKENS_USD
    assert output["modelUsage"][model]["webSearchRequests"] == searches

    # Through the proxy alone: every call's searches and geography recorded, the same dollars.
    assert _cost(via_proxy) == pytest.approx(expected, abs=1e-6)
    # Through the transcript alone.
    from_transcript = tmp_path / "transcript-ledger"
    ingest(Sources(claude_dirs=[ws.home / ".claude"]), from_transcript)
    assert _cost(from_transcript, run.session_id) == pytest.approx(expected, abs=1e-6)
    # Both in one ledger: each call once, the searches kept (never a zero over a count).
    ingest(Sources(claude_dirs=[ws.home / ".claude"]), via_proxy)
    with open_view(via_proxy) as view:
        merged = view.con.execute(
            "SELECT count(*), sum(web_search_requests), sum(web_fetch_requests), list(DISTINCT inference_geo) "
            "FILTER (WHERE inference_geo IS NOT NULL), list(DISTINCT service_tier) FROM usage"
        ).fetchone()
    assert merged == (2, 4, 1, ["us"], ["standard"])
    assert _cost(via_proxy) == pytest.approx(expected, abs=1e-6)
