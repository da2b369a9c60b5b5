"""Helpers shared by the adapters: tool classification, file paths, output text, exit codes."""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import lazy

from ctxops_hooks_capture import jsontext
from ctxops_hooks_capture.draft import Draft

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from typing import Any

SHELL_TOOLS = frozenset(
    {"bash", "powershell", "shell", "run_shell_command", "local_shell", "exec_command", "container.exec", "terminal"}
)
EDIT_TOOLS = frozenset(
    {
        "edit",
        "multiedit",
        "write",
        "notebookedit",
        "write_file",
        "replace",
        "apply_patch",
        "strreplace",
        "str_replace",
        "delete",
        "create_file",
        "edit_file",
        "search_replace",
    }
)
READ_TOOLS = frozenset({"read", "read_file", "read_many_files", "notebookread", "view", "open_file", "cat"})

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "absolute_path", "target_file", "filename")
_PATHS_KEYS = ("paths", "file_paths", "files")
_PATCH_FILE = lazy(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", regex.MULTILINE)
_EXIT_LINE = lazy(r"^\s*(?:Exit code|exit code|exit status|Exit status)[:\s]+(-?\d+)")
# Gemini CLI's shell tool reports a finished command's status as a line of its ``llmContent``
# ("Exit Code: 2"); its ``error`` field is only for a command that could not start.
_EXIT_CODE_LINE = lazy(r"^[ \t]*Exit Code:[ \t]*(-?\d+)[ \t]*$", regex.MULTILINE)


def tool_class(tool_name: str | None) -> str:
    """'shell', 'edit', 'read' or 'other' for a tool name of any agent."""
    name = (tool_name or "").lower()
    if name in SHELL_TOOLS:
        return "shell"
    if name in EDIT_TOOLS:
        return "edit"
    if name in READ_TOOLS:
        return "read"
    return "other"


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    return jsontext.dumps(value)


def prompt_text(value: Any) -> str:
    """A prompt as the user wrote it: ctxops's own injected blocks taken out (``injected.strip_injected``)."""
    from ctxops_hooks_capture.injected import strip_injected

    return strip_injected(as_str(value) or "")


def paths_from_input(tool_input: Any) -> list[str]:
    """File paths named by a tool's arguments (including those inside an ``apply_patch`` body)."""
    found: list[str] = []
    data = as_dict(tool_input)
    for key in _PATH_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value:
            found.append(value)
    for key in _PATHS_KEYS:
        value = data.get(key)
        if isinstance(value, list):
            found.extend(v for v in value if isinstance(v, str) and v)
    for key in ("command", "patch", "input"):
        value = data.get(key)
        if isinstance(value, str) and "*** Begin Patch" in value:
            found.extend(a or b for a, b in _PATCH_FILE.findall(value))
    if isinstance(tool_input, str) and "*** Begin Patch" in tool_input:
        found.extend(a or b for a, b in _PATCH_FILE.findall(tool_input))
    unique: list[str] = []
    for raw_path in found:
        path = raw_path.strip()
        if path and path not in unique:
            unique.append(path)
    return unique


def command_from_input(tool_input: Any) -> str | None:
    data = as_dict(tool_input)
    command = data.get("command") if data else tool_input
    if isinstance(command, list):  # Codex passes argv lists for some shells
        return " ".join(str(part) for part in command)
    return command if isinstance(command, str) else None


def output_text(response: Any) -> str | None:
    """The readable output of a tool response: stdout+stderr, a string result, or an error."""
    if response is None:
        return None
    if isinstance(response, str):
        return response
    if isinstance(response, list):  # content blocks
        parts = [as_str(b.get("text")) if isinstance(b, dict) else as_str(b) for b in response]
        return "\n".join(p for p in parts if p)
    data = as_dict(response)
    if not data:
        return as_str(response)
    if isinstance(data.get("content"), list):  # an MCP result (Codex: {"content": [blocks], "isError": ...})
        return output_text(data["content"])
    pieces: list[str] = []
    for key in ("stdout", "output", "aggregated_output", "formatted_output", "llmContent", "result", "stderr", "error"):
        value = data.get(key)
        text = value if isinstance(value, str) else (as_str(value) if value not in (None, "", [], {}) else None)
        if text:
            pieces.append(text)
    return "\n".join(pieces) if pieces else None


def exit_status_of(response: Any, error: str | None = None) -> int | None:
    data = as_dict(response)
    for key in ("exit_code", "exitCode", "returncode", "return_code", "status_code"):
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    for text in (error, output_text(response) if isinstance(response, str) else None):
        if text:
            match = _EXIT_LINE.match(text)
            if match:
                return int(match.group(1))
    for key in ("llmContent", "output", "returnDisplay"):
        text = data.get(key) if data else (response if isinstance(response, str) and key == "output" else None)
        if isinstance(text, str) and "Exit Code:" in text:
            found = _EXIT_CODE_LINE.findall(text[-4096:])  # the status line comes last
            if found:
                return int(found[-1])
    return None


def edit_summary(tool_name: str, tool_input: Any, response: Any) -> str:
    """'Edit path (+a -r)' from a structured patch when there is one, else the tool name."""
    added = removed = 0
    for hunk in as_dict(response).get("structuredPatch") or []:
        for line in as_dict(hunk).get("lines") or []:
            if isinstance(line, str) and line.startswith("+"):
                added += 1
            elif isinstance(line, str) and line.startswith("-"):
                removed += 1
    stats = f" (+{added} -{removed})" if added or removed else ""
    return f"{tool_name}{stats}"


def tool_drafts(
    *,
    event_name: str,
    tool_name: str | None,
    tool_input: Any,
    tool_response: Any,
    base: dict[str, Any],
    failed: bool = False,
    error: str | None = None,
    interrupted: bool = False,
    exit_unknown: bool = False,
) -> Draft:
    """A Draft for a finished tool call, classified as command, file edit, file read or other tool call.

    ``exit_unknown``: the agent does not report a command's exit status (Cursor), so none is guessed.
    """
    name = tool_name or "tool"
    klass = tool_class(name)
    files = paths_from_input(tool_input)
    if klass == "shell":
        command = command_from_input(tool_input)
        output = output_text(tool_response)
        if error:
            output = f"{output}\n{error}" if output else error
        status = exit_status_of(tool_response, error)
        if status is None and not exit_unknown:
            status = 1 if failed else (130 if interrupted else 0)
        return Draft(
            kind="command_execution",
            event_name=event_name,
            tool_name=name,
            command=command,
            output=output,
            exit_status=status,
            interrupted=interrupted,
            files=[],
            **base,
        )
    if klass == "edit":
        text = edit_summary(name, tool_input, tool_response)
        if failed:
            text += f" failed: {error or output_text(tool_response) or ''}".rstrip()
        return Draft(kind="file_modification", event_name=event_name, tool_name=name, text=text, files=files, **base)
    if klass == "read":
        failure = f"{name} failed: {error or output_text(tool_response) or ''}".rstrip() if failed else None
        return Draft(
            kind="file_read",
            event_name=event_name,
            tool_name=name,
            files=files,
            text=failure,
            exit_status=1 if failed else None,
            **base,
        )
    summary = as_str(tool_input) or ""
    result = error or output_text(tool_response) or ""
    text = f"{name} {summary}".strip()
    if result:
        text += f"\n-> {result}"
    return Draft(
        kind="tool_call",
        event_name=event_name,
        tool_name=name,
        text=text,
        files=files,
        exit_status=1 if failed else None,
        interrupted=interrupted,
        **base,
    )
