# ruff: noqa: PTH101, PTH108, PTH109, PTH110, PTH116, PTH118, SIM105
# os.path on the hook path: pathlib is not imported there (startup time).
"""The guard's hook handlers: one Claude Code hook payload in, the agent's output JSON (or None) out.

- ``PreToolUse`` (Bash): a recognised test, check or build command gets a trailer that prints its exit
  status, so a failing run still reaches ``PostToolUse`` (Claude Code routes a non-zero exit to
  ``PostToolUseFailure``, which cannot replace the output). The trailer is removed before the model sees
  anything.
- ``PostToolUse``: long outputs become summaries (``updatedToolOutput``, the tool's own shape) with the
  redacted original saved under ``.meta/outputs/``; unchanged re-reads get "unchanged since step N";
  very large reads get an outline plus the requested region; Grep/Glob floods are grouped and capped.
- ``SessionStart``, ``PreCompact``, ``PostCompact``: the session's read state is dropped.

Every handler returns None when it has nothing to change, and never raises (failures are logged to
``.meta/logs/guard.log``): a hook never breaks the agent.
"""

from __future__ import annotations

import os
import time

from ctxops_contracts.shared import jsonlite, regex
from ctxops_contracts.shared.layout import ensure_meta
from ctxops_contracts.shared.regex import compile as re_compile

from .config import GuardConfig, load_config
from .gate import MIN_REREAD, SUPPORTED_AGENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .reads import Outline

# Imports are deferred to the branches that need them: a hook pays Python's start-up on every tool
# call, and an untouched output must cost little more than that.

# The wrapped command's output goes to a spool file the PostToolUse hook reads in full: Claude Code cuts
# Bash output at 30,000 characters before hooks see it, which would drop a test run's summary lines.
# No raw byte of it touches disk: the shell writes into a FIFO the PreToolUse hook created (0600, in a
# 0700 directory), and `spool_filter` (started beside the command) redacts what it reads, chunk by chunk
# with overlapping seams, into the spool. The command runs in the current shell (`cd` and variables
# persist, as unwrapped), with its exit status kept. What the shell prints is the head and tail of the
# (redacted) spool, a fallback the model can still use if the PostToolUse hook does not run, then the
# exit status and the spool id. POSIX sh: bash, zsh and dash run it alike. When the FIFO is gone (swept
# after a day-long permission prompt), the command's output goes straight to the terminal, unspooled.
_EXCERPT = 8000
WRAPPER = (
    "if [ -p {fifo} ]; then {python} -P -m ctxops_memory_inject.guard.spool_filter {folder} {spool_id} "
    "</dev/null >/dev/null 2>&1 & __ctxops_f=$!; exec 9>{fifo}; else __ctxops_f=; exec 9>&1; fi; "
    "{{ {command}\n}} >&9 2>&1; __ctxops_s=$?; exec 9>&-; "
    'if [ -n "$__ctxops_f" ]; then kill -s URG "$__ctxops_f" 2>/dev/null; wait "$__ctxops_f"; '
    'if [ ! -f {spool} ]; then :; elif [ "$(wc -c < {spool})" -gt {twice} ]; then head -c {excerpt} {spool}; '
    "printf '\\n[ctxops: %s bytes, middle cut]\\n' \"$(wc -c < {spool})\"; tail -c {excerpt} {spool}; "
    "else cat {spool}; fi; fi; printf '\\n[ctxops-exit %s {spool_id}]\\n' \"$__ctxops_s\""
)
_WRAPPED_HEAD = "if [ -p "
_WRAPPED_OPEN = "; fi; { "
_WRAPPED_CLOSE = "\n} >&9 2>&1; __ctxops_s=$?; "
_TRAILER_OUT = re_compile(r"\n?\[ctxops-exit (\d+)(?: ([0-9a-f]{8,32}))?\]\s*$")
# Input caps (docs/security.md, promise 2): a command is looked at in its first MAX_COMMAND characters; the
# exit trailer is searched for in the last _TRAILER_SPAN characters of the output; outputs are summarized
# in a bounded window (summarize.summarize).
MAX_COMMAND = 100_000
_TRAILER_SPAN = 80
_ENDS_SHELL = re_compile(r"(?:^|[;&|{\s])(?:exit|exec|return|logout)(?:\s|;|$)")
WRAPPED_KINDS = ("test", "check", "build")
WORTH_IT = 0.8  # a summary must be at most this share of the original, or the original stays


