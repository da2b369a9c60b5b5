"""Which conversation a /v1/messages request belongs to, and which scripted turn answers it.

Claude Code sends three kinds of requests to the model:
- the MAIN conversation: the user's prompt, with the full tool list (it includes the Agent tool);
- SUBAGENT conversations: started by an Agent tool call; their first user message is the Agent call's
  `prompt`, which is how they are told apart (the scenario knows every prompt it handed out); Claude Code
  also marks them with `cc_is_subagent=true` in the system prompt's billing line, which catches
  subagents the script did not start;
- AUXILIARY calls (title/topic generation, summaries, quota probes, hook/prompt classifiers): no tools,
  or a tool list without the Agent tool and no known subagent prompt. They get a short generic reply
  and never consume the script.
- COMPACTION calls (`/compact`, auto-compact): the main conversation's own request shape (same tools)
  whose last user message asks for an <analysis>/<summary> reply and forbids tools. They get a
  well-formed summary (otherwise the client retries) and never consume the script.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from .anthropic_wire import OutgoingMessage
from .scenario import Scenario, Text, ToolUse, Turn, Usage, seeded_usage

AGENT_TOOL_NAMES = frozenset({"Agent", "Task"})
AUX_REPLY = "OK."
COMPACT_REPLY = (
    "<analysis>Scripted compaction.</analysis>\n"
    "<summary>The user and the assistant worked through a scripted test session.</summary>"
)


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


@dataclass
class Thread:
    """One scripted conversation (main or a subagent): its turns and how far it has got."""

    name: str
    turns: tuple[Turn, ...]
    final_text: str
    position: int = 0
    last_tool_ids: frozenset[str] = frozenset()
    answered: dict[str, OutgoingMessage] = field(default_factory=dict)


@dataclass(frozen=True)
class Routed:
    role: str  # "main" | "subagent" | "aux"
    thread: str
    turn_index: int | None  # index in the thread's script; None for aux and for the exhausted-script reply
    message: OutgoingMessage
    note: str | None = None


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return []


def _tool_result_ids(content: Any) -> set[str]:
    if not isinstance(content, list):
        return set()
    return {b["tool_use_id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_result"}


def _is_subagent_request(body: dict[str, Any]) -> bool:
    """Claude Code marks a subagent's requests in the billing line of the system prompt."""
    system = body.get("system")
    return any("cc_is_subagent=true" in t for t in _texts(system))


def _is_compaction_request(body: dict[str, Any]) -> bool:
    messages = conversation_messages(body)
    if not messages or messages[-1].get("role") != "user":
        return False
    last = " ".join(_texts(messages[-1].get("content")))
    return "<summary>" in last and "summar" in last.lower() and len(messages) > 1


def conversation_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The user/assistant messages (Claude Code also interleaves `system` role messages)."""
    return [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") in ("user", "assistant")]


class Router:
    """Maps each request to a thread and hands out scripted turns, idempotently for retried requests."""

    def __init__(self, scenario: Scenario, seed: int) -> None:
        self._lock = threading.Lock()
        self._seed = seed
        self._aux_count = 0
        self.main = Thread("main", tuple(scenario.turns), scenario.final_text)
        self.responder = scenario.responder
        self.subagents: dict[str, Thread] = {}  # subagent prompt -> thread
        self._unscripted_subagent = Thread("subagent-unscripted", (), "Subagent finished.")

    def set_scenario(self, scenario: Scenario) -> None:
        """Replace the main script (e.g. before a resumed run); subagent threads are kept."""
        with self._lock:
            self.main = Thread("main", tuple(scenario.turns), scenario.final_text)
            self.responder = scenario.responder

    def route(self, body: dict[str, Any]) -> Routed:
        with self._lock:
            if _is_compaction_request(body):
                return self._canned(body, "compact", COMPACT_REPLY)
            thread = self._thread_for(body)
            if thread is None:
                return self._canned(body, "aux", AUX_REPLY)
            return self._advance(thread, body)

    # -- classification -------------------------------------------------------------------------------

    def _thread_for(self, body: dict[str, Any]) -> Thread | None:
        messages = conversation_messages(body)
        if not messages or messages[0].get("role") != "user":
            return None
        first_texts = _texts(messages[0].get("content"))
        for prompt, thread in self.subagents.items():
            if any(prompt in t for t in first_texts):
                return thread
        if _is_subagent_request(body):  # a subagent the script did not start (e.g. one Claude Code spawned itself)
            return self._unscripted_subagent
        tool_names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if tool_names & AGENT_TOOL_NAMES:
            return self.main
        return None

    # -- answering ------------------------------------------------------------------------------------

    def _canned(self, body: dict[str, Any], role: str, reply: str) -> Routed:
        self._aux_count += 1
        drawn = seeded_usage(self._seed, f"{role}:{self._aux_count}")
        usage = Usage(
            drawn.input_tokens, min(drawn.output_tokens, 60), cache_read_input_tokens=drawn.cache_read_input_tokens
        )
        message = OutgoingMessage(new_id("msg_"), str(body.get("model", "unknown")), ((Text(reply), None),), usage)
        return Routed(role, role, None, message)

    def _advance(self, thread: Thread, body: dict[str, Any]) -> Routed:
        role = "main" if thread is self.main else "subagent"
        messages = conversation_messages(body)
        # With a responder the answer depends on the whole request (its tools, its system prompt), so only a
        # request identical in everything is a retry.
        keyed: Any = body if self.responder and thread is self.main else messages
        key = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()
        if key in thread.answered:  # a retry of a request already answered: same answer
            message = thread.answered[key]
            return Routed(role, thread.name, None, message, note="retry")
        last = messages[-1]
        note = None
        results = _tool_result_ids(last.get("content")) if last.get("role") == "user" else set()
        if results and not results & thread.last_tool_ids:
            note = f"tool_result ids {sorted(results)} do not answer the previous turn {sorted(thread.last_tool_ids)}"
        answer = self.responder(body, thread.position) if self.responder and thread is self.main else None
        if answer is not None:
            index: int | None = thread.position
            scripted = answer
            thread.position += 1
        elif thread.position < len(thread.turns) and not (self.responder and thread is self.main):
            index = thread.position
            scripted = thread.turns[thread.position]
            thread.position += 1
        else:
            index, scripted = None, Turn((Text(thread.final_text),))
        message = self._materialise(thread, scripted, index, body)
        thread.answered[key] = message
        thread.last_tool_ids = frozenset(i for b, i in message.blocks if i is not None)
        return Routed(role, thread.name, index, message, note=note)

    def _materialise(self, thread: Thread, scripted: Turn, index: int | None, body: dict[str, Any]) -> OutgoingMessage:
        blocks: list[tuple[Text | ToolUse, str | None]] = []
        for block in scripted.blocks:
            if isinstance(block, ToolUse):
                blocks.append((block, new_id("toolu_")))
                if block.subagent_turns is not None:
                    prompt = str(block.input.get("prompt", ""))
                    if prompt in self.subagents:
                        raise ValueError(f"subagent prompt used twice in one scenario: {prompt!r}")
                    name = f"subagent-{len(self.subagents) + 1}"
                    self.subagents[prompt] = Thread(name, block.subagent_turns, "Subagent finished.")
            else:
                blocks.append((block, None))
        usage_key = f"{thread.name}:{index if index is not None else 'final'}:{len(thread.answered)}"
        usage = scripted.usage or seeded_usage(self._seed, usage_key)
        model = scripted.model or str(body.get("model", "unknown"))
        return OutgoingMessage(new_id("msg_"), model, tuple(blocks), usage)
