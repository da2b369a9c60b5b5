"""What the scripted model says: assistant turns made of text and tool_use blocks, with scripted usage."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token usage the server reports for one response (Anthropic's field names)."""

    input_tokens: int
    output_tokens: int
    cache_creation_5m: int = 0
    cache_creation_1h: int = 0
    cache_read_input_tokens: int = 0
    # Server tools the provider ran and bills per request (usage.server_tool_use), and where inference ran.
    web_search_requests: int = 0
    web_fetch_requests: int = 0
    inference_geo: str | None = None

    @property
    def cache_creation_input_tokens(self) -> int:
        return self.cache_creation_5m + self.cache_creation_1h

    def start_dict(self) -> dict[str, Any]:
        """The usage object of `message_start` (output_tokens is the running count, 1 at start)."""
        return {**self.full_dict(), "output_tokens": 1}

    def full_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.cache_creation_5m,
                "ephemeral_1h_input_tokens": self.cache_creation_1h,
            },
            "output_tokens": self.output_tokens,
            "service_tier": "standard",
            **self.extra_dict(),
        }

    def extra_dict(self) -> dict[str, Any]:
        """``server_tool_use`` and ``inference_geo`` when this response has them (also in ``message_delta``)."""
        extra: dict[str, Any] = {}
        if self.web_search_requests or self.web_fetch_requests:
            extra["server_tool_use"] = {
                "web_search_requests": self.web_search_requests,
                "web_fetch_requests": self.web_fetch_requests,
            }
        if self.inference_geo is not None:
            extra["inference_geo"] = self.inference_geo
        return extra


def seeded_usage(seed: int, key: str) -> Usage:
    """Deterministic, varied usage for the response named `key` (e.g. "main:3") of a server seeded `seed`."""
    rng = random.Random(f"{seed}:{key}")
    return Usage(
        input_tokens=rng.randint(3, 400),
        output_tokens=rng.randint(20, 900),
        cache_creation_5m=rng.randint(0, 6000),
        cache_creation_1h=rng.choice([0, 0, rng.randint(100, 3000)]),
        cache_read_input_tokens=rng.randint(0, 40000),
    )


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict[str, Any]
    # Set only for a subagent call: the turns the subagent's own conversation gets.
    subagent_turns: tuple[Turn, ...] | None = None
    # OpenAI Responses only: the namespace of a namespaced tool (Codex puts MCP tools in "mcp__SERVER").
    namespace: str | None = None
    # OpenAI Responses only: a freeform (custom) tool such as Codex's apply_patch; `input["input"]` is its text.
    freeform: bool = False


Block = Text | ToolUse


@dataclass(frozen=True)
class Turn:
    """One assistant message of a conversation."""

    blocks: tuple[Block, ...]
    usage: Usage | None = None  # None: drawn from the server's seed
    model: str | None = None  # None: echo the requested model

    @property
    def tool_uses(self) -> tuple[ToolUse, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolUse))


@dataclass
class Scenario:
    """The ordered assistant turns of the MAIN conversation (subagent scripts ride on their Agent call)."""

    turns: list[Turn] = field(default_factory=list)
    final_text: str = "All done."
    # When set, the main conversation's turns come from here instead of `turns`: called with the request
    # body and the turn's index, it returns the turn (None: the final text). Replies that depend on what a
    # request holds (which tools it offers, what it read) make arms of a bench differ for real.
    responder: Callable[[dict[str, Any], int], Turn | None] | None = None

    def __post_init__(self) -> None:
        for i, t in enumerate(self.turns):
            if not isinstance(t, Turn):
                raise TypeError(f"Scenario turn {i} is {type(t).__name__}, expected Turn (use turn(...))")


def text(value: str) -> Text:
    return Text(value)


def tool_use(name: str, input: dict[str, Any], *, namespace: str | None = None) -> ToolUse:
    return ToolUse(name, dict(input), namespace=namespace)


def freeform_tool(name: str, text: str) -> ToolUse:
    """A call of a freeform tool (OpenAI Responses `custom_tool_call`), e.g. Codex's `apply_patch`."""
    return ToolUse(name, {"input": text}, freeform=True)


def subagent(
    prompt: str,
    turns: Sequence[Turn],
    *,
    description: str = "Scripted subagent task",
    subagent_type: str = "general-purpose",
    tool_name: str = "Agent",
    background: bool = False,
) -> ToolUse:
    """A call of Claude Code's Agent tool whose subagent conversation is answered with `turns`.

    The server recognises the subagent's requests by their first user message, which Claude Code fills
    with `prompt`, so each subagent prompt in a scenario must be unique. Claude Code runs agents in the
    background by default (the main turn gets an immediate "launched" result and a notification later);
    `background=False` makes the main conversation wait for the subagent, which keeps tests ordered.
    """
    return ToolUse(
        tool_name,
        {
            "description": description,
            "prompt": prompt,
            "subagent_type": subagent_type,
            "run_in_background": background,
        },
        subagent_turns=tuple(turns),
    )


def turn(*blocks: Block | str, usage: Usage | None = None, model: str | None = None) -> Turn:
    """An assistant turn; plain strings become text blocks."""
    if not blocks:
        raise ValueError("a turn needs at least one block")
    made = tuple(Text(b) if isinstance(b, str) else b for b in blocks)
    return Turn(made, usage=usage, model=model)
