"""`ctx bench report`: per task and arm, what the runs cost and whether they succeeded, against `off`.

Every figure comes from the ledger (the provider's own usage, priced); losses are shown as losses, and a
saving that came with a lower success rate is flagged rather than counted as a win.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import median
from typing import Any

from . import stats

METRICS = ("cost_usd", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "calls")


class NoBench(LookupError):
    """No bench results in this repository (or not the one asked for)."""


def results_files(root: Path) -> list[Path]:
    directory = root / ".meta" / "bench"
    return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []


def load(root: Path, bench: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and run records of ``bench`` (default: the newest); ``NoBench`` when there is none."""
    files = results_files(root)
    if bench:
        files = [f for f in files if f.stem == bench]
        if not files:
            raise NoBench(f"no bench {bench!r} in {root / '.meta' / 'bench'}")
    if not files:
        raise NoBench("no bench has run in this repository yet (ctx bench run TASKS.toml)")
    header: dict[str, Any] = {}
    runs: list[dict[str, Any]] = []
    for line in files[-1].read_text(encoding="utf-8").splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue  # a line cut by a kill: the runs before it stand
        if isinstance(doc, dict) and "header" in doc:
            header = doc["header"]
        elif isinstance(doc, dict) and "arm" in doc:
            runs.append(doc)
    return header, runs


def prompt_tokens(run: dict[str, Any]) -> int:
    """Everything the model read: uncached input, cache reads and cache writes."""
    return sum(int(run.get(key, 0) or 0) for key in ("input_tokens", "cache_read_tokens", "cache_write_tokens"))


def _cell(runs: list[dict[str, Any]], off: list[dict[str, Any]] | None, seed: int) -> dict[str, Any]:
    kept = [r for r in runs if not r.get("discarded")]
    out: dict[str, Any] = {"runs": len(kept), "discarded": len(runs) - len(kept)}
    out["success_rate"] = (sum(1 for r in kept if r.get("success")) / len(kept)) if kept else None
    out["median_input_tokens"] = median([prompt_tokens(r) for r in kept]) if kept else None
    out["median_cost_usd"] = median([float(r.get("cost_usd", 0.0)) for r in kept]) if kept else None
    for metric in METRICS:
        out[metric] = stats.summary([float(r.get(metric, 0) or 0) for r in kept], seed=seed)
    out["input_tokens_all"] = stats.summary([float(prompt_tokens(r)) for r in kept], seed=seed)
    out["turns"] = stats.summary([float(r["turns"]) for r in kept if r.get("turns") is not None], seed=seed)
    out["seconds"] = stats.summary([float(r.get("seconds", 0.0)) for r in kept], seed=seed)
    out["resident_tokens"] = stats.summary([float(r.get("resident_tokens", 0)) for r in kept], seed=seed)
    split = [r["resident_by_line"] for r in kept if isinstance(r.get("resident_by_line"), dict)]
    out["resident_by_line"] = (
        {line: stats.summary([float(s.get(line, 0)) for s in split], seed=seed) for line in ("map", "memory", "guard")}
        if split
        else None
    )
    reported = [float(r["reported_cost_usd"]) for r in kept if r.get("reported_cost_usd") is not None]
    out["agent_reported_cost_usd"] = stats.summary(reported, seed=seed) if reported else None
    if off is not None:
        base = [r for r in off if not r.get("discarded")]
        by_rep = {int(r["rep"]): r for r in kept}
        off_rep = {int(r["rep"]): r for r in base}
        diff: dict[str, Any] = {}
        for metric in ("cost_usd", "input_tokens", "output_tokens"):
            diff[metric] = stats.paired(
                {k: _value(v, metric) for k, v in by_rep.items()},
                {k: _value(v, metric) for k, v in off_rep.items()},
                seed=seed,
            )
        out["vs_off"] = diff
        off_success = (sum(1 for r in base if r.get("success")) / len(base)) if base else None
        out["flags"] = _flags(diff.get("cost_usd"), out["success_rate"], off_success)
    return out


def _value(run: dict[str, Any], metric: str) -> float:
    return float(prompt_tokens(run)) if metric == "input_tokens" else float(run.get(metric, 0) or 0)


def _flags(cost: dict[str, Any] | None, success: float | None, off_success: float | None) -> list[str]:
    flags: list[str] = []
    if not cost:
        return ["no pair with off"]
    mid = float(cost["median"])
    ci = cost.get("ci95")
    if mid > 0:
        flags.append("loss: costs more than off")
    if ci and ci[0] <= 0 <= ci[1]:
        flags.append("not significant: the 95% interval of the difference includes 0")
    if mid < 0 and success is not None and off_success is not None and success < off_success:
        flags.append("saving bought with a lower success rate")
    return flags


