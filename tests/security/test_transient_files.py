"""Promise 3 (transient files): no raw secret reaches disk, not even for a moment, not even when the
process writing is killed with -9.

Real parts only: `ctx hook claude-code` processes for PreToolUse and PostToolUse, the wrapped command run
with `bash -c` as Claude Code runs it, a command that prints secrets and then sleeps while the test reads
every file under `.meta/` and the data directory, and `kill -9` of the spool's writer, of the whole
wrapped command, and of the detached finalizer of a deferred save.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import stat
import string
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the wrapper is POSIX sh")


def _token(alphabet: str, n: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def _secrets() -> dict[str, str]:
    """Fresh values each run, shaped like the real thing and unlike the documented placeholders."""
    alnum = string.ascii_letters + string.digits
    aws = "AKIA" + _token("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    while "EXAMPLE" in aws:  # pragma: no cover - 1 in ~10^11
        aws = "AKIA" + _token("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    body = _token(string.ascii_letters + string.digits + "+/", 64 * 20)
    pem_body = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return {
        "github": "ghp_" + _token(alnum, 36),
        "aws": aws,
        "pem": f"-----BEGIN PRIVATE KEY-----\n{pem_body}\n-----END PRIVATE KEY-----",
    }


def _needles(values: dict[str, str]) -> list[bytes]:
    """What must never be found: each token, and lines of the key's body (a key is found by any line)."""
    pem_lines = values["pem"].splitlines()[1:-1]
    return [values["github"].encode(), values["aws"].encode(), *(line.encode() for line in pem_lines[::5])]


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    project = tmp_path / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    data = tmp_path / "data"
    env = {
        **os.environ,
        "CTXOPS_DATA_DIR": str(data),
        "PATH": f"{bindir}{os.pathsep}{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path / "home"),
    }
    yield project, env


