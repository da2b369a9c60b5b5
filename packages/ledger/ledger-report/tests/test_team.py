"""The team ledger: machine ids, ``ctx ledger push`` and ``report/totals --from`` on a directory and on a real
S3 API server (moto's server mode) on loopback."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest
from ctxops_ledger_report.cli import main
from ctxops_ledger_report.machine import MACHINE_ENV, machine_id
from ledger_records import T0, record, write

MACHINES = ("alpha", "beta", "gamma")


def _call(i: int, **fields: object) -> object:
    """Call ``i``: one provider message, the same on every machine that holds it."""
    base: dict[str, object] = {
        "message_id": f"msg_{i:04d}",
        "request_id": f"req_{i:04d}",
        "dedupe_key": f"anthropic:msg_{i:04d}:req_{i:04d}",
        "input_tokens": 100 + i,
        "output_tokens": 10 + i % 7,
        "cache_read_tokens": 1000 * (i % 3),
        "session_id": f"s-{i // 20}",
        "cwd": f"/home/dev/p{i % 2}",
    }
    base.update(fields)
    return record(T0 + timedelta(minutes=53 * i), **base)


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Three machines, each its own HOME (so its own machine id) and data dir. Calls 0-59 on alpha, 40-99 on
    beta (40-59 seen on both: a transcript copied between laptops), 90-119 on gamma, 90-99 of them recorded
    through the proxy (a better copy: more output than the transcript said)."""
    monkeypatch.setenv("CTXOPS_CONFIG", str(tmp_path / "user-config.toml"))
    monkeypatch.setenv("CTXOPS_STATUSLINE_NO_REFRESH", "1")
    monkeypatch.delenv(MACHINE_ENV, raising=False)
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    homes = {}
    for name in MACHINES:
        home = tmp_path / name
        (home / "data").mkdir(parents=True)
        homes[name] = home
    write(homes["alpha"] / "data", [_call(i) for i in range(60)])  # type: ignore[misc]
    write(homes["beta"] / "data", [_call(i) for i in range(40, 100)])  # type: ignore[misc]
    gamma = [_call(i, origin="proxy", output_tokens=500) for i in range(90, 100)]
    write(homes["gamma"] / "data", [*gamma, *(_call(i) for i in range(100, 120))])  # type: ignore[misc, list-item]
    return homes


def _as(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("CTXOPS_DATA_DIR", str(home / "data"))
    return home / "data"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> dict:
    assert main(argv) == code, capsys.readouterr()
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return json.loads(out)


def _expected() -> dict[str, dict[str, int]]:
    """Per-day sums of the 120 distinct calls, each once, gamma's proxy copies for 90-99."""
    days: dict[str, dict[str, int]] = {}
    for i in range(120):
        call = _call(i, output_tokens=500) if 90 <= i < 100 else _call(i)
        day = days.setdefault(f"{call.ts:%Y-%m-%d}", {"calls": 0, "input": 0, "output": 0, "cache_read": 0})  # type: ignore[attr-defined]
        day["calls"] += 1
        day["input"] += call.input_tokens  # type: ignore[attr-defined]
        day["output"] += call.output_tokens  # type: ignore[attr-defined]
        day["cache_read"] += call.cache_read_tokens  # type: ignore[attr-defined]
    return days


def _push_all(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], team: dict[str, Path], where: str):
    results = {}
    for name in MACHINES:
        _as(monkeypatch, team[name])
        results[name] = _json(capsys, ["push", where, "--no-ingest", "--json"])
    return results


def _check_team_report(capsys: pytest.CaptureFixture[str], where: str) -> None:
    report = _json(capsys, ["report", "day", "--from", where, "--json"])
    got = {
        r["day"]: {
            "calls": r["calls"],
            "input": r["input_tokens"],
            "output": r["output_tokens"],
            "cache_read": r["cache_read_tokens"],
        }
        for r in report["rows"]
    }
    assert got == _expected()
    assert report["total"]["calls"] == 120
    assert any("3 machines" in n and "30 duplicate row(s) dropped" in n for n in report["notes"]), report["notes"]
    totals = _json(capsys, ["totals", "--by", "day", "--from", where, "--json"])
    assert {r["day"]: r["calls"] for r in totals["rows"]} == {d: v["calls"] for d, v in _expected().items()}
    assert totals["total"]["output_tokens"] == sum(v["output"] for v in _expected().values())
    assert len(totals["machines"]) == 3


