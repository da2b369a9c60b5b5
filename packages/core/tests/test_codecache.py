"""The hook's code cache: modules come from one file while their sources are unchanged, and from their
sources as soon as they change; a missing, corrupt or unwritable cache costs speed, never the hook."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctxops_contracts.shared import regex
from ctxops_core import codecache
from ctxops_core.codecache import event_kind

# A process that installs the cache for kind "t", imports ctxops_x.mod (and ctxops_x.sub when asked), reports where
# each module's code came from, and saves the cache, as `ctx hook` does.
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from ctxops_core.codecache import install
cache = install("t")
import ctxops_x.mod
import colorsys  # the standard library's: not kept
report = {"value": ctxops_x.mod.VALUE, "loaders": {}, "file": ctxops_x.mod.__file__, "cached": ctxops_x.mod.__cached__}
report["co_filename"] = ctxops_x.mod.where.__code__.co_filename
if len(sys.argv) > 2:
    import ctxops_x.sub
    report["sub"] = ctxops_x.sub.VALUE
    report["path"] = list(ctxops_x.__path__)
for name in ("ctxops_x", "ctxops_x.mod", "ctxops_x.sub"):
    if name in sys.modules:
        report["loaders"][name] = type(sys.modules[name].__spec__.loader).__name__
report["stdlib"] = type(colorsys.__spec__.loader).__name__
cache.save()
print(json.dumps(report))
"""


def probe(tmp_path: Path, cache_dir: Path, *extra: str, flags: tuple[str, ...] = ()) -> dict[str, object]:
    env = {**os.environ, "CTXOPS_CACHE_DIR": str(cache_dir)}
    env.pop("CTXOPS_CODE_CACHE", None)
    argv = [sys.executable, *flags, "-c", PROBE, str(tmp_path / "src"), *extra]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "ctxops_x"
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "mod.py").write_text("VALUE = 1 if __debug__ else -1\n\n\ndef where():\n    return 0\n")
    (root / "sub.py").write_text("VALUE = 'sub'\n")
    return root


def test_a_second_process_imports_from_the_cache_with_the_files_own_attributes(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    first = probe(tmp_path, cache_dir)
    assert first["loaders"] == {"ctxops_x": "SourceFileLoader", "ctxops_x.mod": "SourceFileLoader"}
    assert len(list(cache_dir.glob("code-*-t.marshal"))) == 1
    second = probe(tmp_path, cache_dir)
    assert second["loaders"] == {"ctxops_x": "_Loader", "ctxops_x.mod": "_Loader"}
    assert second["stdlib"] == "SourceFileLoader"
    assert second["value"] == 1
    # what the module says about itself is its file's: tracebacks, __file__, __cached__
    assert (second["file"], second["cached"], second["co_filename"]) == (first["file"], first["cached"], first["file"])
    assert second["co_filename"] == str(pkg / "mod.py")


def test_an_edited_module_is_imported_from_its_source(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    probe(tmp_path, cache_dir)
    assert probe(tmp_path, cache_dir)["loaders"] == {"ctxops_x": "_Loader", "ctxops_x.mod": "_Loader"}
    source = pkg / "mod.py"
    source.write_text("VALUE = 22\n\n\ndef where():\n    return 0\n")  # another size
    changed = probe(tmp_path, cache_dir)
    assert (changed["value"], changed["loaders"]["ctxops_x.mod"]) == (22, "SourceFileLoader")
    assert probe(tmp_path, cache_dir)["value"] == 22  # and the cache now holds the new code
    # same size, another modification time. Python's own .pyc check compares whole seconds: a .pyc an earlier
    # probe wrote (unless PYTHONDONTWRITEBYTECODE is set, as on the machine this test was first run on) would
    # hand Python the old code within the same second, whatever the cache does; it goes, so only the cache's
    # check is tested, on every interpreter.
    for stale in pkg.glob("__pycache__/mod.*.pyc"):
        stale.unlink()
    stat = source.stat()
    source.write_text("VALUE = 33\n\n\ndef where():\n    return 0\n")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1000))
    assert source.stat().st_size == stat.st_size
    same_size = probe(tmp_path, cache_dir)
    assert (same_size["value"], same_size["loaders"]["ctxops_x.mod"]) == (33, "SourceFileLoader")


