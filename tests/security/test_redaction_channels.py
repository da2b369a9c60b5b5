"""No secret reaches disk through any channel: real processes push secrets through every way ctxops writes
user content, then every byte under ``.meta/``, the per-user data directory and the cache is grepped.

Channels: the hooks of all four adapters (``ctx hook claude-code|codex|gemini|cursor``: prompts, commands,
outputs, file contents, file *paths*, MCP tool inputs and outputs, the guard's read state and saved
outputs, the session digest), ``ctx mem add`` (title, body, --file, --scope, --source, --tag), ``ctx
ledger ingest`` of a transcript whose tool inputs hold secrets (attribution files), ``ctx proxy`` in front
of an upstream that echoes the key in its 401 error, and the memory line's MCP ``remember`` tool through
``ctx mcp``. DuckDB and msgpack files are read as bytes like any other.

The secrets are built here from each provider's documented format (prefix, length, alphabet) with a
seeded generator: none comes from the outside corpus the rules are measured against
(``bench/redaction_corpus.py``).
"""

from __future__ import annotations

import base64
import json
import os
import random
import socket
import string
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

_rng = random.Random(2107)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def _r(n: int, alphabet: str = ALNUM) -> str:
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def _uuidish(alphabet: str = LOWER) -> str:
    return "-".join(_r(n, alphabet) for n in (8, 4, 4, 4, 12))


# One secret per documented format; the channel tests put each one everywhere.
SECRETS = {
    "github": "ghp_" + _r(36),
    "adobe": "p8e-" + _r(32),
    "brevo": "xkeysib-" + _r(64, HEX) + "-" + _r(16),
    "openshift": "sha256~" + _r(43, B64URL),
    "launchdarkly": "sdk-" + _uuidish(),
    "bedrock": "ABSK" + _r(128, B64),
    "anthropic": "sk-ant-api03-" + _r(93, B64URL) + "AA",
    "password": _r(14, ALNUM + "!@#%^"),  # a person's password: only its context gives it away
    "bare": _r(40),  # a random token with no prefix and no secret word near it
}
# ``_r`` can put characters a shell or a path mangles into the password; keep them simple for the tests.
SECRETS["password"] = SECRETS["password"].replace("/", "x")


def _text(n: int) -> str:
    """A text holding every secret in a different context form."""
    s = SECRETS
    return (
        f"use {s['github']} and {s['adobe']}\n"
        f"BREVO_KEY={s['brevo']}\n"
        f"oc login --token={s['openshift']}\n"
        f'var ldToken string = "{s["launchdarkly"]}"\n'
        f"export AWS_BEARER_TOKEN_BEDROCK={s['bedrock']}\n"
        f"ANTHROPIC_API_KEY ?= {s['anthropic']}\n"
        f"curl -uadmin:{s['password']} https://example.test/{n}\n"
        f"the value {s['bare']} came back\n"
    )


