"""Events caused by ctxops itself (its CLIs run by the agent, its own files) are not captured.

Only a command that is *nothing but* ctxops invocations is ignored: ``ctx mem harvest`` and
``uv run cq def X | head`` are, ``pytest -q tests && ctx mem harvest`` is not (the test result matters),
and a word ``ctx`` inside an argument (``git commit -m 'notes (ctx dir)'``) is just text.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile as re_compile

_OWN_PROGRAMS = frozenset({"ctx", "cq"})
_LAUNCHERS = (("uv", "run"), ("uvx",), ("pipx", "run"), ("exec",), ("env",), ("command",), ("time",), ("nohup",))
_FILTERS = frozenset({"head", "tail", "less", "more", "cat", "jq", "wc", "grep", "rg", "sort", "tee"})
# match on one word; the lookbehind makes a search enter a run of name characters once, from its start
_ASSIGNMENT = re_compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*+=")
_PYTHON = re_compile(r"python[\d.]*")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "\n", "|&", ";;"})


def _words(command: str) -> list[str] | None:
    import shlex  # only commands pay for it

    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace = " \t\r"  # keep newlines: they separate commands
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: not something we can judge, so it is captured
        return None


def _is_own(words: list[str], *, after_pipe: bool) -> bool:
    """True when one simple command runs a ctxops CLI (or, after a pipe, only filters its output)."""
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1  # FOO=bar ctx ...
    rest = words[i:]
    changed = True
    while changed and rest:
        changed = False
        for launcher in _LAUNCHERS:
            if tuple(rest[: len(launcher)]) == launcher:
                rest = rest[len(launcher) :]
                while rest and (rest[0].startswith("-") or _ASSIGNMENT.match(rest[0])):
                    rest = rest[1:]  # uv run --package x, env A=1
                changed = True
    if not rest:
        return False
    program = rest[0].rsplit("/", 1)[-1]
    if program in _OWN_PROGRAMS:
        return True
    if _PYTHON.fullmatch(program) and len(rest) > 2 and rest[1] == "-m":
        return rest[2].startswith("ctxops_")
    return after_pipe and program in _FILTERS


def is_own_command(command: str | None) -> bool:
    """True when a shell command runs ctxops CLIs (``ctx``, ``cq``, ``python -m ctxops_...``) and nothing else."""
    if not command or not command.strip():
        return False
    if "ctx" not in command and "cq" not in command:
        return False  # the common case, without tokenizing
    words = _words(command[:2000])
    if not words:
        return False
    segments: list[tuple[list[str], bool]] = [([], False)]
    for word in words:
        if word in _OPERATORS:
            segments.append(([], word in {"|", "|&"}))
        else:
            segments[-1][0].append(word)
    segments = [(seg, piped) for seg, piped in segments if seg]
    if not segments:
        return False
    first_own = _is_own(segments[0][0], after_pipe=False)
    return first_own and all(_is_own(seg, after_pipe=piped) for seg, piped in segments[1:])


def is_own_path(relative_path: str) -> bool:
    """True for files ctxops owns: everything under ``.meta/`` (events, index, logs, memory entries)."""
    return relative_path == ".meta" or relative_path.startswith(".meta/")
