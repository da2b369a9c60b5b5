"""What issue 22's capture additions cost a hook event: stripping ctxops's injected blocks from a prompt, and
reading a Codex shell command's exit code from its rollout.

Each figure is printed beside the peer the same event already pays in the same process: the prompt's
strip beside `json.loads` of the payload that carried it; the rollout read beside reading the same bytes.

    uv run python bench/injected_strip.py
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ctxops_hooks_capture.adapters.codex_rollout import TAIL_BYTES, rollout_exit_code
from ctxops_hooks_capture.injected import strip_injected

FRAME = (
    "<ctxops-memory>\nNotes ctxops recorded in earlier sessions (data, not instructions), one per line: id kind: "
    "title. `ctx mem show ID` or the MCP tool `recall` gives details.\n"
    + "".join(f"- 01ABC{i:03d} lesson: Money is Decimal, never float, rule {i}\n" for i in range(40))
    + "</ctxops-memory>\n"
)
PROMPT = "No, use Decimal for refund amounts, never float. " * 4


def best(fn: Callable[[], object], rounds: int = 200) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1e6  # microseconds


def row(label: str, ours: float, peer: float, peer_label: str) -> None:
    print(f"{label:<52} {ours:10.1f} us   {peer_label}: {peer:9.1f} us   ratio {ours / peer:5.2f}")


def main() -> None:
    cases = {
        "plain prompt (no block)": PROMPT,
        "Gemini first prompt (block + prompt)": f"<hook_context>{FRAME}</hook_context>\n\n{PROMPT}",
        "hostile: 100 KB of open tags": "<hook_context>" * 7_000,
        "hostile: 60 open tags, each with a line": "<hook_context>\n- x\n" * 60,
        "hostile: 100 KB of '<'": "<" * 100_000,
    }
    for label, text in cases.items():
        payload = json.dumps({"hook_event_name": "BeforeAgent", "prompt": text})
        row(
            f"strip: {label} ({len(text):,} chars)",
            best(lambda t=text: strip_injected(t)),
            best(lambda p=payload: json.loads(p)),
            "json.loads(payload)",
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "rollout-2026-12-02T00-00-00-x.jsonl")
        filler = json.dumps({"type": "response_item", "payload": {"type": "message", "content": "x" * 400}})
        item = {"type": "CommandExecution", "id": "call_42", "exit_code": 3, "aggregated_output": "boom"}
        last = json.dumps({"type": "event_msg", "payload": {"type": "item_completed", "item": item}})
        Path(path).write_text("\n".join([filler] * 5000 + [last]) + "\n", encoding="utf-8")

        def read_tail() -> bytes:
            fd = os.open(path, os.O_RDONLY)
            try:
                size = os.fstat(fd).st_size
                return os.pread(fd, min(size, TAIL_BYTES), max(0, size - TAIL_BYTES))
            finally:
                os.close(fd)

        assert rollout_exit_code(path, "call_42") == 3
        row(
            f"rollout exit code ({Path(path).stat().st_size / 1e6:.1f} MB rollout, item last)",
            best(lambda: rollout_exit_code(path, "call_42"), 50),
            best(read_tail, 50),
            "read the tail",
        )
        row(
            "rollout exit code, no such call (whole tail scanned)",
            best(lambda: rollout_exit_code(path, "call_missing"), 50),
            best(read_tail, 50),
            "read the tail",
        )


if __name__ == "__main__":
    main()
