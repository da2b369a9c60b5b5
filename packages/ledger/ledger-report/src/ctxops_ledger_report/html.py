"""``ctx ledger report --html FILE``: one self-contained page, charts as inline SVG, no script, no network.

Charts: spend per day, spend by model, top tasks and sessions, cache hit rate per day, top tools and
files by tokens fed. Every data point is an SVG element of class ``point`` carrying ``data-label`` and
``data-value`` (and a ``<title>`` tooltip), and every chart says how many points it has in
``data-points``, so a test (or a reader) can check that nothing was dropped.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

from .reports import Report

WIDTH = 860
# Nothing may load from anywhere: the page is complete as written (a violation shows as a console error).
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
BAR_H = 22
COLOURS = ("#3b6ea8", "#d0873a", "#4f9a5a", "#b4474b", "#7d63a8", "#8a6d4a", "#c06aa0", "#6f6f6f")


def _money(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.2f}"


def _fmt(value: float, unit: str) -> str:
    if unit == "$":
        return _money(value)
    if unit == "%":
        return f"{value * 100:.1f}%"
    return f"{value:,.0f}"


def column_chart(chart_id: str, title: str, points: list[tuple[str, float]], unit: str, *, line: bool = False) -> str:
    """Vertical bars (or a line with dots) over labelled x positions."""
    height, left, bottom, top = 240, 70, 40, 16
    inner_w, inner_h = WIDTH - left - 20, height - bottom - top
    peak = max((v for _, v in points), default=0.0) or 1.0
    if unit == "%":
        peak = 1.0
    step = inner_w / max(len(points), 1)
    parts = [
        f'<svg id="{chart_id}" class="chart" data-points="{len(points)}" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">',
        f'<line x1="{left}" y1="{top + inner_h}" x2="{left + inner_w}" y2="{top + inner_h}" stroke="#999"/>',
        f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" class="axis">{escape(_fmt(peak, unit))}</text>',
        f'<text x="{left - 6}" y="{top + inner_h}" text-anchor="end" class="axis">{escape(_fmt(0, unit))}</text>',
    ]
    path = []
    label_every = max(1, len(points) // 12)
    for n, (label, value) in enumerate(points):
        x = left + n * step
        h = inner_h * (value / peak) if peak else 0
        tip = f"<title>{escape(label)}: {escape(_fmt(value, unit))}</title>"
        data = f'class="point" data-label="{escape(label)}" data-value="{value!r}"'
        if line:
            cx, cy = x + step / 2, top + inner_h - h
            path.append(f"{cx:.1f},{cy:.1f}")
            parts.append(f'<circle {data} cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{COLOURS[2]}">{tip}</circle>')
        else:
            parts.append(
                f'<rect {data} x="{x + step * 0.1:.1f}" y="{top + inner_h - h:.1f}" width="{max(step * 0.8, 1):.1f}" '
                f'height="{max(h, 0.5):.1f}" fill="{COLOURS[0]}">{tip}</rect>'
            )
        if n % label_every == 0:
            parts.append(
                f'<text x="{x + step / 2:.1f}" y="{height - bottom + 16}" text-anchor="middle" class="axis">'
                f"{escape(label[-5:] if len(label) > 7 else label)}</text>"
            )
    if line and len(path) > 1:
        parts.insert(4, f'<polyline points="{" ".join(path)}" fill="none" stroke="{COLOURS[2]}" stroke-width="2"/>')
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(chart_id: str, title: str, points: list[tuple[str, float]], unit: str) -> str:
    """Horizontal bars, one per labelled value, largest first."""
    left = 300
    height = max(BAR_H * len(points) + 10, 40)
    peak = max((v for _, v in points), default=0.0) or 1.0
    parts = [
        f'<svg id="{chart_id}" class="chart" data-points="{len(points)}" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">'
    ]
    for n, (label, value) in enumerate(points):
        y = 5 + n * BAR_H
        w = (WIDTH - left - 110) * (value / peak)
        short = label if len(label) <= 44 else "…" + label[-43:]
        parts.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end" class="label">{escape(short)}</text>')
        parts.append(
            f'<rect class="point" data-label="{escape(label)}" data-value="{value!r}" x="{left}" y="{y + 2}" '
            f'width="{max(w, 0.5):.1f}" height="{BAR_H - 6}" fill="{COLOURS[n % len(COLOURS)]}">'
            f"<title>{escape(label)}: {escape(_fmt(value, unit))}</title></rect>"
        )
        parts.append(f'<text x="{left + w + 6:.1f}" y="{y + 15}" class="value">{escape(_fmt(value, unit))}</text>')
    parts.append("</svg>")
    return "".join(parts)


STYLE = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:900px;color:#222}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 6px}
.meta{color:#666;margin-bottom:16px}.empty{color:#888;font-style:italic}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:150px}
.card b{display:block;font-size:18px}
svg text{font-size:11px;fill:#333}svg .axis{fill:#777}
.note{color:#8a5a00}
"""


