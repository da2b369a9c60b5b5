"""The CPU timer the growth checks share (16x the input within 64x the time: far from linear and quadratic)."""

import time
from collections.abc import Callable


def best_cpu_s(run: Callable[[], object], runs: int = 3) -> float:
    """The fastest of `runs` calls' CPU seconds (CPU, not wall: a loaded machine stretches wall unevenly)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best