def test_a_machine_id_is_made_once_per_machine_random_and_overridable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MACHINE_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a"))
    first = machine_id()
    assert first == machine_id() == (tmp_path / "a" / "ctxops" / "machine-id").read_text().strip()
    assert len(first) == 16 and int(first, 16) >= 0  # random hex, nothing of the host in it
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "b"))
    assert machine_id() != first
    config = tmp_path / "config.toml"
    config.write_text('[ledger]\nmachine_id = "alice-laptop"\n')
    assert machine_id(config) == "alice-laptop"
    monkeypatch.setenv(MACHINE_ENV, "ci-runner-7")
    assert machine_id(config) == "ci-runner-7"
    monkeypatch.setenv(MACHINE_ENV, "../etc")
    with pytest.raises(ValueError, match="machine id"):
        machine_id()


def test_three_machines_push_to_a_directory_and_one_report_counts_each_call_once(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "nfs" / "ledger"
    shared.parent.mkdir()
    pushed = _push_all(monkeypatch, capsys, team, str(shared))
    assert [pushed[m]["rows"] for m in MACHINES] == [60, 60, 30]
    ids = {m: pushed[m]["machine"] for m in MACHINES}
    assert len(set(ids.values())) == 3  # one id per HOME, made on first push
    for m in MACHINES:
        assert ids[m] == (team[m] / ".local" / "state" / "ctxops" / "machine-id").read_text().strip()
        assert all(f"/machine={ids[m]}/part-" in f for f in pushed[m]["files"])
    layout = sorted(str(p.relative_to(shared).parent) for p in shared.rglob("*.parquet"))
    assert all(p.startswith("day=2026-1") and "/machine=" in p for p in layout)
    _check_team_report(capsys, str(shared))

    # Re-push: nothing new, not a byte written.
    before = {p: p.stat().st_mtime_ns for p in shared.rglob("*")}
    again = _push_all(monkeypatch, capsys, team, str(shared))
    assert [again[m]["rows"] for m in MACHINES] == [0, 0, 0]
    assert {p: p.stat().st_mtime_ns for p in shared.rglob("*")} == before

    # One new call on alpha, and a better copy of a call it pushed already: only those two go.
    data = _as(monkeypatch, team["alpha"])
    write(data, [_call(500), _call(5, origin="proxy", output_tokens=999)])  # type: ignore[list-item]
    more = _json(capsys, ["push", str(shared), "--no-ingest", "--json"])
    assert more["rows"] == 2 and more["machine"] == ids["alpha"]
    totals = _json(capsys, ["totals", "--by", "model", "--from", str(shared), "--json"])
    assert totals["total"]["calls"] == 121
    expected_output = sum(v["output"] for v in _expected().values()) - _call(5).output_tokens + 999  # type: ignore[attr-defined]
    assert totals["total"]["output_tokens"] == expected_output + _call(500).output_tokens  # type: ignore[attr-defined]

    # The location lost a day: --again pushes every call once more, and readers still count each call once.
    lost = sorted(shared.glob("day=*"))[0]
    for part in lost.rglob("*.parquet"):
        part.unlink()
    assert _json(capsys, ["totals", "--from", str(shared), "--json"])["total"]["calls"] < 121
    again_rows = {}
    for name in MACHINES:
        _as(monkeypatch, team[name])
        again_rows[name] = _json(capsys, ["push", str(shared), "--again", "--no-ingest", "--json"])["rows"]
    assert again_rows == {"alpha": 61, "beta": 60, "gamma": 30}  # alpha: 60 + call 500 (call 5's copies are one)
    assert _json(capsys, ["totals", "--from", str(shared), "--json"])["total"]["calls"] == 121

    # Any engine reads the layout as it is: each machine's calls, under its machine id.
    rows = duckdb.sql(
        "SELECT count(DISTINCT (machine, dedupe_key)), count(DISTINCT machine) "
        f"FROM read_parquet('{shared}/**/*.parquet', hive_partitioning=true)"
    ).fetchall()
    assert rows == [(151, 3)]
    assert _json(capsys, ["totals", "--from", str(shared), "--json"])["total"]["calls"] == 121


def test_machine_ids_from_the_environment_name_the_partitions(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "synced"
    _as(monkeypatch, team["alpha"])
    monkeypatch.setenv(MACHINE_ENV, "alice-laptop")
    assert _json(capsys, ["push", str(shared), "--no-ingest", "--json"])["machine"] == "alice-laptop"
    assert {p.parent.name for p in shared.rglob("*.parquet")} == {"machine=alice-laptop"}
    monkeypatch.setenv(MACHINE_ENV, "no/slashes")
    assert main(["push", str(shared), "--no-ingest"]) == 2
    err = capsys.readouterr().err
    assert "machine id" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("location", "says"),
    [
        ("{tmp}/missing/parent/ledger", "parent directory"),
        ("{tmp}/a-file", "not a directory"),
        ("gs://bucket/ledger", "unsupported location"),
        ("s3://Bad_Bucket/x", "not an S3 bucket name"),
        ("s3://bucket/x?endpoint=y", "no query string"),
        ("", "empty location"),
    ],
)
def test_a_bad_location_is_one_clear_error_and_exit_2(
    team: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    location: str,
    says: str,
) -> None:
    (tmp_path / "a-file").write_text("x")
    _as(monkeypatch, team["alpha"])
    where = location.format(tmp=tmp_path)
    for argv in (["push", where, "--no-ingest"], ["report", "--from", where], ["totals", "--from", where]):
        says_now = "no such directory" if argv[0] != "push" and says == "parent directory" else says
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert says_now in err.splitlines()[0] and "Traceback" not in err, err
    assert not (team["alpha"] / "data" / "state" / "push").exists() or not any(
        (team["alpha"] / "data" / "state" / "push").glob("*.parquet")
    )


# ------------------------------------------------------------------------------------- a real S3 API


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """moto's S3 server on loopback, a bucket ``team-ledger`` in it; yields its endpoint."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as exc:  # pragma: no cover - moto[server] is in the test group
        pytest.skip(f"moto[server] is not installed ({exc})")
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    try:
        server.start()
    except Exception as exc:  # pragma: no cover - e.g. no loopback socket in a sandbox
        pytest.skip(f"moto's S3 server did not start on loopback: {exc}")
    endpoint = f"http://127.0.0.1:{port}"  # moto 5.0 has no get_host_and_port()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "team-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "team-test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    from pyarrow import fs as pafs

    pafs.S3FileSystem(endpoint_override=endpoint, region="us-east-1", allow_bucket_creation=True).create_dir(
        "team-ledger"
    )
    try:
        yield endpoint
    finally:
        server.stop()


def test_three_machines_push_to_s3_and_the_report_reads_them_back(
    team: dict[str, Path], s3: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    where = "s3://team-ledger/ai/ledger"
    pushed = _push_all(monkeypatch, capsys, team, where)
    assert [pushed[m]["rows"] for m in MACHINES] == [60, 60, 30]
    assert all(f.startswith("team-ledger/ai/ledger/day=") for m in MACHINES for f in pushed[m]["files"])
    _check_team_report(capsys, where)
    again = _push_all(monkeypatch, capsys, team, where)
    assert [again[m]["rows"] for m in MACHINES] == [0, 0, 0]

    from pyarrow import fs as pafs

    bucket = pafs.S3FileSystem(endpoint_override=s3, region="us-east-1")
    listed = bucket.get_file_info(pafs.FileSelector("team-ledger/ai/ledger", recursive=True))
    files = [i.path for i in listed if i.type == pafs.FileType.File]
    assert len(files) == sum(len(pushed[m]["files"]) for m in MACHINES)

    # The same machines pushing to a directory give the same report (state is per location).
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    assert main(["report", "--from", where, "--endpoint", s3, "--json"]) == 0
    capsys.readouterr()


def test_unreadable_parts_in_s3_are_skipped_with_a_note(
    team: dict[str, Path], s3: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    where = "s3://team-ledger/skips/ledger"  # moto's state outlives a server: a prefix of this test's own
    _as(monkeypatch, team["alpha"])
    assert _json(capsys, ["push", where, "--no-ingest", "--json"])["rows"] == 60
    local = tmp_path / "local-copy"
    assert _json(capsys, ["push", str(local), "--no-ingest", "--json"])["rows"] == 60
    _unreadable_parts(local)
    from pyarrow import fs as pafs

    bucket = pafs.S3FileSystem(endpoint_override=s3, region="us-east-1")
    for i in range(4):
        name = f"day=2026-11-28/machine=mallory/part-{i}.parquet"
        with bucket.open_output_stream(f"team-ledger/skips/ledger/{name}") as out:
            out.write((local / name).read_bytes())
    report = _json(capsys, ["report", "day", "--from", where, "--json"])
    assert report["total"]["calls"] == 60
    _assert_skip_notes(report["notes"])
    totals = _json(capsys, ["totals", "--from", where, "--json"])
    assert totals["total"]["calls"] == 60
    _assert_skip_notes(totals["notes"])


def test_s3_errors_are_one_line_and_exit_2(
    team: dict[str, Path], s3: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _as(monkeypatch, team["alpha"])
    assert main(["push", "s3://no-such-bucket/x", "--endpoint", s3, "--no-ingest"]) == 2
    err = capsys.readouterr().err
    assert "bucket 'no-such-bucket' not found" in err.splitlines()[0] and "Traceback" not in err
    closed = f"http://127.0.0.1:{_free_port()}"
    assert main(["report", "--from", "s3://team-ledger/x", "--endpoint", closed]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ctx ledger: error: s3://team-ledger/x:") or "s3://team-ledger/x" in err.splitlines()[0]
    assert "Traceback" not in err
    assert main(["push", "s3://team-ledger/x", "--endpoint", "ftp://nope"]) == 2
    assert "not http(s)://host" in capsys.readouterr().err


def test_foreign_files_are_ignored_and_unreadable_parts_are_skipped_with_a_note(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    _as(monkeypatch, team["alpha"])
    assert _json(capsys, ["push", str(shared), "--no-ingest", "--json"])["rows"] == 60
    (shared / "README.txt").write_text("team ledger")
    (shared / "day=2026-11-28" / "notes.parquet").write_text("not ours")
    (shared / "day=bad" / "machine=x").mkdir(parents=True)
    (shared / "day=bad" / "machine=x" / "part-1.parquet").write_text("not a day")
    assert _json(capsys, ["totals", "--from", str(shared), "--json"])["total"]["calls"] == 60
    _unreadable_parts(shared)
    report = _json(capsys, ["report", "--from", str(shared), "--json"])
    assert report["total"]["calls"] == 60  # every readable call, nothing of the others
    _assert_skip_notes(report["notes"])
    totals = _json(capsys, ["totals", "--by", "machine", "--from", str(shared), "--json"])
    assert totals["total"]["calls"] == 60
    _assert_skip_notes(totals["notes"])
    # In text: the table, then one note line per skipped part, never a traceback.
    assert main(["report", "--from", str(shared)]) == 0
    out, err = capsys.readouterr()
    assert "total" in out and "Traceback" not in err
    skipped = [line for line in out.splitlines() if line.startswith("note: skipped ")]
    assert len(skipped) == 4, out


def _unreadable_parts(shared: Path) -> None:
    """Four parts no report can count: truncated, another tool's, a count of the wrong type, a newer format."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ours = sorted(shared.glob("day=2026-*/machine=*/part-*.parquet"))[0]
    mallory = shared / "day=2026-11-28" / "machine=mallory"
    mallory.mkdir()
    (mallory / "part-0.parquet").write_bytes(b"PAR1 truncated")
    pq.write_table(pa.table({"x": [1, 2], "y": ["a", "b"]}), mallory / "part-1.parquet")
    table = pq.ParquetFile(ours).read()
    wrong = table.set_column(
        table.schema.get_field_index("input_tokens"), "input_tokens", pa.array(["many"] * table.num_rows)
    )
    pq.write_table(wrong, mallory / "part-2.parquet")
    newer = table.replace_schema_metadata({**(table.schema.metadata or {}), b"ctxops.team_format": b"2"})
    pq.write_table(newer, mallory / "part-3.parquet")


def _assert_skip_notes(notes: list[str]) -> None:
    skipped = {n.split(" at ", 1)[0].removeprefix("skipped "): n for n in notes if n.startswith("skipped ")}
    where = "day=2026-11-28/machine=mallory/part-{}.parquet"
    assert set(skipped) == {where.format(i) for i in range(4)}, notes
    assert "damaged, not read" in skipped[where.format(0)]
    assert "not a ctxops team ledger part (no column dedupe_key" in skipped[where.format(1)]
    assert "column input_tokens holds str, not int" in skipped[where.format(2)]
    assert "newer ctxops (team ledger format 2" in skipped[where.format(3)]
    assert all("\n" not in n for n in notes)


def test_a_part_damaged_inside_is_found_and_skipped_with_a_note(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A part whose footer reads well but whose pages do not (bit rot, a bad sync) is found and skipped."""
    shared = tmp_path / "shared"
    _as(monkeypatch, team["alpha"])
    assert _json(capsys, ["push", str(shared), "--no-ingest", "--json"])["rows"] == 60
    victim = sorted(shared.rglob("part-*.parquet"))[0]
    lost = int(duckdb.sql(f"SELECT count(*) FROM read_parquet('{victim}')").fetchall()[0][0])
    assert 0 < lost < 60
    data = bytearray(victim.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    for i in range(4, len(data) - footer):  # every data byte scrambled, the footer and magic kept
        data[i] ^= 0x5A
    victim.write_bytes(bytes(data))
    report = _json(capsys, ["report", "--from", str(shared), "--json"])
    noted = [n for n in report["notes"] if n.startswith(f"skipped {victim.relative_to(shared)} ")]
    assert len(noted) == 1 and "damaged, not read" in noted[0], report["notes"]
    assert report["total"]["calls"] == 60 - lost  # every call of the other parts
    assert main(["totals", "--from", str(shared)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_records_carry_the_machine_that_recorded_them_and_push_files_each_under_its_own(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """alpha's records copied onto beta stay alpha's: in beta's ``report machine``, and under machine=alpha when
    beta pushes them; records written before ids were stamped take the id of the machine whose ledger loads them."""
    from ledger_records import records_in

    data_a = _as(monkeypatch, team["alpha"])
    monkeypatch.setenv(MACHINE_ENV, "alpha")
    write(data_a, [_call(i, machine_id="alpha") for i in range(200, 210)])  # type: ignore[misc]
    stamped = [r for r in records_in(data_a) if r.machine_id == "alpha"]
    assert len(stamped) == 10
    # beta: its own 60 old records (no id) and alpha's 10, copied over with their JSONL.
    data_b = _as(monkeypatch, team["beta"])
    monkeypatch.setenv(MACHINE_ENV, "beta")
    write(data_b, stamped)
    by_machine = _json(capsys, ["report", "machine", "--json", "--no-ingest"])
    assert {r["machine"]: r["calls"] for r in by_machine["rows"]} == {"beta": 60, "alpha": 10}
    totals = _json(capsys, ["totals", "--by", "machine", "--json"])
    assert {r["machine"]: r["calls"] for r in totals["rows"]} == {"alpha": 10, "beta": 60}
    shared = tmp_path / "shared"
    pushed = _json(capsys, ["push", str(shared), "--no-ingest", "--json"])
    assert pushed["machine"] == "beta" and pushed["machines"] == {"alpha": 10, "beta": 60}
    assert {p.parent.name for p in shared.rglob("*.parquet")} == {"machine=alpha", "machine=beta"}
    assert main(["push", str(shared), "--no-ingest"]) == 0
    assert "nothing new" in capsys.readouterr().out
    # --machine renames this machine's calls for the push, never another machine's.
    renamed = _json(capsys, ["push", str(tmp_path / "renamed"), "--machine", "beta-laptop", "--no-ingest", "--json"])
    assert renamed["machines"] == {"alpha": 10, "beta-laptop": 60}
    # alpha pushes its own: the team report counts alpha's 10 once, under alpha.
    _as(monkeypatch, team["alpha"])
    monkeypatch.setenv(MACHINE_ENV, "alpha")
    _json(capsys, ["push", str(shared), "--no-ingest", "--json"])
    team_report = _json(capsys, ["report", "machine", "--from", str(shared), "--json"])
    assert {r["machine"]: r["calls"] for r in team_report["rows"]} == {"alpha": 70, "beta": 40}
    team_totals = _json(capsys, ["totals", "--by", "machine,day", "--from", str(shared), "--json"])
    assert sum(r["calls"] for r in team_totals["rows"] if r["machine"] == "alpha") == 70


def test_a_ledger_written_before_machine_ids_gets_this_machines_on_first_open(
    team: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _as(monkeypatch, team["alpha"])
    monkeypatch.setenv(MACHINE_ENV, "old-laptop")
    assert _json(capsys, ["totals", "--json"])["total"]["calls"] == 60
    # The ledger as the version before this one left it: no machine_id column, a roll-up without it.
    con = duckdb.connect(str(data / "ledger.duckdb"))
    con.execute("ALTER TABLE usage DROP COLUMN machine_id")
    con.execute("ALTER TABLE usage_hourly DROP COLUMN machine_id")
    con.execute("UPDATE usage_hourly_state SET version = 2")
    con.close()
    monkeypatch.setenv(MACHINE_ENV, "new-name")
    by_machine = _json(capsys, ["report", "machine", "--json", "--no-ingest"])
    assert [(r["machine"], r["calls"]) for r in by_machine["rows"]] == [("new-name", 60)]
    con = duckdb.connect(str(data / "ledger.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM usage WHERE machine_id = 'new-name'").fetchone() == (60,)
    con.close()
    # Once stamped, the id stays with the rows (a later rename names only the calls recorded after it).
    monkeypatch.setenv(MACHINE_ENV, "renamed-again")
    write(data, [_call(900)])  # type: ignore[list-item]
    rows = _json(capsys, ["report", "machine", "--json", "--no-ingest"])["rows"]
    assert {r["machine"]: r["calls"] for r in rows} == {"new-name": 60, "renamed-again": 1}
