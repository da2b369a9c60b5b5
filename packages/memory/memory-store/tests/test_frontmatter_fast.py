"""The front matter the store writes, read without tomllib: what tomllib reads, or None (then tomllib reads it)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tomllib
from datetime import UTC, datetime, timedelta, timezone

import pytest
from ctxops_contracts import CodeTie
from ctxops_memory_store import frontmatter_fast, new_entry
from ctxops_memory_store.entry_file import render_entry
from ctxops_memory_store.store import _with

ALPHABET = 'ab Z9_-"\\\t\n\r\x00\x01\x08\x0c\x1f\x7f\x80é名😀\u2028\ufeff,={}[]# '


def _text(rng: random.Random, most: int = 40) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(most)))


def _front(entry: object) -> str:
    text = render_entry(entry)  # type: ignore[arg-type]
    lines = text.split("\n")
    end = lines.index("+++", 1)
    return "\n".join(lines[1:end])


def test_rendered_entries_read_as_tomllib_reads_them() -> None:
    rng = random.Random(23)
    fast = 0
    for n in range(300):
        entry = new_entry(kind="fact", title=_text(rng) or "t", body=_text(rng), tags=[_text(rng, 8) for _ in range(3)])
        zone = timezone(timedelta(hours=rng.randrange(-12, 13), minutes=rng.choice([0, 30])))
        entry = _with(
            entry,
            scope=[_text(rng, 10) for _ in range(rng.randrange(3))],
            history=[_text(rng, 5) for _ in range(rng.randrange(2))],
            hits=rng.randrange(10**12),
            pinned=bool(n % 2),
            created_at=datetime(2026, 1, 1, 0, 0, rng.randrange(60), rng.choice([0, 1, 999999]), tzinfo=UTC),
            valid_from=datetime(2026, 2, 28, 23, 59, 59, tzinfo=zone) if n % 3 else None,
            ties=[CodeTie(path=_text(rng, 12) or "p", hash="0" * 32, size=rng.randrange(99), symbol=None)] * (n % 3),
        )
        front = _front(entry)
        parsed = frontmatter_fast.parse(front)
        if parsed is not None:
            fast += 1
            assert parsed == tomllib.loads(front), front
    assert fast > 250  # the store's own files take the fast path


@pytest.mark.parametrize(
    "front",
    [
        'title = "a"\ntitle = "b"',  # a key twice: tomllib's error
        'title = "a" # a comment',
        'title = "\\x41"',
        'title = "\\uD800"',
        'title = "a\x01b"',
        "created_at = 2026-13-01 00:00:00+00:00",
        "created_at = 2026-01-01 00:00:00",  # a local date-time
        "created_at = 2026-01-01 00:00:00.12+00:00",
        "hits = 007",
        "hits = 1_000",
        'scope = [\n    "a",\n',  # never closed
        'scope = ["a", "b"]',
        "[ties]\npath = 'a'",
        "title = 'literal'",
        'ties = [\n    { path = "a", size = 1, },\n]',
        'ties = [\n    { path = "a" , size = 1 },\n]',
    ],
)
def test_anything_else_is_left_to_tomllib(front: str) -> None:
    assert frontmatter_fast.parse(front) is None


def test_exact_values_of_the_subset() -> None:
    front = (
        'id = "01X"\npinned = true\nhits = -0\nscope = []\n'
        'tags = [\n    "a, b",\n    "\\"q\\" \\\\ \\u00e9 \\U0001F600",\n]\n'
        "created_at = 2026-12-02 13:50:22.999742+00:00\nvalid_from = 2026-12-02T13:50:22Z\n"
        "last_used_at = 2026-12-02 13:50:22-05:30\n"
        'ties = [\n    { path = "src/a, b.py", hash = "dir", size = 0 },\n]'
    )
    assert frontmatter_fast.parse(front) == tomllib.loads(front)


def test_reading_a_memory_file_imports_no_tomllib(tmp_path: object) -> None:
    code = (
        "import sys, tempfile, os\n"
        "from ctxops_memory_store.frontmatter import split\n"
        'text = \'+++\\nid = "01X"\\nkind = "fact"\\ntitle = "t"\\n\'\n'
        "text += 'created_at = 2026-01-01 00:00:00+00:00\\n+++\\n\\nbody\\n'\n"
        "data, body, _ = split(text, 'x.md')\n"
        "assert body == 'body' and data['title'] == 't', data\n"
        "print('tomllib' in sys.modules)"
    )
    # Untraced: coverage's tracer in a child (`.ci/coverage`) reads its config with tomllib.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60, env=env)
    assert done.stdout.strip() == "False"
