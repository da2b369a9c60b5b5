"""A marked block of lines that ``ctx init`` puts into a text file (a git hook, a TOML config) and takes out.

The markers make the block findable again, so a second ``ctx init`` changes nothing and ``--remove``
takes out exactly these lines, whatever the user wrote around them since.
"""

from __future__ import annotations

BEGIN = "# >>> ctxops (written by `ctx init`; `ctx init --remove` takes it out) >>>"
END = "# <<< ctxops <<<"


def block(body: str) -> str:
    return f"{BEGIN}\n{body.rstrip()}\n{END}\n"


def has_block(text: str) -> bool:
    return BEGIN in text


def insert_after_shebang(text: str, body: str) -> str:
    """Put the block right after the ``#!`` line (or at the top): it runs even when the rest of the script
    ends with ``exec`` (pre-commit's shims do)."""
    if has_block(text):
        return text
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("#!"):
        head = lines[0] if lines[0].endswith("\n") else lines[0] + "\n"
        return head + block(body) + "".join(lines[1:])
    return block(body) + text


def append(text: str, body: str) -> str:
    if has_block(text):
        return text
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return text + sep + block(body)


def prepend(text: str, body: str) -> str:
    """The block at the very top (for TOML keys that must come before any table)."""
    return block(body) + text


def remove(text: str) -> str:
    """``text`` without its blocks (and without the blank line :func:`append` put before one)."""
    while True:
        shorter = _remove_first(text)
        if shorter == text:
            return text
        text = shorter


def _remove_first(text: str) -> str:
    start = text.find(BEGIN)
    if start < 0:
        return text
    end = text.find(END, start)
    if end < 0:
        return text
    end += len(END)
    if text[end : end + 1] == "\n":
        end += 1
    before, after = text[:start], text[end:]
    if not after and before.endswith("\n\n"):
        before = before[:-1]
    return before + after
