"""Reports through the command line: tasks across sessions, blocks, attribution, memories, savings, exports."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest
from ctxops_contracts import ContextRecord, encode_line
from ctxops_contracts.shared import tasks
from ctxops_ledger_report.cli import main, task_command
from ledger_records import T0, record, write


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> dict:
    assert main(argv) == code
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ", " not in out.split('"notes"')[0][:200]  # one compact document
    return json.loads(out)


def _repo(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return str(path.resolve())


def test_a_task_spans_sessions_and_days_then_branch_then_session(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, "shop")
    other = _repo(tmp_path, "docs")
    day = timedelta(days=1)
    write(
        data_dir,
        [
            # Before the task: the branch names it.
            record(T0 - timedelta(hours=1), session_id="a", repo=repo, git_branch="feat-x"),
            # A 48-hour task over three sessions and three days, on two branches: one row.
            record(T0 + timedelta(minutes=5), session_id="b", repo=repo, git_branch="feat-x"),
            record(T0 + day, session_id="c", repo=repo, git_branch="main", model="claude-opus-4-8"),
            record(T0 + 2 * day - timedelta(minutes=1), session_id="d", repo=repo, git_branch="main"),
            # After the stop: the branch again.
            record(T0 + 2 * day + timedelta(hours=1), session_id="e", repo=repo, git_branch="main"),
            # The same time in another repository is not the task's.
            record(T0 + day, session_id="f", repo=other, git_branch="HEAD"),
            # A record that already carries its task keeps it.
            record(T0 + day, session_id="g", repo=repo, task_id="hotfix-7"),
        ],
    )
    tasks.start(repo, "checkout-v2", at=T0, data_dir=str(data_dir))
    tasks.stop(repo, at=T0 + 2 * day, data_dir=str(data_dir))
    report = _json(capsys, ["report", "task", "--json"])
    rows = {r["task"]: r for r in report["rows"]}
    assert report["total"]["calls"] == 7  # the total row is the sum of the groups, every call once
    assert report["total"]["cost_usd"] == pytest.approx(sum(r["cost_usd"] for r in report["rows"]))
    assert rows["checkout-v2"]["calls"] == 3 and rows["checkout-v2"]["sessions"] == 3
    assert rows["checkout-v2"]["days"] == 3 and rows["checkout-v2"]["source"] == "task"
    assert rows["feat-x"]["calls"] == 1 and rows["feat-x"]["source"] == "branch"
    assert rows["main"]["calls"] == 1
    assert rows["session f"]["source"] == "session"  # detached HEAD, no task: its own task
    assert rows["hotfix-7"]["calls"] == 1
    # The task's cost is its calls' cost, whatever the model: opus-4-8 is priced (ccusage@17 says $0).
    by_session = {r["session"]: r for r in _json(capsys, ["report", "session", "--json"])["rows"]}
    expected = sum(by_session[s]["cost_usd"] for s in "bcd")
    assert rows["checkout-v2"]["cost_usd"] == pytest.approx(expected, abs=1e-9) and expected > 0
    # --root selects one repository's rows.
    only = _json(capsys, ["report", "task", "--json", "--root", other])
    assert [r["task"] for r in only["rows"]] == ["session f"]


def test_task_commands_record_intervals(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, "shop")
    assert task_command(["start", "checkout-v2", "--root", repo]) == 0
    assert "checkout-v2 started" in capsys.readouterr().out
    assert task_command(["--json", "start", "fix-9", "--root", repo]) == 0
    started = json.loads(capsys.readouterr().out)
    assert started["task"] == "fix-9" and started["previous"] == "checkout-v2"
    assert task_command(["show", "--root", repo, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["current"] == "fix-9" and [i["task"] for i in shown["intervals"]] == ["checkout-v2", "fix-9"]
    assert task_command(["stop", "--root", repo]) == 0
    assert task_command(["stop", "--root", repo]) == 1  # nothing running: an empty answer
    assert "no task running" in capsys.readouterr().err
    assert task_command(["start", "", "--root", repo, "--json"]) == 2
    assert "task name" in json.loads(capsys.readouterr().out.splitlines()[-1])["error"]["message"]
    outside = tmp_path / "plain"
    outside.mkdir()
    assert task_command(["start", "x", "--root", str(outside / "missing")]) == 2


def test_blocks_active_burn_rate_and_projection(data_dir: Path) -> None:
    from ctxops_ledger_report.reports import Filters, blocks
    from ctxops_ledger_report.store import open_view

    at = T0.replace(hour=9)
    times = [
        at + timedelta(minutes=10),
        at + timedelta(minutes=40),
        at + timedelta(hours=2),  # same block (09:00-14:00)
        at + timedelta(hours=6, minutes=30),  # 15:30: past the block's end, a new block at 15:00
        at + timedelta(hours=7),  # 16:00
        at + timedelta(hours=12, minutes=30),  # 21:30: more than 5 h after the last call, a new block at 21:00
        at + timedelta(hours=12, minutes=50),
    ]
    write(data_dir, [record(t, input_tokens=1000, output_tokens=100) for t in times])
    now = at + timedelta(hours=13)  # 22:00, inside the last block
    with open_view(data_dir) as view:
        report = blocks(view, Filters(), now=now)
    starts = [b["start"].strftime("%H:%M") for b in report.rows]
    assert starts == ["09:00", "15:00", "21:00"]
    assert [b["calls"] for b in report.rows] == [3, 2, 2]
    assert [b["active"] for b in report.rows] == [False, False, True]
    last = report.rows[-1]
    per_call = 1000 * 3e-6 + 100 * 15e-6
    assert last["cost_usd"] == pytest.approx(2 * per_call)
    assert last["tokens_per_minute"] == pytest.approx(2 * 1100 / 20)  # over the 20 minutes between its calls
    assert last["cost_per_hour"] == pytest.approx(2 * per_call / 20 * 60)
    assert last["remaining_minutes"] == 240.0  # the block ends at 02:00
    assert last["projected_cost_usd"] == pytest.approx(2 * per_call + 2 * per_call / 20 * 240)
    assert report.meta["active"]["projected_cost_usd"] == pytest.approx(last["projected_cost_usd"])


def test_attribution_by_tool_and_file(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        data_dir,
        [
            record(T0, attribution=[{"tool": "Read", "files": ["api/a.py"], "tokens": 900, "bytes": 3600}]),
            record(
                T0 + timedelta(minutes=1),
                attribution=[
                    {"tool": "Grep", "files": ["api/a.py", "api/b.py"], "tokens": 200, "bytes": 800},
                    {"tool": "Bash", "files": [], "tokens": 50, "bytes": 200},
                ],
            ),
        ],
    )
    tools = _json(capsys, ["report", "tool", "--json"])
    assert [(r["tool"], r["tokens"]) for r in tools["rows"]] == [("Read", 900), ("Grep", 200), ("Bash", 50)]
    files = _json(capsys, ["report", "file", "--json"])
    assert [(r["file"], r["tokens"]) for r in files["rows"]] == [("api/a.py", 1000), ("api/b.py", 100)]


def _context(data_dir: Path, records: list[ContextRecord]) -> None:
    folder = data_dir / "context"
    folder.mkdir(exist_ok=True)
    with (folder / "context-2026-11.jsonl").open("ab") as handle:
        for item in records:
            handle.write(encode_line(item))
        handle.write(b"{not json\n")  # a damaged line is skipped, not fatal


def test_memories_injected_and_recalled_and_guard_savings(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(data_dir, [record(T0, session_id="s1"), record(T0 + timedelta(days=1), session_id="s2")])
    _context(
        data_dir,
        [
            ContextRecord(id="c1", ts=T0, action="inject", session_id="s1", memory_ids=["m-1", "m-2"], tokens=300),
            ContextRecord(id="c2", ts=T0, action="recall", session_id="s1", memory_ids=["m-1"], tokens=120),
            ContextRecord(
                id="c3", ts=T0 + timedelta(days=1), action="inject", session_id="s2", memory_ids=["m-1"], tokens=100
            ),
            ContextRecord(
                id="c4",
                ts=T0,
                action="guard",
                session_id="s1",
                tool_name="Bash",
                command="pytest -q",
                tokens=400,
                tokens_before=9_000,
            ),
            ContextRecord(
                id="c5",
                ts=T0 + timedelta(days=1),
                action="guard",
                session_id="s2",
                tool_name="Bash",
                command="pytest -q",
                tokens=300,
                tokens_before=5_000,
            ),
            ContextRecord(
                id="c6", ts=T0, action="guard", session_id="s1", tool_name="Read", tokens=100, tokens_before=2_100
            ),
        ],
    )
    memories = _json(capsys, ["report", "memory", "--json"])
    rows = {r["memory"]: r for r in memories["rows"]}
    assert (rows["m-1"]["injected"], rows["m-1"]["recalled"], rows["m-1"]["sessions"]) == (2, 1, 2)
    assert (rows["m-2"]["injected"], rows["m-2"]["recalled"]) == (1, 0)
    assert rows["m-1"]["tokens"] == 150 + 120 + 100
    by_tool = _json(capsys, ["savings", "--json"])
    assert [(r["tool"], r["tokens_saved"]) for r in by_tool["rows"]] == [("Bash", 13_300), ("Read", 2_000)]
    assert by_tool["total"]["tokens_saved"] == 15_300 and by_tool["total"]["spent_tokens"] == 300
    by_day = _json(capsys, ["savings", "--by", "day", "--json"])
    assert [(r["day"], r["tokens_saved"], r["spent_tokens"]) for r in by_day["rows"]] == [
        ("2026-11-28", 10_600, 150),
        ("2026-11-29", 4_700, 150),
    ]
    assert all(r["cost_usd"] > 0 for r in by_day["rows"])
    by_command = _json(capsys, ["savings", "--by", "command", "--json"])
    assert by_command["rows"][0]["command"] == "pytest -q"


def test_unpriced_models_keep_their_tokens_and_never_cost_zero(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(data_dir, [record(T0, model="claude-mystery-9", input_tokens=7_000), record(T0, model="claude-haiku-4-5")])
    report = _json(capsys, ["report", "model", "--json"])
    rows = {r["model"]: r for r in report["rows"]}
    assert rows["claude-mystery-9"]["cost_usd"] is None and rows["claude-mystery-9"]["unpriced_tokens"] == 7_050
    assert rows["claude-haiku-4-5"]["cost_usd"] == pytest.approx(100 * 1e-6 + 50 * 5e-6)
    assert report["total"]["unpriced_models"] == ["claude-mystery-9"]
    assert any("claude-mystery-9" in note for note in report["notes"])
    assert main(["report", "model"]) == 0
    assert "unpriced" in capsys.readouterr().out


def test_csv_empty_and_bad_arguments(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "day"]) == 1  # nothing recorded: an empty answer
    assert "no day rows" in capsys.readouterr().err
    write(data_dir, [record(T0), record(T0 + timedelta(days=1), model="claude-opus-4-8")])
    assert main(["report", "day", "--csv", "--breakdown"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["day"], r["model"]) for r in rows] == [
        ("2026-11-28", "claude-sonnet-4-5"),
        ("2026-11-29", "claude-opus-4-8"),
    ]
    assert float(rows[1]["cost_usd"]) == pytest.approx(100 * 5e-6 + 50 * 25e-6)
    assert main(["--json", "report", "fortnight"]) == 2
    assert "no report 'fortnight'" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert main(["report", "day", "--since", "notadate", "--json"]) == 2
    assert "RFC 3339" in json.loads(capsys.readouterr().out)["error"]["fix"]
    week = _json(capsys, ["report", "week", "--json", "--since", "2026-11-29"])
    assert [(r["week"], r["calls"]) for r in week["rows"]] == [("2026-11-23", 1)]


def test_parquet_partitioned_by_day_and_repository_reads_back(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, "shop")
    write(
        data_dir,
        [
            record(T0, repo=repo),
            record(T0 + timedelta(hours=1), repo=repo, model="claude-opus-4-8"),
            record(T0 + timedelta(days=1)),
        ],
    )
    out = tmp_path / "export"
    result = _json(capsys, ["export", "--parquet", str(out), "--json"])
    assert result["rows"] == 3 and len(result["partitions"]) == 2
    con = duckdb.connect()
    rows = con.execute(
        "SELECT day, repository, count(*), sum(cost_usd), any_value(repo), count(machine_id) FROM "
        f"read_parquet('{out}/**/*.parquet', hive_partitioning = true) GROUP BY 1, 2 ORDER BY 1"
    ).fetchall()
    assert all(r[5] == r[2] for r in rows)  # every call says which machine recorded it
    assert [(str(r[0]), r[2]) for r in rows] == [("2026-11-28", 2), ("2026-11-29", 1)]
    assert rows[0][4] == repo and rows[1][1] == "none"
    report = _json(capsys, ["report", "day", "--json"])
    assert rows[0][3] == pytest.approx(report["rows"][0]["cost_usd"])


def test_web_searches_and_us_only_inference_are_priced_in_exact_not_in_ccusage_mode(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = 100 * 3e-6 + 50 * 15e-6  # claude-sonnet-4-5, the helper's counts
    write(
        data_dir,
        [
            record(T0, session_id="plain"),
            record(T0, session_id="searched", web_search_requests=4),
            record(T0, session_id="us", inference_geo="us"),
            record(T0, session_id="global", inference_geo="global"),
        ],
    )
    rows = {r["session"]: r["cost_usd"] for r in _json(capsys, ["report", "session", "--json"])["rows"]}
    assert rows["plain"] == pytest.approx(tokens) and rows["global"] == pytest.approx(tokens)
    assert rows["searched"] == pytest.approx(tokens + 4 * 0.01)  # $10 per 1,000 searches
    assert rows["us"] == pytest.approx(tokens * 1.1)
    compat = _json(capsys, ["report", "session", "--json", "--compat", "ccusage"])["rows"]
    assert {r["session"]: r["cost_usd"] for r in compat}["searched"] == pytest.approx(tokens)


def test_a_ledger_file_from_before_the_search_and_geo_columns_gains_them(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxops_token_capture.ledger import ADDED_COLUMNS, COLUMNS, LEDGER_FILE

    old = {name: kind for name, kind in COLUMNS.items() if name not in ADDED_COLUMNS}
    con = duckdb.connect(str(data_dir / LEDGER_FILE))
    con.execute(
        "CREATE TABLE usage ("
        + ", ".join(f"{name} {kind}" for name, kind in old.items())
        + ", rank INTEGER, PRIMARY KEY (dedupe_key))"
    )
    con.close()
    write(data_dir, [record(T0, session_id="searched", web_search_requests=2)])
    rows = _json(capsys, ["report", "session", "--json"])["rows"]
    assert rows[0]["cost_usd"] == pytest.approx(100 * 3e-6 + 50 * 15e-6 + 2 * 0.01)


def test_a_report_loads_only_when_records_are_pending(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxops_token_capture import ledger as ledger_module
    from ctxops_token_capture.rollup import TABLE

    loads: list[int] = []
    real = ledger_module.Ledger.load_into

    def counted(self: ledger_module.Ledger, con: object, report: object, **kw: object) -> int:
        loads.append(1)
        return real(self, con, report, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger_module.Ledger, "load_into", counted)
    write(data_dir, [record(T0, input_tokens=7)])
    assert main(["report", "day", "--json"]) == 0 and len(loads) == 1
    assert main(["report", "day", "--json"]) == 0 and len(loads) == 1  # nothing pending: no load
    write(data_dir, [record(T0 + timedelta(hours=1), input_tokens=5)])
    assert main(["report", "day", "--json"]) == 0 and len(loads) == 2
    # A roll-up of another definition is rebuilt even when nothing is pending.
    con = duckdb.connect(str(data_dir / "ledger.duckdb"))
    con.execute("UPDATE usage_hourly_state SET version = version + 1")
    con.execute(f"DELETE FROM {TABLE}")
    con.close()
    assert main(["report", "day", "--json"]) == 0 and len(loads) == 3
    con = duckdb.connect(str(data_dir / "ledger.duckdb"), read_only=True)
    assert con.execute(f"SELECT sum(calls) FROM {TABLE}").fetchone()[0] == 2
    con.close()


def test_savings_show_the_latest_bench_as_measured_and_the_records_as_estimated(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Path(_repo(tmp_path, "benched"))
    monkeypatch.chdir(repo)
    doc = _json(capsys, ["savings", "--json"], code=1)
    assert doc["notes"][0].startswith("estimated: ") and "measured: no bench in this repository" in doc["notes"][-1]
    bench = repo / ".meta" / "bench"
    bench.mkdir(parents=True)
    cost = {"pairs": 3, "median": -0.02, "ci95": [-0.03, -0.01], "relative": -0.2}
    overall = [
        {"arm": "off", "runs": 3, "vs_off": None, "flags": None},
        {"arm": "all", "runs": 3, "vs_off": {"cost_usd": cost, "input_tokens": {"relative": -0.25}}, "flags": []},
        {
            "arm": "memory",
            "runs": 3,
            "vs_off": {"cost_usd": {**cost, "relative": 0.1}},
            "flags": ["loss: costs more than off"],
        },
    ]
    latest = {"format": 1, "bench": "b1", "agent": "claude-code", "overall": overall}
    (bench / "latest.json").write_text(json.dumps(latest), encoding="utf-8")
    doc = _json(capsys, ["savings", "--json"], code=1)
    assert doc["meta"]["measured"]["bench"] == "b1"
    measured = [n for n in doc["notes"] if n.startswith("measured")]
    assert measured[0].startswith("measured (ctx bench b1, claude-code, arm all vs off, 3 pairs): cost -20.0%")
    assert (
        "input tokens -25.0%" in measured[0] and "+10.0%" in measured[1] and "loss: costs more than off" in measured[1]
    )
    write(data_dir, [record(T0)])
    page = tmp_path / "ledger.html"
    assert main(["report", "--html", str(page)]) == 0
    capsys.readouterr()
    html = page.read_text(encoding="utf-8")
    assert "Measured with ctx bench (b1)" in html and "arm memory vs off, 3 pairs): cost +10.0%" in html
    (bench / "latest.json").write_text("{not json", encoding="utf-8")  # a broken file is no bench, never an error
    assert "measured: no bench" in _json(capsys, ["savings", "--json"], code=1)["notes"][-1]
