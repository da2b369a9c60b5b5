"""The CPU timer the growth checks share (16x the input within 64x the time: far from linear and quadratic)."""

import gc
import time
from collections.abc import Callable


def best_cpu_s(run: Callable[[], object], runs: int = 3) -> float:
    """The fastest of `runs` calls' CPU seconds (CPU, not wall: a loaded machine stretches wall unevenly).

    The cyclic garbage collector is off while timing: a full collection scans every live object, and after
    thousands of tests in one process (the lowest-direct leg) a larger input triggers more of them over a
    larger heap, so the time grew with the test process's heap, not with the input (67-77x for 16x)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(runs):
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started)
        return best
    finally:
        if enabled:
            gc.enable()