def _ctx_hook(project: Path, env: dict[str, str], payload: dict[str, object]) -> str:
    done = subprocess.run(
        [str(BIN / "ctx"), "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _wrap(project: Path, env: dict[str, str], command: str) -> str:
    out = _ctx_hook(
        project,
        env,
        {
            "session_id": "s1",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        },
    )
    wrapped = json.loads(out)["hookSpecificOutput"]["updatedInput"]["command"]
    assert wrapped != command and "spool_filter" in wrapped
    return str(wrapped)


def _post(project: Path, env: dict[str, str], command: str, stdout: str) -> str:
    return _ctx_hook(
        project,
        env,
        {
            "session_id": "s1",
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
        },
    )


def _files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            try:
                mode = path.lstat().st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISREG(mode):
                yield path


def _raw_on_disk(needles: list[bytes], *roots: Path) -> list[str]:
    """Every file under ``roots`` that holds one of ``needles`` (read whole, FIFOs skipped)."""
    found = []
    for path in _files(*roots):
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            continue
        found += [f"{path}: {needle[:12]!r}" for needle in needles if needle in data]
    return found


def _secret_script(bindir: Path, values: dict[str, str], sleep: float, lines: int = 2000) -> None:
    """A fake `pytest` that prints the secrets among many lines (so they cross the filter's chunks),
    sleeps while the test looks at the disk, then prints more."""
    script = bindir / "pytest"
    filler = "".join(f"tests/test_mod.py::test_case_{i} PASSED\n" for i in range(lines))
    (bindir / "filler.txt").write_text(filler, encoding="utf-8")
    (bindir / "secrets.txt").write_text(
        f"token={values['github']}\naws_access_key_id = {values['aws']}\n{values['pem']}\n", encoding="utf-8"
    )
    script.write_text(
        "#!/bin/sh\n"
        f"cat '{bindir}/filler.txt'\n"
        f"cat '{bindir}/secrets.txt'\n"
        f"cat '{bindir}/filler.txt'\n"
        f"sleep {sleep}\n"
        "echo '1 failed, 4000 passed'\n"
        "exit 1\n",
        encoding="utf-8",
    )
    script.chmod(0o755)


def _watch(proc: subprocess.Popen[bytes], needles: list[bytes], roots: list[Path], timeout: float = 60) -> int:
    """Read every file under ``roots`` over and over while ``proc`` runs; fail on the first raw secret."""
    looks = 0
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        assert time.monotonic() < deadline, "the wrapped command did not finish"
        assert not _raw_on_disk(needles, *roots)
        looks += 1
    assert not _raw_on_disk(needles, *roots)
    return looks


def _spool(project: Path) -> Path:
    return project / ".meta" / ".state" / "guard" / "spool"


def test_wrapped_output_never_reaches_disk_raw(repo: tuple[Path, dict[str, str]]) -> None:
    project, env = repo
    values = _secrets()
    needles = _needles(values)
    bindir = Path(env["PATH"].split(os.pathsep)[0])
    _secret_script(bindir, values, sleep=1.5)
    wrapped = _wrap(project, env, "pytest -q")
    roots = [project / ".meta", Path(env["CTXOPS_DATA_DIR"])]
    proc = subprocess.Popen(["bash", "-c", wrapped], cwd=project, env=env, stdout=subprocess.PIPE)
    looks = _watch(proc, needles, roots)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    assert looks > 5  # the disk was read many times while the secret sat in the sleeping command's output
    assert "[ctxops-exit 1 " in stdout  # the command's own exit status, through the wrapper
    assert values["github"] not in stdout and "middle cut" in stdout
    # private: the spool's directory and what is in it
    assert stat.S_IMODE(_spool(project).stat().st_mode) == 0o700
    for path in _files(_spool(project)):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # the PostToolUse hook reads the (redacted) spool, summarizes it, saves it, and counts in the background
    out = json.loads(_post(project, env, wrapped, stdout))
    summary = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "1 failed, 4000 passed" in summary
    deadline = time.monotonic() + 30
    pending = project / ".meta" / ".state" / "guard" / "pending"
    while any(pending.glob("*")) and time.monotonic() < deadline:
        assert not _raw_on_disk(needles, *roots)
        time.sleep(0.05)
    assert not _raw_on_disk(needles, *roots)
    saved = next((project / ".meta" / "outputs").glob("*.txt")).read_text(encoding="utf-8")
    assert "[REDACTED:" in saved and "test_case_1999 PASSED" in saved
    assert not [p for p in _spool(project).iterdir() if not p.is_fifo()]


def test_the_commands_behaviour_is_kept(repo: tuple[Path, dict[str, str]]) -> None:
    """cd persists, the exit status is the command's, stdin is the command's, under bash and sh."""
    project, env = repo
    (project / "sub").mkdir()
    for shell in ("bash", "sh"):
        wrapped = _wrap(project, env, "cd sub && pytest() { read x; echo got $x; (exit 7); }; pytest")
        done = subprocess.run(
            [shell, "-c", f"{wrapped}\necho cwd=$(pwd)"],
            cwd=project,
            env=env,
            input="hello\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "got hello" in done.stdout, (shell, done.stdout, done.stderr)
        assert "[ctxops-exit 7 " in done.stdout and done.stdout.rstrip().endswith(f"cwd={project / 'sub'}")


def test_a_background_process_holding_the_output_does_not_hang_the_wrapper(
    repo: tuple[Path, dict[str, str]],
) -> None:
    """A build that leaves a server running with the command's output open: the wrapper still ends (the
    spool filter stops reading when the command has ended instead of waiting for the pipe's EOF)."""
    project, env = repo
    wrapped = _wrap(project, env, "pytest() { echo started; (sleep 20; echo late) & }; pytest")
    out = project.parent / "out.txt"
    started = time.monotonic()
    with out.open("wb") as sink:  # a file, not a pipe: the shell's exit is what is timed
        subprocess.run(["bash", "-c", wrapped], cwd=project, env=env, stdout=sink, timeout=60, check=False)
    assert time.monotonic() - started < 10
    text = out.read_text(encoding="utf-8")
    assert "started" in text and "[ctxops-exit 0 " in text


def _filter_pid(spool_id: str) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ctxops_memory_inject.guard.spool_filter" in cmdline and spool_id.encode() in cmdline:
            return int(entry.name)
    return None


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the filter through /proc")
@pytest.mark.parametrize("victim", ["filter", "group"])
def test_kill_9_mid_way_leaves_nothing_raw_and_the_next_hook_sweeps(
    repo: tuple[Path, dict[str, str]], victim: str
) -> None:
    project, env = repo
    values = _secrets()
    needles = _needles(values)
    bindir = Path(env["PATH"].split(os.pathsep)[0])
    _secret_script(bindir, values, sleep=30)
    wrapped = _wrap(project, env, "pytest -q")
    spool_id = wrapped.rsplit("[ctxops-exit %s ", 1)[1].split("]", 1)[0]
    roots = [project / ".meta", Path(env["CTXOPS_DATA_DIR"])]
    proc = subprocess.Popen(
        ["bash", "-c", wrapped], cwd=project, env=env, stdout=subprocess.DEVNULL, start_new_session=True
    )
    part = _spool(project) / f"{spool_id}.part"
    deadline = time.monotonic() + 30
    while not (part.exists() and part.stat().st_size > 0):  # the secrets are printed; the command sleeps
        assert time.monotonic() < deadline and proc.poll() is None
        assert not _raw_on_disk(needles, *roots)
        time.sleep(0.02)
    time.sleep(0.5)
    assert not _raw_on_disk(needles, *roots)
    pid = _filter_pid(spool_id)
    assert pid is not None
    if victim == "filter":
        os.kill(pid, signal.SIGKILL)
        os.killpg(proc.pid, signal.SIGTERM)  # the command would die of SIGPIPE at its next write
    else:
        os.killpg(proc.pid, signal.SIGKILL)  # the shell, the command and the filter at once
    proc.wait(timeout=30)
    assert not _raw_on_disk(needles, *roots)
    assert part.exists()  # what the killed writer left: redacted, and now swept by the next hook's start
    _wrap(project, env, "pytest -q")
    assert not part.exists()
    assert not _raw_on_disk(needles, *roots)


def test_post_tool_use_that_never_arrives_leaves_nothing_raw(repo: tuple[Path, dict[str, str]]) -> None:
    project, env = repo
    values = _secrets()
    needles = _needles(values)
    bindir = Path(env["PATH"].split(os.pathsep)[0])
    _secret_script(bindir, values, sleep=0)
    wrapped = _wrap(project, env, "pytest -q")
    subprocess.run(["bash", "-c", wrapped], cwd=project, env=env, capture_output=True, timeout=60, check=False)
    logs = list(_spool(project).glob("*.log"))
    assert len(logs) == 1 and "[REDACTED:" in logs[0].read_text(encoding="utf-8")  # waiting, redacted
    assert not _raw_on_disk(needles, project / ".meta", Path(env["CTXOPS_DATA_DIR"]))
    old = time.time() - 3600
    os.utime(logs[0], (old, old))  # the PostToolUse never came
    _wrap(project, env, "pytest -q")  # the next wrap sweeps it
    assert not logs[0].exists()


def test_deferred_save_stages_nothing_raw_even_when_its_finalizer_is_killed(
    repo: tuple[Path, dict[str, str]],
) -> None:
    """An unwrapped output the guard summarizes (here a long `make` log): the raw text goes to the detached
    finalizer through a pipe; killed mid-way, it leaves only an empty mark, which the next save sweeps."""
    project, env = repo
    values = _secrets()
    needles = _needles(values)
    roots = [project / ".meta", Path(env["CTXOPS_DATA_DIR"])]
    noise = string.ascii_letters + string.digits
    lines = [f"cc -c src/file{i}.c -o build/{_token(noise, 40)}.o" for i in range(6000)]
    lines[3000:3000] = [f"export GITHUB_TOKEN={values['github']}", f"AWS_ACCESS_KEY_ID={values['aws']}"]
    lines += [*values["pem"].splitlines(), "make: *** [all] Error 2"]
    stdout = "\n".join(lines)
    out = json.loads(_post(project, env, "make", stdout))
    assert "ctx out show" in out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    pending = project / ".meta" / ".state" / "guard" / "pending"
    marks = list(pending.glob("*.wait"))
    assert marks, "the save was deferred to a detached finalizer"
    assert not _raw_on_disk(needles, *roots)
    pid = int(marks[0].read_text().strip() or 0)
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert not _raw_on_disk(needles, *roots)
    _post(project, env, "make", "make: Nothing to be done for 'all'.\n" * 200)  # the next save sweeps
    assert not any(pending.glob("*.wait")) or all(m.name != marks[0].name for m in pending.glob("*.wait"))
    assert not _raw_on_disk(needles, *roots)
