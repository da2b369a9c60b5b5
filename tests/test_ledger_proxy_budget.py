"""Issue 25 item 6: budgets enforced at `ctx proxy` (a real proxy process, real SDK clients, a real upstream).

Every upstream call costs a known amount (1M input tokens of a priced model); a call over a budget must come back
at once as the route's provider-shaped 429 that the official SDK raises without retrying, and never reach the
upstream. Off by default: without a budget option the same spend is never refused.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from aiohttp import web
from ledger_records import record, write

MILLION = 1_000_000


class Upstream:
    """Answers Anthropic Messages, OpenAI chat and Gemini generateContent with 1M input tokens per call."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None

    async def messages(self, request: web.Request) -> web.Response:
        self.hits.append("anthropic")
        body = await request.json()
        n = len(self.hits)
        return web.json_response(
            {
                "id": f"msg_{n}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": MILLION, "output_tokens": 0},
            },
            headers={"request-id": f"req_{n}"},
        )

    async def chat(self, request: web.Request) -> web.Response:
        self.hits.append("openai")
        body = await request.json()
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.hits)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": MILLION, "completion_tokens": 0, "total_tokens": MILLION},
            }
        )

    async def gemini(self, request: web.Request) -> web.Response:
        self.hits.append("gemini")
        model = request.match_info["model"]
        return web.json_response(
            {
                "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": MILLION, "candidatesTokenCount": 0, "totalTokenCount": MILLION},
                "modelVersion": model,
                "responseId": f"g-{len(self.hits)}",
            }
        )

    def __enter__(self) -> Upstream:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application()
            app.router.add_post("/v1/messages", self.messages)
            app.router.add_post("/v1/chat/completions", self.chat)
            app.router.add_post("/v1beta/models/{model}:generateContent", self.gemini)
            self._runner = web.AppRunner(app)
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            self.url = f"http://127.0.0.1:{port}"
            ready.set()
            loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        assert ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._runner is not None
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with Upstream() as up:
        yield up


def _noon_zone() -> str:
    """A fixed-offset zone where it is about noon now: the test's "today" is hours from a day's end."""
    offset = 12 - datetime.now(UTC).hour  # -11..12
    return "Etc/GMT" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