class GuardOutcome:
    """What one call did; ``stdout`` is exactly what the agent reads ("" for nothing)."""

    __slots__ = ("stdout",)

    def __init__(self, stdout: str = "") -> None:
        self.stdout = stdout


def handle(
    agent: str,
    data: bytes,
    *,
    capture_event: bool = False,
    outline: Outline | None = None,
    root: str | os.PathLike[str] | None = None,
) -> GuardOutcome:
    """Core's entry (``ctx hook``): the payload bytes as the agent sent them. ``capture_event`` also
    stores the event through hooks-capture (core captures it itself and passes False)."""
    if capture_event:
        try:
            from ctxops_hooks_capture.capture import capture

            capture(agent, data, cwd_fallback=os.getcwd())
        except Exception as exc:  # capture failing must not cost the agent its summary
            _log_failure({}, root, exc)
    try:
        payload = jsonlite.loads(data or b"null")
    except ValueError:
        return GuardOutcome()
    if not isinstance(payload, dict):
        return GuardOutcome()
    out = handle_event(payload, root, agent=agent, outline=outline)
    return GuardOutcome(jsonlite.dumps(out, ensure_ascii=False) if out is not None else "")


def handle_event(
    payload: dict[str, Any],
    root: str | os.PathLike[str] | None = None,
    *,
    agent: str = "claude-code",
    outline: Outline | None = None,
) -> dict[str, Any] | None:
    """Dispatch one hook payload by ``hook_event_name``; return the output JSON or None."""
    if agent not in SUPPORTED_AGENTS:
        return None
    try:
        event = payload.get("hook_event_name")
        if event == "PostToolUse":
            return handle_post_tool_use(payload, root, agent=agent, outline=outline)
        if event == "PreToolUse":
            return handle_pre_tool_use(payload, root)
        if event in ("SessionStart", "PreCompact", "PostCompact"):
            where = _root(payload, root)
            if where:
                from . import reads

                reads.reset(where, str(payload.get("session_id") or ""))
    except Exception as exc:  # the hook must never break the agent
        _log_failure(payload, root, exc)
    return None


def handle_pre_tool_use(payload: dict[str, Any], root: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """Bash commands the guard summarizes get the exit-status trailer (``updatedInput``)."""
    try:
        if payload.get("tool_name") != "Bash":
            return None
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            return None
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip() or tool_input.get("run_in_background"):
            return None
        if "__ctxops_s" in command or len(command) > MAX_COMMAND or _ENDS_SHELL.search(command):
            return None  # already wrapped, or it may end the shell before the trailer prints
        from .classify import classify

        family, kind = classify(command)
        if kind not in WRAPPED_KINDS:
            return None
        where = _root(payload, root)
        if where is None:
            return None
        cfg = load_config(where)
        if not (cfg.wrap_bash and cfg.tool_on("Bash") and cfg.family_on(family)):
            return None
        import sys

        from . import store

        spool_id = store.new_id() + store.new_id()
        ensure_meta(where)
        folder = spool_dir(where)
        sweep(where)
        os.mkfifo(os.path.join(folder, f"{spool_id}.fifo"), 0o600)
        base = os.path.join(folder, spool_id)
        wrapped = WRAPPER.format(
            command=command.rstrip(),
            python=_quote(sys.executable),
            folder=_quote(folder),
            fifo=_quote(base + ".fifo"),
            spool=_quote(base + ".log"),
            spool_id=spool_id,
            excerpt=_EXCERPT,
            twice=2 * _EXCERPT,
        )
        updated = {**tool_input, "command": wrapped}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}
    except Exception as exc:
        _log_failure(payload, root, exc)
        return None


def handle_post_tool_use(
    payload: dict[str, Any],
    root: str | os.PathLike[str] | None = None,
    *,
    agent: str = "claude-code",
    outline: Outline | None = None,
) -> dict[str, Any] | None:
    """Summarize, dedupe or cap one tool output; None leaves it untouched."""
    try:
        where = _root(payload, root)
        if where is None:
            return None
        cfg = load_config(where)
        tool = str(payload.get("tool_name") or "")
        response = payload.get("tool_response")
        if tool == "Read":
            return _read(payload, response, where, cfg, agent, outline)
        if tool == "Bash":
            return _bash(payload, response, where, cfg, agent)
        if tool in ("Grep", "Glob"):
            return _search_tool(payload, response, where, cfg, agent)
    except Exception as exc:
        _log_failure(payload, root, exc)
    return None


