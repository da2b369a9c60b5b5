"""The main conversation's scripted turns for the OpenAI and Gemini wires, handed out in order.

Each request that is new (its conversation so far was not answered before) gets the next turn; a retry
of a request already answered gets the same answer again. When the script runs out, the answer is the
scenario's `final_text`. (The Anthropic wire has its own router with subagent threads: conversations.py.)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .scenario import Scenario, Text, Turn, Usage, seeded_usage

T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    message: T
    turn_index: int | None  # index in the script; None for the exhausted-script reply
    retry: bool


def conversation_key(history: Any) -> str:
    return hashlib.sha256(json.dumps(history, sort_keys=True, default=str).encode()).hexdigest()


class TurnScript:
    """Thread-safe: a client may send requests from several threads."""

    def __init__(self, scenario: Scenario, seed: int) -> None:
        self._lock = threading.Lock()
        self._seed = seed
        self._turns = tuple(scenario.turns)
        self._final = scenario.final_text
        self._position = 0
        self._answered: dict[str, Answer[Any]] = {}
        self._responder = scenario.responder

    def answer(self, history: Any, build: Callable[[Turn, Usage], T], body: Any = None) -> Answer[T]:
        """The answer to a request whose conversation so far is `history`; `build` materialises a turn.

        With the scenario's responder, the turn comes from the whole request `body` (and only a request
        identical in everything is a retry)."""
        responder = self._responder if body is not None else None
        key = conversation_key(body if responder else history)
        with self._lock:
            if key in self._answered:
                done = self._answered[key]
                return Answer(done.message, done.turn_index, retry=True)
            index: int | None
            decided = responder(body, self._position) if responder else None
            if decided is not None:
                index, scripted = self._position, decided
                self._position += 1
            elif self._position < len(self._turns) and not responder:
                index, scripted = self._position, self._turns[self._position]
                self._position += 1
            else:
                index, scripted = None, Turn((Text(self._final),))
            label = index if index is not None else "final"
            usage = scripted.usage or seeded_usage(self._seed, f"main:{label}:{len(self._answered)}")
            answer: Answer[T] = Answer(build(scripted, usage), index, retry=False)
            self._answered[key] = answer
            return answer

    @property
    def position(self) -> int:
        with self._lock:
            return self._position
