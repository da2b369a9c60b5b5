"""Deterministic, realistic agent transcripts for tests, benchmarks and the demo.

``write_claude_sessions`` lays out ``<config>/projects/<project>/<session>.jsonl`` the way Claude Code
2.1.x writes them: one assistant line per content block repeating the response's usage, ``requestId`` on
each, tool results (with the ``toolUseResult`` copy), request-shape/blob/system lines, and subagent
transcripts under ``<session>/subagents/``. ``write_codex_sessions`` lays out Codex rollouts. Both return
the ground truth: what each response cost, per day, model and session.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

CLAUDE_MODELS = ("claude-opus-5-5", "claude-sonnet-5-0", "claude-haiku-4-5")
CODEX_MODELS = ("gpt-5-codex", "gpt-5")
TOOLS = ("Read", "Edit", "Bash", "Grep", "Write")
_CODE = (
    "def handle_order(order_id: str, items: list[Item]) -> Order:",
    "    total = sum(item.price * item.quantity for item in items)",
    "    if total > MAX_ORDER_VALUE:",
    '        raise ValueError(f"order {order_id} exceeds the limit")',
    "    return Order(id=order_id, items=items, total=total)",
    "func (w *Worker) Process(ctx context.Context, job Job) error {",
    "\tif err := w.queue.Ack(ctx, job.ID); err != nil {",
    '\t\treturn fmt.Errorf("ack %s: %w", job.ID, err)',
    "export function OrderList({ orders }: { orders: Order[] }) {",
    "  return orders.map((o) => <OrderRow key={o.id} order={o} />);",
    "class InventoryService:",
    '    """Reserve stock for an order; release it when the order is cancelled."""',
    "        self._reservations: dict[str, int] = {}",
    "# TODO: retry transient database errors with backoff",
)
_encoder = msgspec.json.Encoder()


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


@dataclass
class Truth:
    """What the generated transcripts contain, call by call, summed as a peer would."""

    calls: int = 0
    by_day_model: dict[tuple[str, str], dict[str, int]] = field(default_factory=lambda: defaultdict(_zero))
    by_session: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(_zero))

    def add(self, day: str, model: str, session: str, usage: dict[str, int]) -> None:
        self.calls += 1
        for bucket in (self.by_day_model[(day, model)], self.by_session[session]):
            for key, value in usage.items():
                bucket[key] += value
            bucket["calls"] += 1

    def total(self) -> dict[str, int]:
        out = _zero()
        for bucket in self.by_day_model.values():
            for key, value in bucket.items():
                out[key] += value
        return out


def _zero() -> dict[str, int]:
    return defaultdict(int)


def _code_text(rng: random.Random, size: int) -> str:
    lines, used, number = [], 0, 1
    while used < size:
        line = f"{number}\t{rng.choice(_CODE)}"
        lines.append(line)
        used += len(line) + 1
        number += 1
    return "\n".join(lines)


def _claude_usage(rng: random.Random, long_prompts: bool = False) -> dict[str, Any]:
    write = rng.choice((0, 0, rng.randint(200, 9000)))
    one_hour = rng.choice((0, write // 3, write)) if write else 0
    read = rng.randint(8_000, 160_000)
    if long_prompts and rng.random() < 0.3:  # past the 200k long-context threshold
        read = rng.randint(195_000, 260_000)
    return {
        "input_tokens": rng.randint(3, 600),
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": rng.randint(12, 2_400),
        "output_tokens_details": {"thinking_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": one_hour, "ephemeral_5m_input_tokens": write - one_hour},
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
    }


class _ClaudeWriter:
    def __init__(self, rng: random.Random, truth: Truth, cwd: str, session: str, started: datetime) -> None:
        self.rng, self.truth, self.cwd, self.session = rng, truth, cwd, session
        self.clock = started
        self.parent: str | None = None
        self.long_prompts = False
        self.branch = "main"

    def _base(self, kind: str, sidechain: bool, agent: str | None) -> dict[str, Any]:
        self.clock += timedelta(milliseconds=self.rng.randint(20, 4000))
        this = str(uuid.UUID(int=self.rng.getrandbits(128)))
        line: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": sidechain}
        if agent:
            line["agentId"] = agent
        line.update(
            type=kind,
            uuid=this,
            timestamp=_iso(self.clock),
            userType="external",
            entrypoint="cli",
            cwd=self.cwd,
            sessionId=self.session,
            version="2.1.332",
            gitBranch=self.branch,
        )
        self.parent = this
        return line

    def conversation(
        self, out: list[bytes], turns: int, model: str, result_size: tuple[int, int], *, agent: str | None = None
    ) -> None:
        sidechain = agent is not None
        rng = self.rng
        prompt = self._base("user", sidechain, agent)
        prompt["message"] = {"role": "user", "content": "Fix the failing order total test and explain the cause."}
        out.append(_encoder.encode(prompt))
        for turn in range(turns):
            last = turn == turns - 1
            out.append(
                _encoder.encode(
                    {
                        "type": "api-request-blob",
                        "sessionId": self.session,
                        "hash": f"{rng.getrandbits(128):032x}",
                        "message": {"role": "system", "content": [{"type": "text", "text": _code_text(rng, 1500)}]},
                    }
                )
            )
            usage = _claude_usage(rng, self.long_prompts)
            message_id = f"msg_{rng.getrandbits(96):024x}"
            request_id = f"req_{rng.getrandbits(96):024x}"
            tool_id = f"toolu_{rng.getrandbits(96):024x}"
            tool = rng.choice(TOOLS)
            path = f"{self.cwd}/api/orders/{rng.choice(('service', 'models', 'views', 'tasks'))}.py"
            blocks: list[dict[str, Any]] = [{"type": "text", "text": "Let me look at how the total is computed."}]
            if not last:
                tool_input = {"file_path": path} if tool in ("Read", "Edit", "Write") else {"command": "pytest -q"}
                blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input})
            for index, block in enumerate(blocks):
                line = self._base("assistant", sidechain, agent)
                line["message"] = {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [block],
                    "stop_reason": "end_turn" if last else "tool_use",
                    "stop_sequence": None,
                    "usage": usage,
                }
                line["apiBlockIndex"] = index
                line["requestId"] = request_id
                out.append(_encoder.encode(line))
            self.truth.add(
                self.clock.strftime("%Y-%m-%d"),
                model,
                self.session,
                {
                    "input_tokens": usage["input_tokens"],
                    "output_tokens": usage["output_tokens"],
                    "cache_creation_tokens": usage["cache_creation_input_tokens"],
                    "cache_read_tokens": usage["cache_read_input_tokens"],
                },
            )
            if last:
                break
            content = _code_text(rng, rng.randint(*result_size))
            result = self._base("user", sidechain, agent)
            result["message"] = {
                "role": "user",
                "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": content}],
            }
            result["toolUseResult"] = {"type": "text", "file": {"filePath": path, "content": content}}
            out.append(_encoder.encode(result))
            if rng.random() < 0.2:
                system = self._base("system", sidechain, agent)
                system.update(subtype="stop_hook_summary", hookCount=1, hookErrors=[], level="suggestion")
                out.append(_encoder.encode(system))


def write_claude_sessions(
    config_dir: Path,
    *,
    sessions: int = 3,
    turns: int = 6,
    seed: int = 7,
    start: datetime | None = None,
    result_size: tuple[int, int] = (200, 4000),
    subagent_every: int = 2,
    projects: int = 2,
    models: tuple[str, ...] = CLAUDE_MODELS,
    long_prompts: bool = False,
    branches: tuple[str, ...] = ("main",),
) -> Truth:
    """Write ``sessions`` Claude Code transcripts under ``config_dir/projects``; return the truth."""
    rng = random.Random(seed)
    truth = Truth()
    start = start or datetime(2026, 11, 20, 22, 30, tzinfo=UTC)
    for number in range(sessions):
        project = f"/home/dev/shop-{number % projects}"
        folder = config_dir / "projects" / project.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        session = str(uuid.UUID(int=rng.getrandbits(128)))
        began = start + timedelta(hours=7 * number, minutes=rng.randint(0, 59))
        writer = _ClaudeWriter(rng, truth, project, session, began)
        writer.long_prompts = long_prompts
        writer.branch = branches[number % len(branches)]
        lines: list[bytes] = [
            _encoder.encode(
                {"type": "queue-operation", "operation": "enqueue", "timestamp": _iso(began), "sessionId": session}
            )
        ]
        model = models[number % max(1, len(models) - 1)]
        writer.conversation(lines, turns, model, result_size)
        (folder / f"{session}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        if subagent_every and number % subagent_every == 0:
            agent = f"a{rng.getrandbits(64):016x}"
            sub_lines: list[bytes] = []
            writer.conversation(sub_lines, max(2, turns // 3), models[-1], result_size, agent=agent)
            sub_dir = folder / session / "subagents"
            sub_dir.mkdir(parents=True, exist_ok=True)
            (sub_dir / f"agent-{agent}.jsonl").write_bytes(b"\n".join(sub_lines) + b"\n")
    return truth


def _codex_usage(rng: random.Random) -> dict[str, int]:
    total_in = rng.randint(2_000, 60_000)
    cached = rng.randint(0, total_in - 1000)
    out = rng.randint(50, 3_000)
    reasoning = rng.randint(0, out // 2)
    return {
        "input_tokens": total_in,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": reasoning,
        "total_tokens": total_in + out,
    }


def write_codex_sessions(
    codex_home: Path, *, sessions: int = 3, turns: int = 5, seed: int = 11, start: datetime | None = None
) -> Truth:
    """Write Codex rollouts under ``codex_home/sessions/YYYY/MM/DD``; the truth uses Codex's own fields."""
    rng = random.Random(seed)
    truth = Truth()
    start = start or datetime(2026, 11, 21, 23, 10, tzinfo=UTC)
    for number in range(sessions):
        clock = start + timedelta(hours=9 * number)
        session = str(uuid.UUID(int=rng.getrandbits(128)))
        folder = codex_home / "sessions" / f"{clock:%Y}" / f"{clock:%m}" / f"{clock:%d}"
        folder.mkdir(parents=True, exist_ok=True)
        model = CODEX_MODELS[number % 2]
        lines: list[dict[str, Any]] = [
            {
                "timestamp": _iso(clock),
                "type": "session_meta",
                "payload": {
                    "id": session,
                    "timestamp": _iso(clock),
                    "cwd": "/home/dev/shop-0",
                    "originator": "codex_cli_rs",
                    "cli_version": "0.63.0",
                    "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main"},
                },
            }
        ]
        running = dict.fromkeys(
            ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"), 0
        )
        for _turn in range(turns):
            clock += timedelta(seconds=rng.randint(5, 900))
            lines.append(
                {
                    "timestamp": _iso(clock),
                    "type": "turn_context",
                    "payload": {"cwd": "/home/dev/shop-0", "approval_policy": "on-request", "model": model},
                }
            )
            lines.append(
                {
                    "timestamp": _iso(clock),
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "shell",
                        "arguments": '{"command":["bash","-lc","pytest -q"]}',
                        "call_id": f"call_{rng.getrandbits(64):016x}",
                    },
                }
            )
            usage = _codex_usage(rng)
            for key, value in usage.items():
                running[key] += value
            clock += timedelta(seconds=rng.randint(1, 30))
            lines.append(
                {
                    "timestamp": _iso(clock),
                    "type": "event_msg",
                    "payload": {
                        "type": "token_count",
                        "info": {
                            "total_token_usage": dict(running),
                            "last_token_usage": usage,
                            "model_context_window": 272_000,
                        },
                        "rate_limits": {"primary": {"used_percent": 12.0, "window_minutes": 300}},
                    },
                }
            )
            truth.add(
                clock.strftime("%Y-%m-%d"),
                model,
                session,
                {
                    "input_tokens": usage["input_tokens"],
                    "cached_input_tokens": usage["cached_input_tokens"],
                    "output_tokens": usage["output_tokens"],
                    "reasoning_output_tokens": usage["reasoning_output_tokens"],
                    "total_tokens": usage["total_tokens"],
                },
            )
        name = f"rollout-{clock:%Y-%m-%dT%H-%M-%S}-{session}.jsonl"
        (folder / name).write_bytes(b"\n".join(_encoder.encode(line) for line in lines) + b"\n")
    return truth
