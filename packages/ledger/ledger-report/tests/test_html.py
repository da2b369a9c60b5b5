"""The HTML report rendered by headless Chromium (Debian's `chromium`): it renders, every chart has every data
point, no console errors, no requests beyond the file itself."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from ctxops_ledger_report.cli import main
from ledger_records import T0, record, write

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")

# Chromium's own background services (updates, time, accounts), not the page: the net log shows them too.
BROWSER_HOSTS = re.compile(r"^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)(/|:|$)")


def render(page: Path, tmp_path: Path) -> tuple[str, list[str], set[str]]:
    """The DOM after rendering, the console messages, and every URL the page made the browser request."""
    net_log = tmp_path / f"{page.stem}-net.json"
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            f"--log-net-log={net_log}",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    events = json.loads(net_log.read_text()).get("events", [])
    urls = {str(e["params"]["url"]) for e in events if isinstance(e.get("params"), dict) and "url" in e["params"]}
    page_urls = {u for u in urls if not BROWSER_HOSTS.match(u) and not u.startswith(("file://", "data:"))}
    return done.stdout, console, page_urls


def test_the_checks_catch_a_page_that_breaks_the_rules(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<html><body><script>console.error("boom")</script><img src="http://127.0.0.9:9/x.png"></body></html>'
    )
    _, console, urls = render(bad, tmp_path)
    assert any("boom" in line for line in console)
    assert "http://127.0.0.9:9/x.png" in urls


def test_html_report_renders_every_point_offline(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = []
    for day in range(4):
        for n, model in enumerate(("claude-sonnet-4-5", "claude-opus-4-8", "claude-mystery-9")):
            records.append(
                record(
                    T0 + timedelta(days=day, hours=n),
                    session_id=f"s{day}-{n}",
                    model=model,
                    git_branch=("main", "feat-x")[day % 2],
                    cache_read_tokens=1000 * (day + 1),
                    attribution=[{"tool": ("Read", "Grep")[n % 2], "files": [f"api/m{n}.py"], "tokens": 100 * (n + 1)}],
                )
            )
    write(data_dir, records)
    page = tmp_path / "report.html"
    assert main(["report", "--html", str(page)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    source = page.read_text()
    assert "http://" not in source and "https://" not in source and "<script" not in source
    dom, console, urls = render(page, tmp_path)
    assert console == [] and urls == set()
    charts = dict(re.findall(r'<svg id="(chart-[a-z-]+)" class="chart" data-points="(\d+)"', dom))
    expected = {
        "chart-daily-cost": 4,
        "chart-model-cost": 2,  # the unpriced model is named in a note, not drawn at $0
        "chart-task-cost": 2,
        "chart-session-cost": 8,  # the 8 priced sessions of 12
        "chart-cache-hit": 4,
        "chart-tool-tokens": 2,
        "chart-file-tokens": 3,
    }
    assert {k: int(v) for k, v in charts.items()} == expected
    for chart, count in expected.items():
        body = dom.split(f'<svg id="{chart}"', 1)[1].split("</svg>", 1)[0]
        values = re.findall(r'class="point" data-label="([^"]*)" data-value="([^"]*)"', body)
        assert len(values) == count, chart
    daily = dom.split('<svg id="chart-daily-cost"', 1)[1].split("</svg>", 1)[0]
    labels = re.findall(r'class="point" data-label="([^"]*)"', daily)
    assert labels == ["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01"]
    model = dom.split('<svg id="chart-model-cost"', 1)[1].split("</svg>", 1)[0]
    assert "claude-mystery-9" not in model
    note = re.search(r'<p class="note">unpriced[^<]*claude-mystery-9[^<]*</p>', dom)
    assert note is not None and "tokens not in the cost" in note.group(0)
