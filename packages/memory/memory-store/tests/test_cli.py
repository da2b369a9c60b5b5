"""The CLI as people and agents run it: ``python -m ctxops_memory_store``, text and --json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def mem(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxops_memory_store", *args],
        cwd=repo,
        input=stdin,
        text=True,
        capture_output=True,
        check=False,
        timeout=120,
    )


def test_cli_round_trip(repo: Path) -> None:
    added = mem(
        repo,
        "add",
        "--kind",
        "decision",
        "--title",
        "Money is Decimal",
        "--body",
        "Never float.",
        "--scope",
        "api/**",
        "--json",
    )
    assert added.returncode == 0, added.stderr
    entry_id = json.loads(added.stdout)["entry"]["id"]
    body = mem(repo, "add", "--kind", "lesson", "--title", "Race in worker", "--body", "-", stdin="go test -race")
    assert body.returncode == 0 and "added:" in body.stdout
    listed = mem(repo, "list")
    assert "Money is Decimal" in listed.stdout and "[api/**]" in listed.stdout
    found = mem(repo, "search", "float", "--json")
    data = json.loads(found.stdout)
    assert data["engine"] == "catalog" and data["hits"][0]["id"] == entry_id
    assert mem(repo, "search", "nothing-matches-this").returncode == 1
    assert mem(repo, "pin", entry_id[-6:]).returncode == 0
    shown = mem(repo, "show", entry_id, "--json")
    assert json.loads(shown.stdout)["pinned"] is True
    assert "pinned = true" in mem(repo, "show", entry_id).stdout
    assert mem(repo, "unpin", entry_id).returncode == 0
    superseded = mem(repo, "supersede", entry_id, "--title", "Money is integer cents", "--body", "Faster.", "--json")
    assert json.loads(superseded.stdout)["superseded"] == [entry_id]
    forgotten = mem(repo, "forget", entry_id, "--reason", "replaced", "--json")
    assert json.loads(forgotten.stdout)["status"] == "archived"
    assert mem(repo, "rebuild").stdout.startswith("index rebuilt from 3 entries")


def test_review_flow(repo: Path) -> None:
    added = mem(repo, "add", "--title", "Check the queue depth", "--pending", "--json")
    entry_id = json.loads(added.stdout)["entry"]["id"]
    listed = mem(repo, "review")
    assert "Check the queue depth" in listed.stdout and "accept with" in listed.stdout
    accepted = mem(repo, "review", "--accept", entry_id, "--json")
    assert json.loads(accepted.stdout)["accepted"][0]["entry"]["status"] == "active"
    assert "no candidates" in mem(repo, "review", "--no-harvest").stdout


def test_errors_are_clear(repo: Path, tmp_path: Path) -> None:
    missing = mem(repo, "show", "NOPE")
    assert missing.returncode == 2 and "no memory entry with id 'NOPE'" in missing.stderr
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    from ctxops_contracts.shared.repo import try_find_root

    if try_find_root(outside) is None:  # a stray .meta above the temp dir would make it a repository
        done = mem(outside, "list")
        assert done.returncode == 2 and "no .git or .meta" in done.stderr and "--root" in done.stderr
        as_json = mem(outside, "list", "--json")
        assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["fix"]
    (repo / ".meta").mkdir(exist_ok=True)
    (repo / ".meta" / "config.toml").write_text("[memory\n")
    bad = mem(repo, "list")
    assert bad.returncode == 2 and "config.toml" in bad.stderr


def test_broken_files_are_warned_about_and_skipped(repo: Path) -> None:
    mem(repo, "add", "--title", "Good one")
    (repo / ".meta" / "memory" / "fact-bad-zzzzzz.md").write_text("+++\ntitle = \n+++\n")
    listed = mem(repo, "list")
    assert listed.returncode == 0 and "Good one" in listed.stdout
    assert "fact-bad-zzzzzz.md:2:" in listed.stderr


def test_concurrent_adds_from_several_processes_lose_nothing(repo: Path) -> None:
    import subprocess
    import sys

    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ctxops_memory_store",
                "--root",
                str(repo),
                "add",
                "--json",
                "--kind",
                "fact",
                "--title",
                f"Service {n} listens on port {8000 + n}",
                "--body",
                f"Configured in deploy/{n}.yaml.",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [o[1][-300:] for o in outputs]
    ids = {json.loads(o[0])["entry"]["id"] for o in outputs}
    listed = mem(repo, "list", "--json")
    assert listed.returncode == 0 and listed.stderr == ""  # no file skipped as unreadable (torn)
    assert {e["id"] for e in json.loads(listed.stdout)} == ids and len(ids) == 6


def test_options_go_before_or_after_the_command(repo: Path) -> None:
    mem(repo, "add", "--title", "Queue depth alarm at 500")
    before = mem(repo.parent, "--root", str(repo), "--json", "search", "queue")
    after = mem(repo.parent, "search", "queue", "--root", str(repo), "--json")
    assert before.returncode == after.returncode == 0 and before.stdout == after.stdout
    assert "\n" not in before.stdout.strip() and ": " not in before.stdout  # compact JSON
    empty = mem(repo, "search", "nothing-like-this", "--json")
    assert empty.returncode == 1 and json.loads(empty.stdout)["hits"] == []
    bad_time = mem(repo, "search", "queue", "--since", "notadate", "--json")
    assert bad_time.returncode == 2 and "RFC 3339" in json.loads(bad_time.stdout)["error"]["fix"]


def test_add_control_characters_and_secrets_as_the_issue_reported(repo: Path) -> None:
    """`add --title $'a\\x7fb'` used to print "added" and then vanish from `list`; a secret used to reach disk."""
    secret = "ghp_" + "T4kq9Xw2Lm7Rz0Pb3Vn8Yc6Hd1Fs5Gj2Ku4Q"  # random: a1B2c3... is a sample
    added = mem(repo, "add", "--kind", "fact", "--title", "a\x7fb", "--json")
    assert added.returncode == 0, added.stderr
    entry_id = json.loads(added.stdout)["entry"]["id"]
    listed = mem(repo, "list", "--json")
    assert entry_id in listed.stdout and "invalid" not in listed.stderr.lower()
    token = f"GITHUB_TOKEN={secret}"
    lesson = mem(repo, "add", "--kind", "lesson", "--title", "token rotated", "--body", "-", stdin=token)
    assert lesson.returncode == 0, lesson.stderr
    on_disk = "".join(p.read_text() for p in (repo / ".meta" / "memory").glob("*.md"))
    assert secret not in on_disk and "token rotated" in on_disk


def test_add_takes_the_body_as_a_positional_argument_too(repo: Path) -> None:
    added = mem(repo, "add", "--kind", "lesson", "--title", "Rounding", "Round half-even at the end.", "--json")
    assert added.returncode == 0, added.stderr
    shown = mem(repo, "show", json.loads(added.stdout)["entry"]["id"], "--json")
    assert json.loads(shown.stdout)["body"] == "Round half-even at the end."
    twice = mem(repo, "add", "--title", "T", "--body", "a", "b")
    assert twice.returncode == 2 and "given twice" in twice.stderr and "Traceback" not in twice.stderr