def build(header: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    seed = int(header.get("seed", 0) or 0)
    arms = list(header.get("arms") or sorted({r["arm"] for r in runs}))
    tasks = list(header.get("tasks") or sorted({r["task"] for r in runs}))
    rows: list[dict[str, Any]] = []
    for task in tasks:
        of_task = [r for r in runs if r["task"] == task]
        off = [r for r in of_task if r["arm"] == "off"] if "off" in arms else None
        for arm in arms:
            cell = _cell([r for r in of_task if r["arm"] == arm], off if arm != "off" else None, seed)
            rows.append({"task": task, "arm": arm, **cell})
    overall: list[dict[str, Any]] = []
    for arm in arms:
        # Pooled over tasks: a pair is (task, repetition); the interval is over those pairs.
        keyed = [r for r in runs if r["arm"] == arm]
        off = [r for r in runs if r["arm"] == "off"] if "off" in arms and arm != "off" else None
        cell = _cell(_pool(keyed), _pool(off) if off is not None else None, seed)
        overall.append({"task": "*", "arm": arm, **cell})
    discarded = [
        {"task": r["task"], "arm": r["arm"], "rep": r["rep"], "why": r.get("contamination") or r.get("notes")}
        for r in runs
        if r.get("discarded")
    ]
    return {"bench": header.get("bench"), "header": header, "rows": rows, "overall": overall, "discarded": discarded}


def _pool(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs of several tasks as one arm: each (task, rep) becomes a repetition of its own."""
    tasks = sorted({r["task"] for r in runs})
    return [{**r, "rep": tasks.index(r["task"]) * 100_000 + int(r["rep"])} for r in runs]


LATEST = "latest.json"
# The keys of an overall row that `ctx ledger savings` shows as measured (format 1 of .meta/bench/latest.json).
LATEST_KEYS = ("arm", "runs", "success_rate", "median_cost_usd", "median_input_tokens", "vs_off", "flags")


def write_latest(root: Path, doc: dict[str, Any]) -> Path:
    """``.meta/bench/latest.json``: the newest bench's pooled rows, for ``ctx ledger savings`` to show as
    measured beside its estimates (the ledger reads the file; it never imports core)."""
    from ctxops_contracts.shared.files import atomic_write

    header = doc["header"]
    summary = {
        "format": 1,
        "bench": doc["bench"],
        "agent": header.get("agent"),
        "commit": header.get("commit"),
        "repeat": header.get("repeat"),
        "tasks": header.get("tasks"),
        "overall": [{k: row.get(k) for k in LATEST_KEYS} for row in doc["overall"]],
    }
    path = root / ".meta" / "bench" / LATEST
    atomic_write(str(path), json.dumps(summary, indent=1) + "\n")
    return path


def _money(value: Any) -> str:
    return "-" if value is None else f"${value:,.4f}"


def _pct(value: Any) -> str:
    return "-" if value is None else f"{value:+.1%}"


def render(doc: dict[str, Any]) -> str:
    header = doc["header"]
    lines = [
        f"bench {doc['bench']}: {header.get('agent')} on {header.get('commit', '')[:12]}, "
        f"{header.get('repeat')} repetition(s), arms {', '.join(header.get('arms', []))}",
        "",
        f"{'task':<24} {'arm':<7} {'runs':>4} {'success':>7} {'cost (median)':>14} {'95% CI':>21} "
        f"{'input tok':>10} {'vs off (cost)':>14}  flags",
    ]
    for row in [*doc["rows"], *doc["overall"]]:
        cost = row["cost_usd"]
        ci = cost.get("ci95")
        ci_text = f"{_money(ci[0])}..{_money(ci[1])}" if ci else "-"
        vs = (row.get("vs_off") or {}).get("cost_usd") or {}
        rate = row["success_rate"]
        tokens = row["median_input_tokens"]
        lines.append(
            f"{row['task']:<24} {row['arm']:<7} {row['runs']:>4} {('-' if rate is None else f'{rate:.0%}'):>7} "
            f"{_money(cost.get('median')):>14} {ci_text:>21} "
            f"{('-' if tokens is None else f'{tokens:,.0f}'):>10} "
            f"{_pct(vs.get('relative')):>14}  {'; '.join(row.get('flags') or [])}"
        )
    if doc["discarded"]:
        lines += ["", f"discarded runs ({len(doc['discarded'])}):"]
        lines += [f"  {d['task']} {d['arm']} #{d['rep']}: {d['why']}" for d in doc["discarded"]]
    lines += [
        "",
        "cost and tokens are the ledger's (the provider's usage, priced); 'vs off' is the median paired difference",
        "per repetition, relative to off's median; '*' pools every task.",
    ]
    return "\n".join(lines)
