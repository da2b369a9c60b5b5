"""The token estimator is cheap and conservative against the real cl100k count."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from ctxops_code_query.tokens import BpeCounter, EstimateCounter, estimate_tokens, exact_counter


def _samples() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts = []
    for name in ("argparse.py", "json/decoder.py", "functools.py", "difflib.py", "textwrap.py"):
        lines = (stdlib / name).read_text().splitlines()
        texts += ["\n".join(lines[i : i + 25]) for i in range(0, len(lines), 25)]
    texts += [
        f"Lib/pkg/mod{i}.py:{i * 13}  function handle_request_{i}(self, req: Request) -> Response" for i in range(50)
    ]
    return [t for t in texts if t.strip()]


def test_estimate_is_conservative_for_most_texts() -> None:
    exact = exact_counter()
    ratios = sorted(estimate_tokens(t) / max(1, exact.count(t)) for t in _samples())
    median = ratios[len(ratios) // 2]
    below = sum(1 for r in ratios if r < 0.97) / len(ratios)
    assert 1.0 <= median <= 1.4, median
    assert below <= 0.10, below


def test_counters_satisfy_the_protocol() -> None:
    from ctxops_contracts import TokenCounter

    assert isinstance(EstimateCounter(), TokenCounter)
    bpe = BpeCounter()
    assert isinstance(bpe, TokenCounter) and bpe.exact
    assert bpe.count("hello world") == 2
    assert estimate_tokens("") == 0


def test_exact_counter_loads_without_the_slow_package_init() -> None:
    code = (
        "import sys; from ctxops_code_query.tokens import exact_counter; "
        "exact_counter(); print('bpe_openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
