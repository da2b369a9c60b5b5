"""Record a real Claude Code session against the scripted server into examples/sessions/claude-code-<version>/.

    uv run python tests/agent_harness/record_sessions.py [--out DIR]

Writes hook-payloads.jsonl (every hook payload as received on stdin), the transcripts (main session,
subagent, and the resumed runs that append to the main one) and server-log.jsonl (what the server sent).
The run happens in fixed paths (/tmp/ctxops-record/{project,home}) so no path needs scrubbing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `agent_harness` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_harness import (
    Scenario,
    ScriptedModelServer,
    claude_code_version,
    ensure_claude_code,
    hook_recorder_command,
    run_claude,
    subagent,
    tool_use,
    transcripts,
    turn,
    write_hooks,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = Path("/tmp/ctxops-record")
FAKE_SECRET = "sk-test-FAKEFAKEFAKEFAKE0123456789abcdef"  # not a real key: redaction tests look for it
CORRECTION = "no, don't print the result, instead write it to result.txt"


def first_scenario(project: Path, py: str) -> Scenario:
    app = project / "app.py"
    return Scenario(
        [
            turn("I'll read the code first.", tool_use("Read", {"file_path": str(app)})),
            turn(tool_use("Edit", {"file_path": str(app), "old_string": "return 1", "new_string": "return 2"})),
            turn(tool_use("Write", {"file_path": str(project / "NOTES.md"), "content": "# Notes\n\nf returns 2.\n"})),
            turn(
                tool_use(
                    "Bash",
                    {"command": f"{py} -c 'import app, sys; sys.exit(app.f() != 3)'", "description": "failing check"},
                )
            ),
            turn(
                tool_use(
                    "Bash",
                    {
                        "command": f"export OPENAI_API_KEY={FAKE_SECRET} && {py} -c 'import app; print(app.f())'",
                        "description": "run with the key set",
                    },
                )
            ),
            turn(
                tool_use("Bash", {"command": "sleep 5", "timeout": 1000, "description": "slow command that times out"})
            ),
            turn(tool_use("Read", {"file_path": str(project / "missing.py")})),
            turn(
                subagent(
                    "Check that app.f() returns 2 and report.",
                    [turn(tool_use("Read", {"file_path": str(app)})), turn("app.f() returns 2.")],
                    description="Verify f",
                )
            ),
            turn("f now returns 2; it prints 2."),
        ]
    )


def resumed_scenario(project: Path, py: str) -> Scenario:
    command = f'{py} -c \'import app; open("result.txt", "w").write(str(app.f()))\''
    return Scenario(
        [
            turn(
                "Understood, writing it to a file instead.",
                tool_use("Bash", {"command": command, "description": "write result"}),
            ),
            turn(tool_use("Read", {"file_path": str(project / "result.txt")})),
            turn("result.txt now holds 2."),
        ]
    )


def record(out: Path) -> None:
    claude = ensure_claude_code()
    shutil.rmtree(BASE, ignore_errors=True)
    project, home, hooks_log = BASE / "project", BASE / "home", BASE / "hook-payloads.jsonl"
    project.mkdir(parents=True)
    home.mkdir()
    (project / "app.py").write_text("def f():\n    return 1\n")
    write_hooks(project, hook_recorder_command(hooks_log))
    py = shlex.quote(sys.executable)
    server_log = BASE / "server-full-log.jsonl"
    with ScriptedModelServer(first_scenario(project, py), seed=2026, log_path=server_log) as server:
        first = run_claude(
            project, home, "make f return 2 and show me what it prints", server.url, executable=claude
        ).check()
        server.set_scenario(resumed_scenario(project, py))
        resume = ["--resume", first.session_id]
        run_claude(project, home, CORRECTION, server.url, extra_args=resume, executable=claude).check()
        run_claude(project, home, "/compact", server.url, extra_args=resume, executable=claude).check()
        responses = server.responses()

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.copy(hooks_log, out / "hook-payloads.jsonl")
    projects = home / ".claude" / "projects"
    for path in transcripts(home):
        target = out / "transcripts" / path.relative_to(projects)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    with (out / "server-log.jsonl").open("w", encoding="utf-8") as fh:
        for entry in responses:
            fh.write(json.dumps(entry, sort_keys=True) + "\n")
    events = sorted({json.loads(line)["hook_event_name"] for line in hooks_log.read_text().splitlines()})
    print(f"recorded session {first.session_id} into {out}")
    print("hook events:", ", ".join(events))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    default = ROOT / "examples" / "sessions" / f"claude-code-{claude_code_version()}"
    parser.add_argument("--out", type=Path, default=default)
    args = parser.parse_args(argv)
    record(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
