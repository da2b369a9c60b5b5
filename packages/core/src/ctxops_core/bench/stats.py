"""Medians, bootstrap intervals and paired differences for a bench's runs (stdlib only, seeded)."""

from __future__ import annotations

import random
from statistics import median

RESAMPLES = 2000


def interval(values: list[float], *, seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """A percentile bootstrap interval of the median; None with fewer than two values."""
    if len(values) < 2:
        return None
    rng = random.Random(seed)
    n = len(values)
    medians = sorted(median(rng.choices(values, k=n)) for _ in range(RESAMPLES))
    low = medians[int((1 - level) / 2 * RESAMPLES)]
    high = medians[min(RESAMPLES - 1, int((1 + level) / 2 * RESAMPLES))]
    return (low, high)


def summary(values: list[float], *, seed: int = 0) -> dict[str, float | list[float] | None]:
    """Median and its 95% interval (None when there is nothing to summarise)."""
    if not values:
        return {"median": None, "ci95": None}
    ci = interval(values, seed=seed)
    return {"median": median(values), "ci95": list(ci) if ci else None}


def paired(arm: dict[int, float], off: dict[int, float], *, seed: int = 0) -> dict[str, object] | None:
    """``arm - off`` per repetition both have: the median difference, its interval, and relative to off."""
    reps = sorted(set(arm) & set(off))
    if not reps:
        return None
    diffs = [arm[r] - off[r] for r in reps]
    base = median([off[r] for r in reps])
    mid = median(diffs)
    ci = interval(diffs, seed=seed)
    return {
        "pairs": len(reps),
        "median": mid,
        "ci95": list(ci) if ci else None,
        "relative": (mid / base) if base else None,
    }