# -- Bash ---------------------------------------------------------------------------------------------------


def _bash(payload: dict[str, Any], response: Any, root: str, cfg: GuardConfig, agent: str) -> dict[str, Any] | None:
    if not isinstance(response, dict) or not isinstance(response.get("stdout"), str):
        return None
    tool_input = payload.get("tool_input")
    command = str(tool_input.get("command") or "") if isinstance(tool_input, dict) else ""
    stdout, stderr = response["stdout"], str(response.get("stderr") or "")
    command = unwrap(command)[:MAX_COMMAND]  # what the patterns and the classifier see of a command
    # the trailer ends the output: only its last characters are searched, whatever the output's size
    end = stdout[-4096:]
    match = _TRAILER_OUT.search(stdout, max(0, len(stdout) - len(end) + len(end.rstrip()) - _TRAILER_SPAN))
    wrapped = match is not None
    exit_status = int(match.group(1)) if match else 0
    from_spool = False  # a spool is redacted already (spool_filter): saved as it is
    if match:
        stdout = stdout[: match.start()]
        if match.group(2):
            spooled = _read_spool(root, match.group(2))
            if spooled is not None:
                stdout, stderr, from_spool = spooled, "", True
    text = stdout + (("\n" if stdout and not stdout.endswith("\n") else "") + stderr if stderr else "")
    if not exit_status and not stderr and cfg.read_dedupe and len(stdout) >= _MIN_REREAD and _CAT.match(command):
        reread = _cat_reread(payload, command, stdout, root, cfg, agent, response)
        if reread is not None:
            return reread
    untouched = {**response, "stdout": (f"Exit code {exit_status}\n" if exit_status else "") + stdout}
    if len(text) < cfg.min_chars or not cfg.tool_on("Bash"):
        return _post(untouched) if wrapped else None  # the common case: decided before any command table
    from .classify import classify

    family, kind = classify(command)
    if not cfg.family_on(family):
        return _post(untouched) if wrapped else None
    from . import store
    from .summarize import summarize  # regex tables: only when there is something to summarize

    lines = summarize(
        kind,
        family,
        text,
        max_hits=cfg.search_max_hits,
        max_paths=cfg.search_max_paths,
        worktree=_worktree(root, command) if family in ("git-diff", "git-log") else None,
    )
    body = "\n".join(lines)
    if len(body) > WORTH_IT * len(text):
        return _post(untouched) if wrapped else None
    output_id = store.save(
        root,
        text,
        {
            "tool_name": "Bash",
            "command": command,
            "family": family,
            "exit_status": exit_status,
            "session_id": payload.get("session_id"),
        },
        max_outputs=cfg.max_outputs,
        max_bytes=cfg.max_output_bytes,
        defer=cfg.accounting == "background",
        redacted=from_spool,
    )
    total = text.count("\n") + 1
    status = f"exit status {exit_status}" if wrapped or exit_status else "exit status 0"
    summary = (
        f"[ctxops guard: {family} output, {status}; {total} lines summarized to {len(lines)}; "
        f"'… N lines' marks folded passing/progress/context lines]\n{body}\n"
        f"[full output: ctx out show {output_id}  (add --lines A:B or --grep RE; MCP tool out_show)]"
    )
    if exit_status:
        summary = f"Exit code {exit_status}\n{summary}"
    _account(root, cfg, payload, agent, "Bash", command, summary, before_output=output_id)
    return _post({**response, "stdout": summary, "stderr": ""})


_ELSEWHERE = regex.lazy(
    r"(?:^|[\s;&|(])(?:cd|pushd)\s|\s-C\s|--git-dir|--work-tree|--relative|--(?:src|dst)-prefix|--no-prefix"
)


def _worktree(root: str, command: str) -> str | None:
    """``root`` when it is the git top level the command's paths are relative to; None when the command
    may run git elsewhere or print other paths (``cd``, ``-C``, ``--relative``, custom prefixes)."""
    if _ELSEWHERE.search(command) or not os.path.exists(os.path.join(root, ".git")):
        return None
    return root