def _start_proxy(upstream: Upstream, data: Path, *options: str, tmp: Path) -> tuple[subprocess.Popen[str], str]:
    code = (
        "import sys\nfrom ctxops_ledger_report.proxy_budget import proxy_command\nsys.exit(proxy_command(sys.argv[1:]))"
    )
    env = {"CTXOPS_CONFIG": str(tmp / "no-config.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp)}
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--upstream", upstream.url, "--port", "0", "--data-dir", str(data), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "listening on http://127.0.0.1:" in line, (line, process.stderr.read() if process.stderr else "")
    port = int(line.split("http://127.0.0.1:")[1].split()[0])
    return process, f"http://127.0.0.1:{port}"


def _stop(process: subprocess.Popen[str]) -> str:
    process.terminate()
    process.wait(10)
    assert process.returncode == 0
    return process.stderr.read() if process.stderr else ""


def _records(data: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted((data / "usage").glob("*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


def _wait_for_records(data: Path, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 10
    while True:
        records = [r for r in _records(data) if r.get("origin") == "proxy"]
        if len(records) >= count or time.monotonic() > deadline:
            return records
        time.sleep(0.05)


def test_day_budget_refuses_at_once_in_each_providers_shape(upstream: Upstream, tmp_path: Path) -> None:
    data = tmp_path / "data"
    zone = _noon_zone()
    # $6 already spent today (a transcript call before the proxy started): 2M input tokens of sonnet-4-5.
    write(data, [record(datetime.now(UTC), input_tokens=2 * MILLION, output_tokens=0, session_id="old")])
    process, url = _start_proxy(upstream, data, "--budget-day", "9", "--tz", zone, tmp=tmp_path)
    try:
        claude = anthropic.Anthropic(base_url=url, api_key="sk-ant-test", max_retries=3)
        claude.messages.create(model="claude-sonnet-4-5", max_tokens=5, messages=[{"role": "user", "content": "a"}])
        assert upstream.hits == ["anthropic"]  # $6 < $9: through; now $9 is spent
        started = time.monotonic()
        with pytest.raises(anthropic.RateLimitError) as refused:
            claude.messages.create(model="claude-sonnet-4-5", max_tokens=5, messages=[{"role": "user", "content": "b"}])
        assert time.monotonic() - started < 2  # refused at once, and not retried by the SDK (3 retries allowed)
        assert upstream.hits == ["anthropic"]  # never reached the provider
        body = refused.value.body
        assert isinstance(body, dict) and body["type"] == "error" and body["error"]["type"] == "rate_limit_error"
        assert "ctxops budget: the day budget $9.00 is spent" in body["error"]["message"]
        assert refused.value.response.headers["x-should-retry"] == "false"

        gpt = openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=3)
        started = time.monotonic()
        with pytest.raises(openai.RateLimitError) as refused_openai:
            gpt.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "c"}])
        assert time.monotonic() - started < 2
        assert refused_openai.value.code == "insufficient_quota"
        assert "ctxops budget" in str(refused_openai.value)

        gemini = httpx.post(
            f"{url}/v1beta/models/gemini-2.5-pro:generateContent",
            json={"contents": [{"role": "user", "parts": [{"text": "d"}]}]},
            headers={"x-goog-api-key": "g-test"},
            timeout=10,
        )
        assert gemini.status_code == 429
        error = gemini.json()["error"]
        assert error["status"] == "RESOURCE_EXHAUSTED" and error["message"].startswith("ctxops budget: the day budget")
        # Gemini CLI retries a quota error it is told to retry within 300 s, and stops above that.
        assert int(error["message"].rsplit("Please retry in ", 1)[1].rstrip("s.")) >= 301
        assert upstream.hits == ["anthropic"]
    finally:
        stderr = _stop(process)
    assert "sk-ant-test" not in stderr
    records = _wait_for_records(data, 4)
    refusals = [r for r in records if r["status"] == 429]
    assert len(refusals) == 3  # one per refused call: no retry reached the proxy either
    assert all(r["error"].startswith("budget_exceeded: ctxops budget") for r in refusals)
    assert all(r["input_tokens"] == 0 and r["output_tokens"] == 0 for r in refusals)


def test_session_budget_refuses_that_session_only(upstream: Upstream, tmp_path: Path) -> None:
    data = tmp_path / "data"
    process, url = _start_proxy(upstream, data, "--budget-session", "3", tmp=tmp_path)
    try:
        for session, expected in (("s-a", 200), ("s-a", 429), ("s-b", 200), ("s-b", 429), ("s-a", 429)):
            response = httpx.post(
                f"{url}/v1/messages",
                json={"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
                headers={"x-api-key": "k", "anthropic-version": "2023-06-01", "x-claude-code-session-id": session},
                timeout=10,
            )
            assert response.status_code == expected, (session, response.text)
            if expected == 429:
                assert f"session {session}" in response.json()["error"]["message"]
        assert upstream.hits == ["anthropic", "anthropic"]
    finally:
        _stop(process)


def test_budgets_are_off_by_default(upstream: Upstream, tmp_path: Path) -> None:
    data = tmp_path / "data"
    write(data, [record(datetime.now(UTC), input_tokens=100 * MILLION, output_tokens=0)])  # $300 today
    (tmp_path / "no-config.toml").write_text("[ledger.budgets]\nday = 1.0\nsession = 1.0\n")  # alerts only
    process, url = _start_proxy(upstream, data, tmp=tmp_path)
    try:
        for _ in range(2):
            response = httpx.post(
                f"{url}/v1/messages",
                json={"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
                headers={"x-api-key": "k", "anthropic-version": "2023-06-01", "x-claude-code-session-id": "s-1"},
                timeout=10,
            )
            assert response.status_code == 200
    finally:
        _stop(process)
    assert upstream.hits == ["anthropic", "anthropic"]


def test_enforce_budgets_takes_the_configs_and_bad_values_exit_2(upstream: Upstream, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "no-config.toml").write_text("[ledger.budgets]\nday = 2.0\n\n[ledger.proxy]\nenforce_budgets = true\n")
    process, url = _start_proxy(upstream, data, "--tz", _noon_zone(), tmp=tmp_path)
    try:
        statuses = [
            httpx.post(
                f"{url}/v1/chat/completions",
                json={"model": "gpt-4.1", "messages": [{"role": "user", "content": "x"}]},
                headers={"authorization": "Bearer k"},
                timeout=10,
            ).status_code
            for _ in range(3)
        ]
        assert statuses == [200, 429, 429]  # $2 after the first call
    finally:
        _stop(process)
    code = (
        "import sys\nfrom ctxops_ledger_report.proxy_budget import proxy_command\nsys.exit(proxy_command(sys.argv[1:]))"
    )
    bad = subprocess.run(
        [sys.executable, "-c", code, "--upstream", upstream.url, "--budget-day", "-1"],
        capture_output=True,
        text=True,
        env={"CTXOPS_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--budget-day" in bad.stderr
