"""What an adapter makes of one payload, before ids, redaction, caps and session state are applied."""

from __future__ import annotations


class Draft:
    """One event as an adapter understood it; the capture pipeline turns it into an ``AgentEvent`` record.

    A plain slotted class: dataclasses would import ``inspect``, which the hook cannot afford on every event.
    """

    __slots__ = (
        "command",
        "cwd",
        "event_name",
        "exit_status",
        "files",
        "interrupted",
        "kind",
        "noise",
        "output",
        "pending",
        "prompt",
        "session_id",
        "task_id",
        "text",
        "tool_name",
        "tool_use_id",
        "ts",
    )

    def __init__(
        self,
        *,
        kind: str,
        event_name: str | None = None,
        session_id: str | None = None,
        task_id: str | None = None,
        cwd: str | None = None,
        tool_name: str | None = None,
        tool_use_id: str | None = None,
        text: str | None = None,
        output: str | None = None,
        files: list[str] | None = None,
        command: str | None = None,
        exit_status: int | None = None,
        ts: str | None = None,
        prompt: bool = False,
        pending: bool = False,
        interrupted: bool = False,
        noise: bool = False,
    ) -> None:
        self.kind = kind
        self.event_name = event_name
        self.session_id = session_id
        self.task_id = task_id
        self.cwd = cwd
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.text = text
        self.output = output
        self.files: list[str] = files if files is not None else []
        self.command = command
        self.exit_status = exit_status
        self.ts = ts
        # Flags for the pipeline, not stored as such.
        self.prompt = prompt  # a user prompt: candidate for correction detection
        self.pending = pending  # a tool is about to run (PreToolUse): remembered, not stored
        self.interrupted = interrupted  # a tool was interrupted or rejected
        self.noise = noise  # heartbeat / streaming chunk: dropped

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__ if getattr(self, name))
        return f"Draft({shown})"