def _section(title: str, chart: str, count: int) -> str:
    body = chart if count else f'<p class="empty">no data for "{escape(title)}" in this range</p>{chart}'
    return f"<section><h2>{escape(title)}</h2>{body}</section>"


def _measured_section(doc: dict[str, Any]) -> str:
    """The repository's latest `ctx bench`: each arm against off, measured (not the guard's estimate)."""
    from .measured import lines

    rows = "".join(f"<li>{escape(line)}</li>" for line in lines(doc))
    return (
        f"<section><h2>Measured with ctx bench ({escape(str(doc.get('bench')))})</h2>"
        f"<ul>{rows or '<li>no arm to compare with off</li>'}</ul></section>"
    )


def render(
    reports: dict[str, Report],
    *,
    title: str,
    price_date: str,
    generated: datetime | None = None,
    measured: dict[str, Any] | None = None,
) -> str:
    """The page, from the day, model, task, session, tool and file reports (and a bench's measured savings)."""
    generated = generated or datetime.now(UTC)
    day, model, task, session = reports["day"], reports["model"], reports["task"], reports["session"]
    tool, files = reports["tool"], reports["file"]
    total = day.total
    cards = [
        ("spend", _money(total.get("cost_usd"))),
        ("calls", f"{total.get('calls', 0):,}"),
        ("tokens", f"{total.get('total_tokens', 0):,}"),
        ("cache hit rate", f"{(total.get('cache_hit_rate') or 0) * 100:.1f}%"),
    ]
    if total.get("unpriced_tokens"):
        cards.append(("unpriced tokens", f"{total['unpriced_tokens']:,}"))
    daily = [(r["day"], float(r["cost_usd"] or 0.0)) for r in day.rows]
    hit = [(r["day"], float(r["cache_hit_rate"] or 0.0)) for r in day.rows]
    # Unpriced rows are not drawn at $0: they are named in the notes with their tokens.
    by_model = sorted(
        ((r["model"], float(r["cost_usd"])) for r in model.rows if r["cost_usd"] is not None), key=lambda p: -p[1]
    )
    by_task = [(str(r["task"]), float(r["cost_usd"])) for r in task.rows if r["cost_usd"] is not None][:10]
    by_session = [(str(r["session"]), float(r["cost_usd"])) for r in session.rows if r["cost_usd"] is not None][:10]
    by_tool = [(str(r["tool"]), float(r["tokens"] or 0)) for r in tool.rows[:10]]
    by_file = [(str(r["file"]), float(r["tokens"] or 0)) for r in files.rows[:10]]
    sections = [
        _section("Spend per day", column_chart("chart-daily-cost", "Spend per day", daily, "$"), len(daily)),
        _section("Spend by model", bar_chart("chart-model-cost", "Spend by model", by_model, "$"), len(by_model)),
        _section("Top tasks by spend", bar_chart("chart-task-cost", "Top tasks", by_task, "$"), len(by_task)),
        _section(
            "Top sessions by spend", bar_chart("chart-session-cost", "Top sessions", by_session, "$"), len(by_session)
        ),
        _section(
            "Cache hit rate per day", column_chart("chart-cache-hit", "Cache hit rate", hit, "%", line=True), len(hit)
        ),
        _section(
            "Top tools by tokens fed", bar_chart("chart-tool-tokens", "Top tools", by_tool, "tokens"), len(by_tool)
        ),
        _section(
            "Top files by tokens fed", bar_chart("chart-file-tokens", "Top files", by_file, "tokens"), len(by_file)
        ),
    ]
    if measured:
        sections.append(_measured_section(measured))
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in day.notes)
    card_html = "".join(f'<div class="card">{escape(k)}<b>{escape(v)}</b></div>' for k, v in cards)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<div class="meta">generated {generated:%Y-%m-%d %H:%M} UTC · prices dated {escape(price_date)}</div>'
        f'<div class="cards">{card_html}</div>{notes}{"".join(sections)}</body></html>\n'
    )


def report_set(build: Any) -> dict[str, Report]:
    """The reports the page draws, from ``build(kind)``."""
    return {kind: build(kind) for kind in ("day", "model", "task", "session", "tool", "file")}
