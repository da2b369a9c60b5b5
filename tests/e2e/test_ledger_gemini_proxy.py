"""Issue 25 item 5 with the real client: Gemini CLI 0.61 through `ctx proxy` (GOOGLE_GEMINI_BASE_URL), model "auto".

With "auto", Gemini CLI asks its router (`utility_router`: a `generateContent` on a flash-lite model) before each
prompt and then streams the main model's turns. Its chat file holds only the main turns. Through the proxy every
call is recorded, equal to what the scripted server sent; ingesting the chat file into the same ledger adds no
call twice (each chat-file copy folds into its proxy copy and lends it the session and cwd); a ledger fed by the
chat file alone says in one line what it misses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agent_harness import Scenario, ScriptedModelServer, Usage, tool_use, turn
from agent_harness.gemini_cli import ensure_gemini_cli, run_gemini, write_gemini_user_settings
from ctxops_ledger_report.reports import GEMINI_GAP, Filters, build
from ctxops_ledger_report.store import open_view
from ctxops_token_capture.ingest import Sources, ingest

pytestmark = pytest.mark.e2e

PROXY = "import sys\nfrom ctxops_ledger_report.proxy_budget import proxy_command\nsys.exit(proxy_command(sys.argv[1:]))"


def _rows(root: Path) -> list[tuple]:
    with open_view(root) as view:
        return view.con.execute(
            "SELECT origin, model, message_id, input_tokens, cache_read_tokens, output_tokens, session_id, cwd "
            "FROM usage ORDER BY ts"
        ).fetchall()


def test_gemini_cli_router_and_main_calls_through_the_proxy(tmp_path: Path) -> None:
    gemini = ensure_gemini_cli()
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write_gemini_user_settings(home)
    scenario = Scenario(
        [
            turn(
                tool_use("run_shell_command", {"command": "echo hi"}),
                usage=Usage(1200, 30, cache_read_input_tokens=800),
            ),
            turn("Done.", usage=Usage(1500, 20)),
        ]
    )
    root = tmp_path / "ledger"
    with ScriptedModelServer(scenario, seed=11, log_path=tmp_path / "server.jsonl") as server:
        command = [sys.executable, "-c", PROXY, "--upstream", server.url, "--port", "0", "--data-dir", str(root)]
        proxy = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proxy.stdout is not None
            url = "http://127.0.0.1:" + proxy.stdout.readline().split("http://127.0.0.1:")[1].split()[0]
            run = run_gemini(project, home, "run echo hi", url, model="auto", executable=gemini).check()
        finally:
            proxy.terminate()
            proxy.wait(15)
        sent = [r for r in server.responses() if r.get("kind") == "response"]
    session = run.output["session_id"]
    roles = sorted(r["role"] for r in sent)
    assert roles.count("aux") >= 1 and roles.count("main") == 2, roles  # the router asked before the prompt

    def expected(r: dict) -> tuple:
        u = r["usage"]
        cached = u.get("cachedContentTokenCount", 0)
        return (r["model"], r["message_id"], u["promptTokenCount"] - cached, cached, u["candidatesTokenCount"])

    truth = sorted(expected(r) for r in sent)
    # Through the proxy: every call the server sent, the router's included, to the token.
    recorded = _rows(root)
    assert sorted((m, mid, i, c, o) for _, m, mid, i, c, o, _, _ in recorded) == truth
    assert {origin for origin, *_ in recorded} == {"proxy"}
    main_models = {r["model"] for r in sent if r["role"] == "main"}
    router_models = {r["model"] for r in sent if r["role"] == "aux"}
    assert router_models and not router_models & main_models  # another model

    # The chat file ingested into the same ledger: no call twice; the main calls gain the session and cwd.
    ingest(Sources(gemini_dirs=[home / ".gemini"]), root)
    merged = _rows(root)
    assert sorted((m, mid, i, c, o) for _, m, mid, i, c, o, _, _ in merged) == truth
    assert {(row[1], row[6], row[7]) for row in merged if row[1] in main_models} == {
        (model, session, str(project)) for model in main_models
    }
    with open_view(root) as view:
        report = build(view, "day", Filters())
    assert report.total["calls"] == len(sent)
    assert GEMINI_GAP not in report.notes

    # The chat file alone: the main calls only, and the report says what it misses.
    alone = tmp_path / "chat-only"
    ingest(Sources(gemini_dirs=[home / ".gemini"]), alone)
    with open_view(alone) as view:
        report = build(view, "day", Filters())
    assert report.total["calls"] == 2
    assert GEMINI_GAP in report.notes


def test_gemini_cli_shows_a_budget_refusal_and_stops(tmp_path: Path) -> None:
    """A spent day budget: Gemini CLI gets the proxy's RESOURCE_EXHAUSTED, shows its message and exits; one
    refusal recorded (not retried), nothing reaches the model."""
    gemini = ensure_gemini_cli()
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    write_gemini_user_settings(home)
    root = tmp_path / "ledger"
    env = {"CTXOPS_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    with ScriptedModelServer(Scenario([turn("Never sent.")]), seed=12, log_path=tmp_path / "server.jsonl") as server:
        command = [sys.executable, "-c", PROXY, "--upstream", server.url, "--port", "0", "--data-dir", str(root)]
        proxy = subprocess.Popen(
            [*command, "--budget-day", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            assert proxy.stdout is not None
            url = "http://127.0.0.1:" + proxy.stdout.readline().split("http://127.0.0.1:")[1].split()[0]
            run = run_gemini(project, home, "hello", url, model="gemini-2.5-pro", executable=gemini, timeout=120)
        finally:
            proxy.terminate()
            proxy.wait(15)
        assert not [r for r in server.responses() if r.get("kind") == "response"]
    assert run.returncode != 0
    # On an error, Gemini CLI 0.61 writes its --output-format json document to stderr, after the stack trace.
    document = json.loads(run.stderr[run.stderr.rindex('{\n  "session_id"') :])
    assert document["error"]["message"].startswith("ctxops budget: the day budget $0.00 is spent"), document
    lines = [line for path in (root / "usage").glob("*.jsonl") for line in path.read_text().splitlines()]
    assert len(lines) == 1 and '"status":429' in lines[0].replace(" ", "")