def test_code_compiled_for_another_optimization_level_is_not_used(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    probe(tmp_path, cache_dir)
    assert probe(tmp_path, cache_dir)["loaders"]["ctxops_x.mod"] == "_Loader"
    assert probe(tmp_path, cache_dir, flags=("-O",))["value"] == -1  # `python -O`: __debug__ is False
    assert probe(tmp_path, cache_dir)["value"] == 1


def test_a_package_from_the_cache_still_finds_submodules_it_has_not_seen(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    probe(tmp_path, cache_dir)
    both = probe(tmp_path, cache_dir, "sub")  # ctxops_x from the cache, ctxops_x.sub found the ordinary way
    assert both["loaders"] == {"ctxops_x": "_Loader", "ctxops_x.mod": "_Loader", "ctxops_x.sub": "SourceFileLoader"}
    assert (both["sub"], both["path"]) == ("sub", [str(pkg)])
    assert probe(tmp_path, cache_dir, "sub")["loaders"]["ctxops_x.sub"] == "_Loader"


def index(path: Path) -> dict[str, tuple]:
    entries, _blob, _old = codecache.read(str(path))
    return entries


def code_of(path: Path, name: str) -> object:
    entries, blob, _old = codecache.read(str(path))
    offset, length = entries[name][6:8]
    return marshal.loads(blob[offset : offset + length])


def test_what_another_payload_of_the_kind_imported_stays_and_costs_no_rewrite(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    probe(tmp_path, cache_dir, "sub")
    path = next(cache_dir.glob("code-*-t.marshal"))
    assert set(index(path)) == {"ctxops_x", "ctxops_x.mod", "ctxops_x.sub"}
    written = path.stat().st_mtime_ns
    assert probe(tmp_path, cache_dir)["loaders"]["ctxops_x.mod"] == "_Loader"  # a run without ctxops_x.sub
    assert probe(tmp_path, cache_dir, "sub")["loaders"]["ctxops_x.sub"] == "_Loader"
    assert path.stat().st_mtime_ns == written  # everything came from the file: not written again
    assert code_of(path, "ctxops_x.sub").co_filename == str(pkg / "sub.py")  # type: ignore[attr-defined]


def test_a_file_past_its_size_limit_starts_over_with_what_the_run_used(tmp_path: Path) -> None:
    path = tmp_path / "code-x-t.marshal"
    big = b"\x00" * (codecache.MAX_BYTES + 1)
    entry = (str(tmp_path / "a.py"), 0, 0, False, str(tmp_path), None, 0, 0)
    codecache.write(str(path), {"used": (entry, big), "unused": (entry, b"x")})
    entries, blob, _old = codecache.read(str(path))
    cache = codecache.CodeCache(str(path), entries, blob, frozenset(sys.modules))
    cache.served.add("used")
    cache.refresh = True  # nothing new was imported: only the age asks for the write
    cache.save()
    assert set(index(path)) == {"used"}


def test_a_file_in_use_is_kept_and_files_unused_for_a_month_are_removed(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    month = time.time() - codecache.UNUSED_S - 3600
    gone, kept = cache_dir / "code-0000-other.marshal", cache_dir / "code-1111-other.marshal"
    leftover, foreign = cache_dir / "code-2222-t.marshal.123.tmp", cache_dir / "notes.txt"
    for path in (gone, kept, leftover, foreign):
        path.write_bytes(b"x")
    for path in (gone, leftover, foreign):
        os.utime(path, (month, month))
    probe(tmp_path, cache_dir)  # a cold run writes its file, and looks around
    assert sorted(p.name for p in cache_dir.iterdir() if p.name.startswith("code-")) == sorted(
        [kept.name, next(cache_dir.glob("code-*-t.marshal")).name]
    )
    assert foreign.exists()  # not a cache file: never touched
    ours = next(cache_dir.glob("code-*-t.marshal"))
    week = time.time() - codecache.REFRESH_S - 3600
    os.utime(ours, (week, week))
    assert probe(tmp_path, cache_dir)["loaders"]["ctxops_x.mod"] == "_Loader"
    assert time.time() - ours.stat().st_mtime < 600  # in use: written again, so it never looks unused


def test_a_corrupt_cache_file_is_ignored_and_written_again(tmp_path: Path, pkg: Path) -> None:
    cache_dir = tmp_path / "cache"
    probe(tmp_path, cache_dir)
    path = next(cache_dir.glob("code-*-t.marshal"))
    stat = (pkg / "mod.py").stat()
    not_code = (str(pkg / "mod.py"), stat.st_mtime_ns, stat.st_size, False, str(pkg), None, 0, 2)
    header = marshal.dumps((codecache.FORMAT, {"ctxops_x.mod": not_code}))
    garbage_files = [
        b"",
        b"\x00not marshal",
        codecache.MAGIC + (10**9).to_bytes(8, "little"),  # an index longer than the file
        codecache.MAGIC + (5).to_bytes(8, "little") + b"\xff" * 20,
        codecache.MAGIC + len(header).to_bytes(8, "little") + header + marshal.dumps(5),  # not code
        codecache.MAGIC + len(header).to_bytes(8, "little") + header,  # no code where the index says
    ]
    for n in (99, codecache.FORMAT):
        bad_index = marshal.dumps((n, {"ctxops_x.mod": "bad"}))
        garbage_files.append(codecache.MAGIC + len(bad_index).to_bytes(8, "little") + bad_index)
    for garbage in garbage_files:
        path.write_bytes(garbage)
        report = probe(tmp_path, cache_dir)
        assert report["value"] == 1
        assert probe(tmp_path, cache_dir)["loaders"]["ctxops_x.mod"] == "_Loader"
        assert code_of(path, "ctxops_x.mod").co_filename == str(pkg / "mod.py")  # type: ignore[attr-defined]


def hook(repo: Path, payload: dict[str, object], **env: str) -> subprocess.CompletedProcess[bytes]:
    script = "import sys; from ctxops_core.cli import main; sys.exit(main())"  # what the console script runs
    return subprocess.run(
        [sys.executable, "-c", script, "hook", "claude-code"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=repo,
        env={**os.environ, **env},
        check=False,
    )


def test_ctx_hook_answers_the_same_with_the_cache_off_cold_warm_and_unwritable(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    lines = [f"tests/test_mod.py::test_case_{i} PASSED" for i in range(300)]
    lines += ["FAILED tests/test_mod.py::test_case_7 - AssertionError: boom", "1 failed, 299 passed in 2.0s"]
    base = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    base |= {"tool_input": {"command": "pytest -v"}}
    base |= {"tool_response": {"stdout": "\n".join(lines), "stderr": "", "interrupted": False, "isImage": False}}
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    cache = str(tmp_path / "cache")
    answers = []
    for n, env in enumerate(
        [
            {"CTXOPS_CODE_CACHE": "0"},
            {"CTXOPS_CACHE_DIR": cache},  # cold: writes the file
            {"CTXOPS_CACHE_DIR": cache},  # warm
            {"CTXOPS_CACHE_DIR": str(blocked / "cache")},  # cannot be written
        ]
    ):
        done = hook(repo, {**base, "tool_use_id": f"t{n}"}, **env)
        assert (done.returncode, done.stderr) == (0, b"")
        replaced = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
        answers.append(replaced.split("[full output:")[0])
    assert len(set(answers)) == 1 and "test_case_7" in answers[0]
    assert list(Path(cache).glob("code-*-claude-code-PostToolUse.marshal"))
    captured = [json.loads(line) for f in sorted((repo / ".meta" / "events").glob("*.jsonl")) for line in f.open()]
    assert [e["tool_use_id"] for e in captured if e.get("event_name") == "PostToolUse"] == ["t0", "t1", "t2", "t3"]


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b'{"session_id": "s", "hook_event_name": "PostToolUse", "x": 1}', "claude-code-PostToolUse"),
        (b'{"hook_event_name":"Stop"}', "claude-code-Stop"),
        (b"{}", "claude-code"),
        (b"", "claude-code"),
        (b'{"hook_event_name": null, "x": "y"}', "claude-code"),
        (b'{"hook_event_name": "' + b"A" * 80 + b'"}', "claude-code"),
        (b'{"hook_event_name": "unterminated', "claude-code"),
    ],
)
def test_the_kind_of_event_is_read_without_parsing_the_json(data: bytes, kind: str) -> None:
    assert event_kind("claude-code", data) == kind


@pytest.mark.parametrize(
    "env",
    [{}, {"CTXOPS_CACHE_DIR": "~/elsewhere"}, {"XDG_CACHE_HOME": "/tmp/xdg"}, {"XDG_CACHE_HOME": " "}],
)
def test_the_cache_directory_is_the_regex_caches(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in ("CTXOPS_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert codecache.cache_dir() == regex.cache_dir()
