"""Issue 25 item 6 with the real client: Claude Code through `ctx proxy --budget-session` against the scripted
server. The first run spends the session's budget; the resumed session's next prompt is refused by the proxy,
and Claude Code shows the proxy's message and ends at once (no retry loop, no hang); the scripted server never
sees the refused call."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, run_claude, turn
from agent_harness.fixtures import AgentWorkspace

pytestmark = pytest.mark.e2e

PROXY = "import sys\nfrom ctxops_ledger_report.proxy_budget import proxy_command\nsys.exit(proxy_command(sys.argv[1:]))"


def test_claude_code_shows_the_budget_refusal_and_stops(
    agent_workspace: AgentWorkspace, claude_executable: Path, tmp_path: Path
) -> None:
    ws = agent_workspace
    root = tmp_path / "ledger"
    # 1M input tokens of sonnet-4-5: $3 for the first call, over the $1 session budget.
    scenario = Scenario([turn("Hello.", usage=Usage(1_000_000, 10))])
    with ScriptedModelServer(scenario, seed=3, log_path=ws.server_log) as server:
        command = [sys.executable, "-c", PROXY, "--upstream", server.url, "--port", "0", "--data-dir", str(root)]
        proxy = subprocess.Popen(
            [*command, "--budget-session", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"CTXOPS_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
        try:
            assert proxy.stdout is not None
            banner = proxy.stdout.readline()
            assert "budgets enforced: session $1.00" in banner, banner
            url = "http://127.0.0.1:" + banner.split("http://127.0.0.1:")[1].split()[0]
            first = run_claude(ws.project, ws.home, "say hello", url, extra_args=["--model", "claude-sonnet-4-5"])
            first.check()
            main_calls = len([r for r in server.responses("main") if r.get("kind") == "response"])
            server.set_scenario(Scenario([turn("Never sent.")]))
            started = time.monotonic()
            second = run_claude(
                ws.project,
                ws.home,
                "say more",
                url,
                extra_args=["--model", "claude-sonnet-4-5", "--resume", first.session_id],
                timeout=180,
            )
            took = time.monotonic() - started
        finally:
            proxy.terminate()
            proxy.wait(15)
        after = len([r for r in server.responses("main") if r.get("kind") == "response"])
    assert after == main_calls  # the refused prompt never reached the model
    shown = f"{second.stdout}\n{second.stderr}"
    assert "ctxops budget: the session budget $1.00 is spent" in shown, shown[-2000:]
    assert second.output is None or second.output.get("is_error") is True or "ctxops budget" in str(second.output)
    print("TOOK", took, second.stdout[-600:])
    assert took < 60, took  # no retry loop