_CAT = regex.lazy(r"^\s*cat\s+(?:--\s+)?('[^']+'|\"[^\"$`\\]+\"|[^\s'\"|;&<>()$`*?\\]+)\s*$")
_MIN_REREAD = MIN_REREAD  # shorter than this, the note would cost about what it saves (gate.py decides first)


def _cat_reread(  # noqa: PLR0917 - the event's fields, passed straight through
    payload: dict[str, Any], command: str, stdout: str, root: str, cfg: GuardConfig, agent: str, response: Any
) -> dict[str, Any] | None:
    """``cat FILE`` of a whole file the session already read (Read or cat) with the same text: answered
    like an unchanged re-read. Claude Code's system prompt in bypassPermissions mode suggests reading
    files with ``cat``; the text must equal the file on disk now, so the note can only name that file."""
    from . import reads

    match = _CAT.match(command)
    if match is None or len(stdout) < _MIN_REREAD:
        return None
    name = match.group(1).strip("'\"")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else root
    path = os.path.realpath(os.path.join(str(cwd), name))
    from ctxops_contracts.shared.confine import read_regular

    try:  # a regular file only (a FIFO would block, /dev/zero never ends), no longer than what cat printed
        on_disk = read_regular(path, len(stdout.encode("utf-8", "replace")) + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if on_disk != stdout:
        return None
    state = reads.ReadState(root, str(payload.get("session_id") or ""))
    state.step += 1
    key, digest = reads.whole_key(path), reads.digest(stdout)
    earlier = state.seen(key, digest)
    state.remember(key, digest)
    state.save()
    if earlier is None:
        return None
    lines = stdout.count("\n") + (0 if stdout.endswith("\n") else 1)
    note = (
        f"[ctxops guard: unchanged since step {earlier}: {path} ({lines} lines) is the same as when you read it "
        f"at step {earlier}; that text is earlier in this conversation]"
    )
    _account(root, cfg, payload, agent, "Bash", command, note, before_file=(path, 1, lines, digest))
    return _post({**response, "stdout": note, "stderr": ""})


def _quote(path: str) -> str:
    """Single-quote ``path`` for the shell (shlex.quote's rule, without importing shlex)."""
    return "'" + path.replace("'", "'\"'\"'") + "'"


def unwrap(command: str) -> str:
    """The agent's own command inside a ``WRAPPER``-wrapped one (string search: linear on any input)."""
    if not command.startswith(_WRAPPED_HEAD):
        return command
    start = command.find(_WRAPPED_OPEN)
    end = command.rfind(_WRAPPED_CLOSE)
    if start < 0 or end < start:
        return command
    return command[start + len(_WRAPPED_OPEN) : end]


def spool_dir(root: str) -> str:
    """``.meta/.state/guard/spool``, created 0700 (an existing one is made 0700); a symlinked ``.meta``,
    ``.meta/.state`` or any level below is refused (``UnsafePath``)."""
    from ctxops_contracts.shared.confine import ensure_dir

    folder = ensure_dir(os.path.join(root, ".meta", ".state", "guard", "spool"))
    try:
        if os.stat(folder).st_mode & 0o077:
            os.chmod(folder, 0o700)
    except OSError:
        pass
    return folder


def spool_path(root: str, spool_id: str) -> str:
    return os.path.join(root, ".meta", ".state", "guard", "spool", f"{spool_id}.log")


def _read_spool(root: str, spool_id: str) -> str | None:
    """The wrapped command's full output (redacted by ``spool_filter``); the spool is removed once read."""
    path = spool_path(root, spool_id)
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    try:
        os.unlink(path)
    except OSError:
        pass
    return text


# A finished spool waits for its PostToolUse (milliseconds); one unclaimed for this long never will be. A
# FIFO waits for its command, which may sit behind a permission prompt: kept a day (it holds no data; a
# wrapper that finds its FIFO gone runs the command unspooled rather than write a plain file).
SPOOL_GRACE = 120.0
FIFO_MAX_AGE = 86_400.0


def sweep(root: str) -> int:
    """Remove what wrapped runs left in the spool directory: partial spools no live ``spool_filter``
    holds (its writer was killed), finished spools whose PostToolUse never came (after ``SPOOL_GRACE``),
    stale FIFOs. Runs on every PreToolUse wrap and every guard CLI start; returns how many
    entries were removed. Every spool is redacted already: this is hygiene, not the defence."""
    folder = spool_dir(root)
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        try:
            age = now - entry.stat(follow_symlinks=False).st_mtime
            name = entry.name
            if name.endswith(".fifo"):
                stale = age > FIFO_MAX_AGE
            elif name.endswith(".part"):  # being written, or its writer was killed
                stale = not _writer_alive(entry.path)
            elif name.endswith(".log"):  # complete, its PostToolUse due
                stale = age > SPOOL_GRACE
            else:  # anything else a wrapper or an older version left
                stale = age > SPOOL_GRACE
            if stale:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _writer_alive(path: str) -> bool:
    """Whether a ``spool_filter`` still holds the spool's lock (a non-blocking probe)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no wrapper there
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


# -- Read ---------------------------------------------------------------------------------------------------


def _read(  # noqa: PLR0917 - one call site, the dispatcher
    payload: dict[str, Any], response: Any, root: str, cfg: GuardConfig, agent: str, outline_fn: Outline | None
) -> dict[str, Any] | None:
    if not cfg.tool_on("Read") or not isinstance(response, dict) or response.get("type") != "text":
        return None
    file = response.get("file")
    if not isinstance(file, dict) or not isinstance(file.get("content"), str):
        return None
    from . import reads

    content: str = file["content"]
    path = str(file.get("filePath") or "")
    start = int(file.get("startLine") or 1)
    num_lines = int(file.get("numLines") or content.count("\n") + 1)
    state = reads.ReadState(root, str(payload.get("session_id") or ""))
    state.step += 1
    key = reads.region_key(path, start, num_lines)
    digest = reads.digest(content)
    whole = start == 1 and num_lines == int(file.get("totalLines") or num_lines)
    earlier = state.seen(key, digest) if cfg.read_dedupe else None
    if earlier is None and whole and cfg.read_dedupe:  # read before as a whole by `cat`
        earlier = state.seen(reads.whole_key(os.path.realpath(path)), digest)
    result: dict[str, Any] | None = None
    if earlier is not None:
        end = start + num_lines - 1
        note = (
            f"[ctxops guard: unchanged since step {earlier}: lines {start}-{end} of {path} are the same as when "
            f"you read them at step {earlier}; that text is earlier in this conversation]"
        )
        updated = {**file, "content": note, "numLines": 1, "startLine": 1}
        result = _post({**response, "file": updated})
        _account(root, cfg, payload, agent, "Read", path, note, before_file=(path, start, num_lines, digest))
    else:
        state.remember(key, digest)
        tool_input = payload.get("tool_input")
        limit = tool_input.get("limit") if isinstance(tool_input, dict) else None
        big = num_lines > cfg.read_max_lines and not (isinstance(limit, int) and limit <= cfg.read_max_lines)
        if big and len(content) >= cfg.min_chars:
            region_lines = content.splitlines(keepends=True)[: cfg.read_region_lines]
            region = "".join(region_lines)
            end = start + len(region_lines) - 1
            total = file.get("totalLines") or num_lines
            context = (
                f"[ctxops guard: {path} returned {num_lines} lines (of {total}); the tool result shows lines "
                f"{start}-{end}. Outline of the returned lines (line numbers in the file):\n"
                f"{_shift(reads.outline(path, content, outline_fn), start)}\n"
                f"Read again with offset/limit for another region.]"
            )
            updated = {**file, "content": region, "numLines": len(region_lines)}
            result = _post({**response, "file": updated}, context)
            whole = False  # the model saw the region only: a later `cat` of the file is not a re-read
            _account(
                root, cfg, payload, agent, "Read", path, region + context, before_file=(path, start, num_lines, digest)
            )
    if whole:
        state.remember(reads.whole_key(os.path.realpath(path)), digest)
    state.save()
    return result


def _shift(outline_text: str, start: int) -> str:
    """Outline line numbers count from the returned text; the file's numbers start at ``start``."""
    if start == 1:
        return outline_text
    return re_compile(r"^([^\S\n]*+)(\d+)", regex.MULTILINE).sub(
        lambda m: f"{m.group(1)}{int(m.group(2)) + start - 1}", outline_text
    )


# -- Grep / Glob (Claude Code versions that ship them) -----------------------------------------------------------


def _search_tool(
    payload: dict[str, Any], response: Any, root: str, cfg: GuardConfig, agent: str
) -> dict[str, Any] | None:
    tool = str(payload.get("tool_name"))
    if not isinstance(response, dict) or not cfg.tool_on(tool) or not cfg.family_on("search"):
        return None
    from . import store

    content = response.get("content")
    filenames = response.get("filenames")
    if isinstance(content, str) and len(content) >= cfg.min_chars:
        from .summarize import summarize

        lines = summarize("search", "search", content, max_hits=cfg.search_max_hits, max_paths=cfg.search_max_paths)
        output_id = store.save(
            root, content, {"tool_name": tool, "command": _describe(payload)}, max_outputs=cfg.max_outputs
        )
        summary = "\n".join(lines) + f"\n[full output: ctx out show {output_id}]"
        _account(root, cfg, payload, agent, tool, _describe(payload), summary, before_output=output_id)
        return _post({**response, "content": summary})
    if (
        isinstance(filenames, list)
        and len(filenames) > cfg.search_max_paths
        and sum(len(str(f)) + 1 for f in filenames) >= cfg.min_chars
    ):
        full = "\n".join(str(f) for f in filenames)
        output_id = store.save(
            root, full, {"tool_name": tool, "command": _describe(payload)}, max_outputs=cfg.max_outputs
        )
        kept = [str(f) for f in filenames[: cfg.search_max_paths]]
        kept.append(f"… and {len(filenames) - len(kept)} more paths: ctx out show {output_id}")
        _account(root, cfg, payload, agent, tool, _describe(payload), "\n".join(kept), before_output=output_id)
        return _post({**response, "filenames": kept})
    return None


def _describe(payload: dict[str, Any]) -> str:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return ""
    return " ".join(f"{k}={v}" for k, v in tool_input.items() if isinstance(v, str | int | bool))[:500]


# -- shared -------------------------------------------------------------------------------------------------


def _post(updated: Any, context: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"hookEventName": "PostToolUse", "updatedToolOutput": updated}
    if context:
        out["additionalContext"] = context
    return {"hookSpecificOutput": out}


def _account(  # noqa: PLR0917 - the event's fields, passed straight through
    root: str,
    cfg: GuardConfig,
    payload: dict[str, Any],
    agent: str,
    tool: str,
    command: str,
    after: str,
    *,
    before_output: str | None = None,
    before_file: tuple[str, int, int, str] | None = None,
) -> None:
    if cfg.accounting == "off":
        return
    from . import store
    from .accounting import submit

    job: dict[str, Any] = {
        "id": store.new_id() + store.new_id(),
        "ts": time.time(),
        "agent": agent if agent in ("claude-code", "codex", "gemini", "cursor", "generic") else "generic",
        "session_id": payload.get("session_id"),
        "tool_name": tool,
        "command": command[:500],
        "after": after,
        "output_id": before_output,
    }
    if before_output is not None:
        job["before_output"] = before_output
    elif before_file is not None:  # the file itself is the original: no copy of it is written
        job |= dict(zip(("before_file", "before_start", "before_lines", "before_digest"), before_file, strict=True))
    try:
        submit(root, job, cfg.accounting)
    except Exception as exc:  # accounting must not cost the agent its summary
        _log_failure(payload, root, exc)


def _root(payload: dict[str, Any], root: str | os.PathLike[str] | None) -> str | None:
    if root is not None:
        return os.fspath(root)
    from ctxops_contracts.shared.repo import try_find_root

    cwd = payload.get("cwd")
    return try_find_root(cwd if isinstance(cwd, str) and cwd else None)


def _log_failure(payload: dict[str, Any], root: str | os.PathLike[str] | None, exc: BaseException) -> None:
    import logging

    logging.getLogger(__name__).warning("guard: %s failed: %r", payload.get("hook_event_name"), exc)
    try:
        where = _root(payload, root)
        if where is None:
            return
        from ctxops_contracts.shared.files import append_lines
        from ctxops_contracts.shared.layout import meta_subdir

        folder = meta_subdir(str(where), "logs")  # a symlinked .meta or .meta/logs: refused, nothing written
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {payload.get('hook_event_name')}: {exc!r}"
        append_lines(os.path.join(folder, "guard.log"), (line.replace("\n", " ") + "\n").encode(), fsync=False)
    except Exception:
        logging.getLogger(__name__).debug("could not write the guard log", exc_info=True)
