"""A `WITH` clause of ours cut into its CTEs, and the CTEs one statement needs.

DuckDB parses and binds every CTE of a statement's `WITH`, also those the statement never reads: a type hop's
branches each carried all ten of the hop's CTEs (several KB of SQL), which cost more than many branches' own
work. Only our own SQL text is cut here (never input): its CTEs are read by `FROM name` or `JOIN name`.
"""

from __future__ import annotations

import re

_HEAD = re.compile(r"\s*WITH(?:\s+RECURSIVE)?\s+")
_NAME = re.compile(r"(\w+)(?:\([\w ,]*\))? AS \(")
_READS = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)\b")


def split_with(head: str) -> list[tuple[str, str]]:
    """(name, definition) of each CTE of ``head`` (``WITH [RECURSIVE] a AS (...), b(x) AS (...)``), in order;
    a definition is the text from its name through its closing parenthesis."""
    start = _HEAD.match(head)
    if start is None:
        raise ValueError("not a WITH clause")
    ctes: list[tuple[str, str]] = []
    pos = start.end()
    while pos < len(head) and head[pos:].strip():
        pos = _past_comments(head, pos)  # (comment lines before a CTE are dropped)
        found = _NAME.match(head, pos)
        if found is None:
            raise ValueError(f"no CTE at {head[pos : pos + 40]!r}")
        end = _closing(head, found.end() - 1)
        ctes.append((found.group(1), head[pos : end + 1]))
        pos = end + 1
        rest = head[pos:].lstrip()
        if rest.startswith(","):
            pos = len(head) - len(rest) + 1
    return ctes


def _past_comments(sql: str, pos: int) -> int:
    """``pos`` moved past whitespace and whole `--` comment lines."""
    while True:
        while pos < len(sql) and sql[pos].isspace():
            pos += 1
        if not sql.startswith("--", pos):
            return pos
        newline = sql.find("\n", pos)
        pos = len(sql) if newline < 0 else newline + 1


def _closing(sql: str, opening: int) -> int:
    """Index of the parenthesis closing the one at ``opening`` (string literals and `--` comments skipped)."""
    depth, i, n = 0, opening, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "'":
            i = sql.index("'", i + 1)  # ('' inside a literal: two literals back to back, the same depth)
        elif ch == "-" and sql.startswith("--", i):
            newline = sql.find("\n", i)
            i = n if newline < 0 else newline
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced parentheses")


def with_needed(ctes: list[tuple[str, str]], statement: str) -> str:
    """``WITH RECURSIVE`` and the CTEs of ``ctes`` that ``statement`` reads, directly or through another,
    in their order; empty when it reads none."""
    defined = dict(ctes)
    wanted: set[str] = set()
    todo = [name for name in _READS.findall(statement) if name in defined]
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(n for n in _READS.findall(defined[name]) if n in defined and n not in wanted)
    kept = [text for name, text in ctes if name in wanted]
    return "WITH RECURSIVE\n" + ",\n".join(kept) + "\n" if kept else ""