def _path_secret() -> str:
    return SECRETS["bare"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("redaction-channels")
    repo = base / "repo"
    (repo / "notes").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes" / "keep.txt").write_text("hello\n")
    home = base / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "CTXOPS_DATA_DIR": str(base / "data"),
        "CTXOPS_CACHE_DIR": str(base / "cache"),
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "XDG_STATE_HOME": str(base / "xdg-state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
    }
    return {"base": base, "repo": repo, "home": home, "env": env}  # type: ignore[dict-item]


def _ctx(world: dict, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_core", *args],
        input=stdin,
        text=True,
        capture_output=True,
        cwd=world["repo"],
        env=world["env"],
        timeout=timeout,
        check=False,
    )


def _hook_payloads(agent: str, repo: Path) -> list[dict]:
    secret_path = str(repo / "notes" / f"{_path_secret()}.txt")
    secret_dir_file = str(repo / "notes" / SECRETS["github"] / "config.yml")
    text = _text(0)
    long_output = text + "".join(f"line {i} of the build log\n" for i in range(600))
    sid = f"s-{agent}"
    if agent == "claude-code":
        base = {"session_id": sid, "cwd": str(repo), "transcript_path": str(repo / "t.jsonl")}
        return [
            {**base, "hook_event_name": "SessionStart", "source": "startup"},
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": text},
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": "b1",
                "tool_input": {"command": f"cat {secret_path} && echo {SECRETS['github']}"},
                "tool_response": {"stdout": long_output, "stderr": text, "interrupted": False},
            },
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Write",
                "tool_use_id": "w1",
                "tool_input": {"file_path": secret_path, "content": text},
                "tool_response": {"filePath": secret_path, "type": "create"},
            },
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Edit",
                "tool_use_id": "e1",
                "tool_input": {"file_path": secret_dir_file, "old_string": "a", "new_string": text},
                "tool_response": {"filePath": secret_dir_file},
            },
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Read",
                "tool_use_id": "r1",
                "tool_input": {"file_path": secret_path},
                "tool_response": {"type": "text", "file": {"filePath": secret_path, "content": long_output}},
            },
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "mcp__vault__lookup",
                "tool_use_id": "m1",
                "tool_input": {"query": text, "path": secret_path},
                "tool_response": [{"type": "text", "text": text}],
            },
            {**base, "hook_event_name": "Stop"},
            {**base, "hook_event_name": "SessionEnd", "reason": "exit"},
        ]
    if agent == "codex":
        base = {"session_id": sid, "cwd": str(repo)}
        return [
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": text},
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "shell",
                "tool_input": {"command": ["bash", "-lc", f"cat {secret_path}"]},
                "tool_response": long_output,
            },
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "apply_patch",
                "tool_input": {"command": f"*** Begin Patch\n*** Add File: {secret_path}\n+{text}*** End Patch"},
                "tool_response": "Done",
            },
            {**base, "hook_event_name": "Stop"},
        ]
    if agent == "gemini":
        base = {"session_id": sid, "cwd": str(repo)}
        return [
            {**base, "hook_event_name": "BeforeAgent", "prompt": text},
            {
                **base,
                "hook_event_name": "AfterTool",
                "tool_name": "write_file",
                "tool_input": {"file_path": secret_path, "content": text},
                "tool_response": {"llmContent": text},
            },
            {
                **base,
                "hook_event_name": "AfterTool",
                "tool_name": "run_shell_command",
                "tool_input": {"command": f"cat {secret_path}"},
                "tool_response": {"llmContent": long_output},
            },
            {
                **base,
                "hook_event_name": "AfterTool",
                "tool_name": "vault_lookup",
                "tool_input": {"query": text},
                "tool_response": {"llmContent": text},
            },
            {**base, "hook_event_name": "SessionEnd", "reason": "exit"},
        ]
    base = {"conversation_id": sid, "generation_id": "g1", "workspace_roots": [str(repo)]}
    return [
        {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": text},
        {**base, "hook_event_name": "afterShellExecution", "command": f"cat {secret_path}", "output": long_output},
        {
            **base,
            "hook_event_name": "afterFileEdit",
            "file_path": secret_path,
            "edits": [{"old_string": "", "new_string": text}],
        },
        {**base, "hook_event_name": "beforeReadFile", "file_path": secret_path, "content": text},
        {
            **base,
            "hook_event_name": "afterMCPExecution",
            "tool_name": "vault_lookup",
            "tool_input": json.dumps({"query": text, "path": secret_path}),
            "result_json": json.dumps({"content": [{"type": "text", "text": text}]}),
        },
        {**base, "hook_event_name": "stop", "status": "completed"},
    ]


def _every_file(world: dict) -> dict[str, bytes]:
    """Every file ctxops may have written: .meta/, the data, cache and state directories, home."""
    base: Path = world["base"]
    roots = [world["repo"] / ".meta", base / "data", base / "cache", base / "xdg-cache", base / "xdg-data"]
    roots += [base / "xdg-state", world["home"]]
    found: dict[str, bytes] = {}
    for root in roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink() and "transcripts" not in path.parts:
                found[str(path)] = path.read_bytes()
            found[str(path) + " (the name)"] = str(path).encode()
    return found


def _leaks(world: dict) -> list[tuple[str, str]]:
    files = _every_file(world)
    out = []
    for label, secret in SECRETS.items():
        needles = {secret.encode(), secret[-12:].encode()}
        for name, blob in files.items():
            if any(needle in blob for needle in needles):
                out.append((label, name.replace(str(world["base"]), "")))
    return out


@pytest.fixture(scope="module")
def hooked(world: dict) -> dict:
    for agent in ("claude-code", "codex", "gemini", "cursor"):
        for payload in _hook_payloads(agent, world["repo"]):
            done = _ctx(world, "hook", agent, stdin=json.dumps(payload))
            assert done.returncode == 0, done.stderr
    # the guard's deferred saves and the digest may finish in a detached process: give them a moment
    time.sleep(2.0)
    return world


def test_hooks_of_all_four_agents_store_no_secret(hooked: dict) -> None:
    events = list((hooked["repo"] / ".meta" / "events").glob("*.jsonl"))
    assert events, "capture wrote no events: the test would prove nothing"
    lines = [json.loads(line) for f in events for line in f.read_text().splitlines() if line.strip()]
    agents = {e["agent"] for e in lines}
    assert {"claude-code", "codex", "gemini", "cursor"} <= agents
    assert any("[REDACTED:path-token]" in f or "[REDACTED:" in f for e in lines for f in e.get("files") or [])
    assert any(e.get("tool_name") in {"mcp__vault__lookup", "vault_lookup"} for e in lines)
    assert [leak for leak in _leaks(hooked) if "/repo/.meta/" in leak[1]] == []


@pytest.fixture(scope="module")
def remembered(hooked: dict) -> dict:
    s = SECRETS
    done = _ctx(
        hooked,
        "mem",
        "add",
        "--kind",
        "fact",
        "--title",
        f"deploy with {s['adobe']}",
        "--body",
        _text(1),
        "--file",
        f"notes/{_path_secret()}.txt",
        "--scope",
        f"notes/{s['github']}/**",
        "--source",
        f"session:{s['launchdarkly']}",
        "--tag",
        s["brevo"],
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return hooked


def test_ctx_mem_add_fields_store_no_secret(remembered: dict) -> None:
    memories = list((remembered["repo"] / ".meta" / "memory").glob("*.md"))
    assert any("deploy with" in m.read_text() for m in memories)
    assert [leak for leak in _leaks(remembered) if "/memory/" in leak[1] or "/index/" in leak[1]] == []


def _transcript(world: dict) -> Path:
    repo = world["repo"]
    project = world["home"] / ".claude" / "projects" / "-repo"
    project.mkdir(parents=True, exist_ok=True)
    path = project / "session.jsonl"
    secret_path = f"{repo}/notes/{_path_secret()}.txt"
    lines = [
        {
            "type": "assistant",
            "sessionId": "ledger-s",
            "cwd": str(repo),
            "timestamp": "2026-12-01T10:00:00.000Z",
            "requestId": "req_1",
            "uuid": "u1",
            "message": {
                "id": "msg_1",
                "model": "claude-sonnet-4-5",
                "role": "assistant",
                "type": "message",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": secret_path}},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": _text(2)}},
                ],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        },
        {
            "type": "user",
            "sessionId": "ledger-s",
            "cwd": str(repo),
            "timestamp": "2026-12-01T10:00:01.000Z",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": _text(3)},
                    {"type": "tool_result", "tool_use_id": "t2", "content": _text(4)},
                ],
            },
        },
        {
            "type": "assistant",
            "sessionId": "ledger-s",
            "cwd": str(repo),
            "timestamp": "2026-12-01T10:00:02.000Z",
            "requestId": "req_2",
            "uuid": "u3",
            "message": {
                "id": "msg_2",
                "model": "claude-sonnet-4-5",
                "role": "assistant",
                "type": "message",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 20, "output_tokens": 7},
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def ingested(remembered: dict) -> dict:
    transcript = _transcript(remembered)
    done = _ctx(remembered, "ledger", "ingest", "--claude-dir", str(remembered["home"] / ".claude"), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    transcript.unlink()  # the agent's own file, not ctxops's: only what ctxops stored is checked
    return remembered


def test_ledger_ingest_stores_no_secret_from_tool_inputs(ingested: dict) -> None:
    data = ingested["base"] / "data"
    stored = [p for p in data.rglob("*") if p.is_file()]
    assert stored, "the ledger stored nothing: the test would prove nothing"
    assert any(b"[REDACTED:" in p.read_bytes() for p in stored if p.suffix == ".jsonl")
    assert [leak for leak in _leaks(ingested) if "/data/" in leak[1]] == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _EchoingUpstream:
    """A provider that rejects every key and echoes it back in the error, as some do."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.loop = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.ready = threading.Event()
        self.failure: BaseException | None = None

    def _run(self) -> None:
        try:
            self._serve()
        except BaseException as exc:  # reported by start(), not lost in the thread
            self.failure = exc
            self.ready.set()

    def _serve(self) -> None:
        import asyncio

        from aiohttp import web

        async def messages(request: web.Request) -> web.Response:
            key = request.headers.get("x-api-key") or request.headers.get("authorization", "")
            body = await request.text()
            return web.json_response(
                {"type": "error", "error": f"invalid x-api-key {key}; request was {body[:400]}"}, status=401
            )

        async def chat(request: web.Request) -> web.Response:
            key = request.headers.get("authorization", "")
            return web.json_response(
                {"error": {"message": f"Incorrect API key provided: {key}", "code": key}}, status=401
            )

        async def main() -> None:
            app = web.Application()
            app.router.add_post("/v1/messages", messages)
            app.router.add_post("/v1/chat/completions", chat)
            runner = web.AppRunner(app)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", self.port).start()
            self.ready.set()
            while True:
                await asyncio.sleep(3600)

        asyncio.run(main())

    def start(self) -> None:
        self.thread.start()
        assert self.ready.wait(120), "the upstream did not start"
        assert self.failure is None, repr(self.failure)


@pytest.fixture(scope="module")
def proxied(ingested: dict) -> dict:
    import urllib.error
    import urllib.request

    upstream = _EchoingUpstream()
    upstream.start()
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxops_core",
            "proxy",
            "--upstream",
            f"http://127.0.0.1:{upstream.port}",
            "--port",
            str(port),
        ],
        cwd=ingested["repo"],
        env=ingested["env"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        calls = [
            (
                "/v1/messages",
                {"x-api-key": SECRETS["anthropic"], "content-type": "application/json"},
                {"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": _text(5)}]},
            ),
            (
                "/v1/chat/completions",
                {"authorization": f"Bearer {SECRETS['github']}", "content-type": "application/json"},
                {"model": "gpt-5", "messages": [{"role": "user", "content": _text(6)}]},
            ),
        ]
        statuses = []
        for path, headers, body in calls:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), headers=headers, method="POST"
            )
            try:
                urllib.request.urlopen(request, timeout=10)
            except urllib.error.HTTPError as exc:
                statuses.append(exc.code)
        assert statuses == [401, 401]
        time.sleep(1.0)  # records are appended off the request path
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return ingested


def test_proxy_stores_no_key_an_upstream_error_echoes(proxied: dict) -> None:
    records = [p for p in (proxied["base"] / "data").rglob("proxy-*.jsonl")]
    assert records, "the proxy recorded nothing: the test would prove nothing"
    lines = [json.loads(line) for p in records for line in p.read_text().splitlines() if line.strip()]
    assert [line["status"] for line in lines] == [401, 401]
    assert any("[REDACTED" in (line.get("error") or "") for line in lines)
    assert [leak for leak in _leaks(proxied) if "/data/" in leak[1]] == []


def test_mcp_remember_stores_no_secret(proxied: dict) -> None:
    pytest.importorskip("mcp")
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def call() -> str:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "ctxops_core", "mcp"], env=proxied["env"], cwd=str(proxied["repo"])
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(
                "remember",
                {
                    "title": f"rotate {SECRETS['openshift']}",
                    "body": _text(7),
                    "scope": [f"deploy/{_path_secret()}/**"],
                },
            )
            return str(result.content)

    answer = asyncio.run(asyncio.wait_for(call(), 60))
    assert "rotate" in answer or "remember" in answer.lower() or "stored" in answer.lower()
    memories = list((proxied["repo"] / ".meta" / "memory").glob("*.md"))
    assert any("rotate" in m.read_text() for m in memories)


def test_nothing_anywhere(proxied: dict) -> None:
    """Last: every file of every channel above, bytes and names, holds none of the secrets."""
    assert _leaks(proxied) == []


# --- channels closed in session 8 (issue 21 item 4): bare keys where no context names them ---------------


def _mixed(n: int) -> str:
    """Lower-case letters with a digit every third character: a key in the lower-case-and-digits alphabet
    (``a7kq2mx9p...``) that only its shape gives away."""
    return "".join(_rng.choice(string.digits if i % 3 == 1 else string.ascii_lowercase) for i in range(n))


BARE = {
    "lower": _mixed(32),  # a key of lower-case letters and digits, alone
    "slug": "-".join(_mixed(n) for n in (9, 8, 8, 13)),  # the same cut in pieces, like a slug
    "hex": "".join(_rng.choice(HEX) for _ in range(64)),  # 64 hex digits
    "uuid": _uuidish(HEX),  # a UUID-shaped key (many providers issue those)
    "escaped": _r(36),  # a key whose context is only visible once escapes are read
}


def _bare_leaks(world: dict) -> list[tuple[str, str]]:
    files = _every_file(world)
    return [
        (label, name.replace(str(world["base"]), ""))
        for label, secret in BARE.items()
        for name, blob in files.items()
        if secret.encode() in blob or secret[-12:].encode() in blob
    ]


@pytest.fixture(scope="module")
def bare_world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("redaction-bare")
    repo = base / "repo"
    (repo / "notes").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    home = base / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "CTXOPS_DATA_DIR": str(base / "data"),
        "CTXOPS_CACHE_DIR": str(base / "cache"),
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "XDG_STATE_HOME": str(base / "xdg-state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
    }
    return {"base": base, "repo": repo, "home": home, "env": env}


def test_an_echoed_repr_keeps_its_context(bare_world: dict) -> None:
    """``echo '\\n[DEBUG] Using Key=...\\n'``: the line breaks are escapes, the context is still there."""
    repo = bare_world["repo"]
    logged = f"\\n\\t\\t[INFO] Sending request\\n\\t\\t[DEBUG] Using Key={BARE['escaped']}\\n\\t\\t[INFO] 200 OK\\n"
    payloads = [
        (
            "claude-code",
            {
                "session_id": "s-esc",
                "cwd": str(repo),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": "esc1",
                "tool_input": {"command": f"echo '{logged}'"},
                "tool_response": {"stdout": "ok\n", "stderr": "", "interrupted": False},
            },
        ),
        (
            "cursor",
            {
                "conversation_id": "s-esc",
                "generation_id": "g1",
                "workspace_roots": [str(repo)],
                "hook_event_name": "afterShellExecution",
                "command": f"printf '{logged}'",
                "output": json.dumps({"log": logged.replace("\\n", "\n")}),
            },
        ),
    ]
    for agent, payload in payloads:
        done = _ctx(bare_world, "hook", agent, stdin=json.dumps(payload))
        assert done.returncode == 0, done.stderr
    events = list((repo / ".meta" / "events").glob("*.jsonl"))
    assert events and "Sending request" in "".join(p.read_text() for p in events)
    assert [leak for leak in _bare_leaks(bare_world) if leak[0] == "escaped"] == []


def test_a_memory_title_and_tag_that_are_bare_keys(bare_world: dict) -> None:
    """A title names the memory's file: a bare key in it (no word says "token") is hidden there too."""
    done = _ctx(
        bare_world,
        "mem",
        "add",
        "--kind",
        "fact",
        "--title",
        f"rotate {BARE['lower']} after the incident",
        "--body",
        "the old deploy key was revoked",
        "--tag",
        BARE["uuid"],
        "--tag",
        BARE["hex"],
    )
    assert done.returncode == 0, done.stderr + done.stdout
    memories = list((bare_world["repo"] / ".meta" / "memory").glob("*.md"))
    assert any("rotate" in m.read_text() and "after the incident" in m.read_text() for m in memories)
    assert [leak for leak in _bare_leaks(bare_world) if leak[0] in {"lower", "uuid", "hex"}] == []


def test_file_names_that_are_keys_in_events_and_the_ledger_state(bare_world: dict) -> None:
    """Slug-cut, hex and UUID keys as file names: the events' ``files``, the guard's state, and the ledger
    ingest's parser state (``state/sources.json`` keeps pending tool uses' files) hold none of them."""
    repo = bare_world["repo"]
    names = [str(repo / "notes" / f"{BARE[k]}.txt") for k in ("slug", "hex", "uuid", "lower")]
    for n, path in enumerate(names):
        for payload in (
            {
                "session_id": "s-files",
                "cwd": str(repo),
                "hook_event_name": "PostToolUse",
                "tool_name": "Write",
                "tool_use_id": f"fw{n}",
                "tool_input": {"file_path": path, "content": "plain text\n"},
                "tool_response": {"filePath": path, "type": "create"},
            },
            {
                "session_id": "s-files",
                "cwd": str(repo),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": f"fb{n}",
                "tool_input": {"command": f"cat {path}"},
                "tool_response": {"stdout": "plain text\n", "stderr": "", "interrupted": False},
            },
        ):
            done = _ctx(bare_world, "hook", "claude-code", stdin=json.dumps(payload))
            assert done.returncode == 0, done.stderr
    project = bare_world["home"] / ".claude" / "projects" / "-repo"
    project.mkdir(parents=True, exist_ok=True)
    transcript = project / "files.jsonl"
    uses = [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": p}} for n, p in enumerate(names)]
    line = {
        "type": "assistant",
        "sessionId": "ledger-files",
        "cwd": str(repo),
        "timestamp": "2026-12-01T10:00:00.000Z",
        "requestId": "req_f",
        "uuid": "uf",
        "message": {
            "id": "msg_f",
            "model": "claude-sonnet-4-5",
            "role": "assistant",
            "type": "message",
            "content": uses,  # results never come: the parser keeps the uses (and their files) as state
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }
    transcript.write_text(json.dumps(line) + "\n")
    done = _ctx(bare_world, "ledger", "ingest", "--claude-dir", str(bare_world["home"] / ".claude"), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    transcript.unlink()
    state = list((bare_world["base"] / "data").rglob("sources.json"))
    assert state and "[REDACTED:path-token]" in state[0].read_text(), "the ledger kept no state: proves nothing"
    events = "".join(p.read_text() for p in (repo / ".meta" / "events").glob("*.jsonl"))
    assert "[REDACTED:path-token].txt" in events
    assert [leak for leak in _bare_leaks(bare_world) if leak[0] in {"slug", "hex", "uuid", "lower"}] == []


# --- session 9 (issue 21 item 4): URI passwords, long tokens, short keys in labels -------------------------

LATER = {
    "uri-password": _r(9) + "@" + _r(9),  # a raw '@' in the password: the host starts after the last one
    "long": _r(700) + "?" + _r(800),  # a generated token of 1,501 characters with a '?' in it
    "short": "".join(_rng.choice("abcdefghjkmnpqrstuvwxyz" if i % 2 else "23456789") for i in range(11)),
}


def _later_leaks(world: dict) -> list[tuple[str, str]]:
    """Every file (and file name) holding a LATER secret, its last 12 characters, or any 12 of its middle."""
    files = _every_file(world)
    out = []
    for label, secret in LATER.items():
        needles = {secret.encode(), secret[-12:].encode()}
        if len(secret) > 100:
            needles |= {secret[i : i + 12].encode() for i in range(0, len(secret) - 12, 50)}
        out += [
            (label, name.replace(str(world["base"]), ""))
            for name, blob in files.items()
            if any(n in blob for n in needles)
        ]
    return out


def test_uri_passwords_long_tokens_and_short_keys_reach_no_file(bare_world: dict) -> None:
    """``ldaps://cn=admin,dc=corp:<password>@host``: the password is hidden, scheme, user and host are kept; a
    1,501-character token is hidden whole (no 300- or 400-character cut leaves its tail); an 11-character key
    in a memory title is hidden where a key name marks it."""
    repo = bare_world["repo"]
    url = f"ldaps://cn=admin,dc=corp:{LATER['uri-password']}@ldap.corp.test:636/dc=corp"
    output = f"LDAP_URL={url}\nthe generated blob {LATER['long']} ends here\nCLOUD_TOKEN={LATER['long']}\n"
    payload = {
        "session_id": "s-later",
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "later1",
        "tool_input": {"command": f"ldapsearch -H {url} -b dc=corp"},
        "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
    }
    done = _ctx(bare_world, "hook", "claude-code", stdin=json.dumps(payload))
    assert done.returncode == 0, done.stderr
    done = _ctx(bare_world, "mem", "add", "--kind", "fact", "--title", f"api key {LATER['short']} for staging",
                "--body", output)  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    stored = "".join(p.read_text() for p in (repo / ".meta" / "events").glob("*.jsonl"))
    assert "ldaps://cn=admin,dc=corp:[REDACTED:password]@ldap.corp.test:636" in stored.replace("\\", "")
    memories = "".join(m.read_text() for m in (repo / ".meta" / "memory").glob("*.md"))
    assert "api key [REDACTED:token] for staging" in memories
    assert _later_leaks(bare_world) == []


# --- session 10 (issue 21 item 4): the development half's last classes, through real processes --------------


def _base36(n: int, alphabet: str = LOWER) -> str:
    """A generated key in one case and digits (a digit every fourth character at least, letters past ``f``)."""
    return "".join(_rng.choice(string.digits if i % 4 == 2 else alphabet.strip(string.digits)) for i in range(n))


def _printable(n: int) -> str:
    """A generated password over printable ASCII, with a quote in it."""
    marks = "!#$%&()*+,-.:;<=>?@[]^_`{|}~"
    body = "".join(_rng.choice(ALNUM + marks) for _ in range(n - 8))
    return "Q7" + body[: n // 2] + "'" + "k3#Z" + body[n // 2 :] + "9"


SESSION10 = {
    "base36": _base36(28),  # a key alone in lower case and digits
    "upper36": _base36(64, UPPER),  # a key alone in capitals and digits
    "k8s": base64.b64encode(_r(24).encode()).decode(),  # a Kubernetes Secret's data value
    "pair-id": _r(17),  # the id of a credential pair (``acme_id`` beside ``acme_secret``)
    "printable": _printable(80),  # a generated password: in a title, a quoted value holding a quote
}


def test_session10_classes_reach_no_file(bare_world: dict) -> None:
    repo = bare_world["repo"]
    s = SESSION10
    manifest = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: web\ndata:\n  extra: {s['k8s']}\n"
    output = (
        f"provider '{s['base36']}' ok\nkey {s['upper36']}\n"
        f'"acme_id": "{s["pair-id"]}",\n"acme_secret": "{_r(32)}"\n'
        f"acme token = '{s['printable']}'\n"
    )
    payloads = [
        {
            "session_id": "s-ten",
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_use_id": "ten1",
            "tool_input": {"file_path": str(repo / "deploy" / "secret.yaml"), "content": manifest},
            "tool_response": {"success": True},
        },
        {
            "session_id": "s-ten",
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "ten2",
            "tool_input": {"command": f"echo {s['base36']}"},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
        },
        {"session_id": "s-ten", "cwd": str(repo), "hook_event_name": "UserPromptSubmit", "prompt": output},
    ]
    for payload in payloads:
        done = _ctx(bare_world, "hook", "claude-code", stdin=json.dumps(payload))
        assert done.returncode == 0, done.stderr
    done = _ctx(bare_world, "mem", "add", "--kind", "fact", "--title", f"t {s['printable']}", "--body", output)
    assert done.returncode == 0, done.stderr + done.stdout
    assert _ends_on_disk(bare_world, s) == []
    stored = "".join(p.read_text() for p in (repo / ".meta" / "events").rglob("*.jsonl")).replace("\\n", "\n")
    assert "provider '[REDACTED" in stored and "acme_id" in stored  # the text was stored, its keys hidden


def _ends_on_disk(world: dict, secrets: dict[str, str]) -> list[tuple[str, str]]:
    """(label, file) of each secret found whole or by its first or last 12 characters in any file written."""
    files = _every_file(world)
    return [
        (label, name.replace(str(world["base"]), ""))
        for label, secret in secrets.items()
        for name, blob in files.items()
        if secret.encode() in blob or secret[-12:].encode() in blob or secret[:12].encode() in blob
    ]


def _django_key() -> str:
    """Django's ``get_random_secret_key()``: 50 of a-z, 0-9 and ``!@#$%^&*(-_=+)`` (no '/', so a file name)."""
    marks = "!@#$%^&*(-_=+)"
    body = [_rng.choice(string.ascii_lowercase + string.digits + marks) for _ in range(44)]
    return "".join(body[:20]) + "k7#q2&" + "".join(body[20:])


SESSION12 = {
    "compared": _r(10) + "-" + _r(6),  # a secret compared to a constant: ``if creds.Secret != "..."``
    "uuid-key": _uuidish(HEX),  # a key after its name and a space (``shortcut-private-key <uuid>``)
    "dashed": "".join(_rng.choice(HEX) for _ in range(40)),  # ``dd_app_key-<40 hex>``: one token
    "django": _django_key(),  # a Django secret key as a file name
}


def test_session12_forms_reach_no_file(bare_world: dict) -> None:
    """The forms the fresh corpus's channel check left on disk (session 12), each built from its documented
    shape: through ``ctx hook claude-code`` (a Bash output, a prompt, a Write of a file named by a key) and
    ``ctx mem add`` (a body where a word precedes the key's name). Fails before session 12."""
    repo = bare_world["repo"]
    s = SESSION12
    output = (
        f'if creds.Secret != "{s["compared"]}" {{\n  return\n}}\n'
        f"shortcut-private-key {s['uuid-key']}\n"
        f"export DD dd_app_key-{s['dashed']}\n"
    )
    named = repo / "notes" / f"{s['django']}.txt"
    payloads = [
        {
            "session_id": "s-twelve",
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "tw1",
            "tool_input": {"command": "cat handler.go"},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
        },
        {"session_id": "s-twelve", "cwd": str(repo), "hook_event_name": "UserPromptSubmit", "prompt": output},
        {
            "session_id": "s-twelve",
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_use_id": "tw2",
            "tool_input": {"file_path": str(named), "content": "notes"},
            "tool_response": {"success": True},
        },
    ]
    for payload in payloads:
        done = _ctx(bare_world, "hook", "claude-code", stdin=json.dumps(payload))
        assert done.returncode == 0, done.stderr
    body = f"remember shortcut-private-key {s['uuid-key']}"
    done = _ctx(bare_world, "mem", "add", "--kind", "fact", "--title", "shortcut", "--body", body,
                "--file", f"notes/{s['django']}.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    assert _ends_on_disk(bare_world, s) == []
    stored = "".join(p.read_text() for p in (repo / ".meta" / "events").rglob("*.jsonl"))
    assert "creds.Secret" in stored and "shortcut-private-key" in stored  # the text was stored, its keys hidden
