"""The spool's streaming redaction: a secret split across the pieces a pipe delivers, or across the
redactor's own chunk seams, is caught as in one piece; the output equals the text's lines otherwise."""

from __future__ import annotations

import random
import secrets
import string

import pytest
from ctxops_hooks_capture.redact import redact
from ctxops_memory_inject.guard.stream_redact import StreamRedactor


def _stream(text: str, sizes: random.Random, **params: int) -> str:
    redactor = StreamRedactor(**params)
    out, at = [], 0
    while at < len(text):
        step = sizes.randint(1, 700)
        out.append(redactor.feed(text[at : at + step]))
        if sizes.random() < 0.1:
            out.append(redactor.idle())
        at += step
    out.append(redactor.finish())
    return "".join(out)


@pytest.mark.parametrize("seed", range(12))
def test_secrets_across_every_seam_are_caught(seed: int) -> None:
    rng = random.Random(seed)
    token = "ghp_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))
    body = "".join(secrets.choice(string.ascii_letters + string.digits + "+/") for _ in range(64 * 12))
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    pem += "\n-----END PRIVATE KEY-----"
    lines = [f"tests/t.py::test_{i} PASSED" for i in range(3000)]
    for at in sorted(rng.sample(range(len(lines)), 6), reverse=True):
        lines.insert(at, rng.choice([f"token={token}", f"export GITHUB_TOKEN={token} # ci", pem]))
    text = "\n".join(lines) + "\n"
    streamed = _stream(text, rng, chunk=2_000, overlap=1_200, max_buffer=40_000)
    assert token not in streamed
    assert not any(line in streamed for line in pem.splitlines()[1:-1])
    assert streamed.count("PASSED") == 3000  # nothing else lost


def test_no_safe_cut_withholds_the_seam_rather_than_write_half_a_secret() -> None:
    always_changes = lambda text: text.replace("x", "y") if len(text) > 600 else text  # noqa: E731
    redactor = StreamRedactor(always_changes, chunk=1_000, overlap=500, max_buffer=3_000)
    out = redactor.feed("x" * 10_000) + redactor.finish()
    assert "withheld" in out and redactor.withheld > 0


def test_plain_text_passes_unchanged() -> None:
    text = "".join(f"line {i}\n" for i in range(20_000))
    assert _stream(text, random.Random(1), chunk=4_000, overlap=1_000) == redact(text) == text
