"""Fresh `ctx mem` processes and the inject hook at any store size (issue 23, item 4).

The store grows through ``--sizes`` (default 1,000, 10,000 and 50,000 memories: docstrings of the stdlib and
installed packages, as bench/memory_inject_speed.py: the first 12,000, then numbered copies of them). Each
step's memories are written as files directly (as a `git clone` brings them; ``put`` one by one would fold
and compare) and the store's read snapshot brought in step once, in-process (what the detached sync does):
that is how the store is built, and its cost is printed. Then, each in a fresh process, interleaved with
``python -c pass`` so machine load hits all alike, ``--runs`` times: ``ctx mem search WORDS --json``, ``ctx mem show ID
--json``, the inject hook (``python -m ctxops_memory_inject hook claude-code``, UserPromptSubmit) right after
a real ``git pull`` that brought 3 memories (committed in a clone of the store's repository: the store is a
git repository whose memory files are committed at each size; the pull is timed too, with the git hooks `ctx
init` installs, or none with ``--git-hooks off``), the hook after that one, and ``ctx mem add --title ...
--json``. p50/p95 wall and CPU per command, each beside ``python -c pass`` and the load average (the
machine is shared: CPU is the figure that does not depend on the neighbours).

With ``--peer PYTHONPATH`` (another checkout's ``src`` directories) every round runs each command for both
codes, the order alternating, and the table puts them side by side with the CPU p95 ratio.

Run: uv run python bench/memory_cli_speed.py [--sizes 1000,10000,50000] [--runs 20] [--git-hooks on|off]
                                             [--reuse REPO] [--peer PATHS --peer-name main]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from memory_inject_speed import KINDS, docstrings, p95, run_child

UNIQUE = 12_000  # docstrings collected at most (parsing every installed file takes minutes on a busy machine)


def _texts(count: int) -> list[tuple[str, str]]:
    found = docstrings(min(count, UNIQUE))
    out = list(found)
    round_ = 1
    while len(out) < count and found:  # fewer docstrings installed than memories wanted: numbered copies
        round_ += 1
        out += [(f"{t} (part {round_})", f"{b}\n\nPart {round_} of the notes.") for t, b in found[: count - len(out)]]
    return out[:count]


def _grow(root: Path, texts: list[tuple[str, str]], start: int, stop: int) -> list[str]:
    from datetime import UTC, datetime

    from ctxops_contracts import MemoryEntry, new_ulid
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_memory_store.entry_file import file_name, render_entry

    memory = root / ".meta" / "memory"
    ids = []
    now = datetime.now(UTC)
    for i in range(start, stop):
        title, body = texts[i]
        # As a clone brings them: files only (docstrings hold no secrets, so no redaction pass either).
        entry = MemoryEntry(
            id=new_ulid(), kind=KINDS[i % len(KINDS)], title=title, body=body, scope=[f"pkg{i % 40}/**"], created_at=now
        )
        atomic_write(memory / file_name(entry), render_entry(entry), fsync=False)
        ids.append(entry.id)
    return ids


GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "gc.auto=0"]


def _git(where: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(where), *args], check=True, capture_output=True)


def _commit_memories(root: Path, message: str) -> None:
    """Commit the memory files as their author would (the index and state stay out of git)."""
    if not (root / ".git" / "HEAD").exists():
        _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A", ".meta/memory")
    _git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


def _install_git_hooks(root: Path, ctx: str) -> None:
    """The git hooks exactly as `ctx init` writes them (its block only: agents' files stay out of the bench)."""
    from ctxops_core import textblocks
    from ctxops_core.init_cmd import GIT_HOOKS, git_hook_body

    for hook in GIT_HOOKS:
        path = root / ".git" / "hooks" / hook
        path.write_text("#!/bin/sh\n" + textblocks.block(git_hook_body((ctx,), hook)), encoding="utf-8")
        path.chmod(0o755)


def _push(upstream: Path, memories: list[tuple[str, str]]) -> None:
    """A teammate commits ``memories`` in their clone."""
    from ctxops_contracts.shared.files import atomic_write
    from ctxops_memory_store import new_entry
    from ctxops_memory_store.entry_file import file_name, render_entry

    for title, body in memories:
        entry = new_entry(kind="lesson", title=title, body=body)
        atomic_write(upstream / ".meta" / "memory" / file_name(entry), render_entry(entry), fsync=False)
    _git(upstream, "add", ".meta/memory")
    _git(upstream, "commit", "-q", "--no-verify", "-m", "memories")


def _pull_argv(root: Path, upstream: Path) -> list[str]:
    """This repository pulls what the teammate committed (fast-forward), its git hooks included."""
    return [*GIT, "-C", str(root), "pull", "-q", "--ff-only", "--no-rebase", str(upstream), "main"]


def _cpu_now() -> float:
    usage = os.times()
    return usage.user + usage.system + usage.children_user + usage.children_system


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="store sizes, comma-separated, ascending")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--reuse", help="measure again on the store a previous run left (its repository path)")
    parser.add_argument(
        "--git-hooks",
        choices=["on", "off"],
        default="on",
        help="install the git hooks `ctx init` writes (on: the pull folds its memories; off: the agent's hook does)",
    )
    parser.add_argument("--peer", help="a PYTHONPATH with another checkout's sources: each round runs them too, beside")
    parser.add_argument("--peer-name", default="main", help="the peer's label in the table")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.reuse:
        listing = [p.name for p in (Path(args.reuse) / ".meta" / "memory").iterdir() if p.name.endswith(".md")]
        sizes = [len(listing)]
    from ctxops_memory_store import MemoryStore
    from ctxops_memory_store.trust import trust_repository

    extra_count = len(sizes) * args.runs * 5 * (2 if args.peer else 1) + 10
    # A reused store holds the notes and pulls of earlier runs (4 files a round, 5 texts used): start past
    # them (twice the file count), so no title repeats an earlier run's and no `add` turns into a fold.
    start = 2 * sizes[-1] if args.reuse else sizes[-1]
    texts = _texts(start + extra_count)
    extra = texts[start:]
    root = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="memcli-")) / "repo"
    root.mkdir(parents=True, exist_ok=True)
    upstream = root.parent / "upstream"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    py = sys.executable
    ctx = str(Path(py).with_name("ctx"))
    ids: list[str] = []
    used = 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average at start {os.getloadavg()}")
    arms = {"this": env}
    if args.peer:  # the peer's code first on the path (its git hooks' `ctx mem reconcile` too: inherited)
        arms = {args.peer_name: {**env, "PYTHONPATH": args.peer}, "this": env}
    for size in sizes:
        began, cpu = time.perf_counter(), _cpu_now()
        if args.reuse:  # the file names end with the ids' last 6 characters: what `show` takes
            ids = [n[-9:-3] for n in sorted(listing)]
        ids += _grow(root, texts, len(ids), size)
        written = time.perf_counter() - began
        if not args.reuse:  # a reused store's snapshot is the one its last run left (readers fold pulls)
            MemoryStore(root).sync_snapshot()
        trust_repository(root)  # the files were written outside the store: trusted, as their author's clone
        synced = time.perf_counter()
        _commit_memories(root, f"{size} memories")
        if upstream.exists():
            _git(upstream, "pull", "-q", "--ff-only", "--no-rebase", str(root), "main")
        else:
            _git(root.parent, "clone", "-q", str(root), str(upstream))
        hooks = root / ".git" / "hooks"
        for old in hooks.iterdir():
            if not old.name.endswith(".sample"):
                old.unlink()
        if args.git_hooks == "on":
            _install_git_hooks(root, ctx)
        print(
            f"\n{size} memories: files written in {written:.0f} s, the read snapshot brought in step in "
            f"{synced - began - written:.0f} s (CPU {_cpu_now() - cpu:.0f} s for both and git), committed and "
            f"cloned in {time.perf_counter() - synced:.0f} s"
        )
        times: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
        loads: list[float] = []

        def timed(
            arm: str,
            label: str,
            argv: list[str],
            payload: str | None = None,
            times: dict[tuple[str, str], tuple[list[float], list[float]]] = times,
        ) -> str:
            wall, cpu, out = run_child(argv, payload, arms[arm])
            times.setdefault((arm, label), ([], []))[0].append(wall)
            times[arm, label][1].append(cpu)
            return out

        for n in range(args.runs):
            # Arms alternate which goes first, so a load spike hits both alike.
            for arm in list(arms) if n % 2 == 0 else list(arms)[::-1]:
                loads.append(os.getloadavg()[0])
                words = " ".join(extra[used][0].split()[:4])
                timed(arm, "python -c pass", [py, "-c", "pass"])
                out = timed(arm, "ctx mem search", [ctx, "mem", "--root", str(root), "search", words, "--json"])
                assert json.loads(out)["engine"] == "snapshot", out[:200]
                shown = ids[(n * 7919) % len(ids)]
                timed(arm, "ctx mem show", [ctx, "mem", "--root", str(root), "show", shown[-8:], "--json"])
                timed(arm, "python -c pass ", [py, "-c", "pass"])
                # A `git pull` that brings 3 memories a teammate committed, then the next hook and the one after.
                _push(upstream, extra[used + 1 : used + 4])
                timed(arm, "git pull (its hooks)", _pull_argv(root, upstream))
                payload = json.dumps(
                    {
                        "session_id": f"b{n}{arm}",
                        "cwd": str(root),
                        "hook_event_name": "UserPromptSubmit",
                        "prompt": words,
                    }
                )
                hook = [py, "-m", "ctxops_memory_inject", "hook", "claude-code"]
                timed(arm, "hook after git pull", hook, payload)
                timed(arm, "the hook after that", hook, payload)
                title = f"bench note {size}-{n}-{time.time_ns()}: {extra[used + 4][0]}"
                out = timed(arm, "ctx mem add", [ctx, "mem", "--root", str(root), "add", "--title", title, "--json"])
                assert json.loads(out)["action"] == "added", out[:200]
                used += 5
        print(
            f"{'command':<22} {'code':<6} {'wall p50':>9} {'wall p95':>9} {'cpu p50':>8} {'cpu p95':>8}   "
            f"load average during the runs: {min(loads):.1f}-{max(loads):.1f} ({os.cpu_count()} cores)"
        )
        for arm in arms:
            floor = times[arm, "python -c pass"]
            extra_floor = times.pop((arm, "python -c pass "))
            floor[0].extend(extra_floor[0])
            floor[1].extend(extra_floor[1])
        labels = list(dict.fromkeys(label for _, label in times))
        for label in labels:
            for arm in arms:
                walls, cpus = times[arm, label]
                print(
                    f"{label:<22} {arm:<6} {sorted(walls)[len(walls) // 2]:>8.0f}ms {p95(walls):>8.0f}ms "
                    f"{sorted(cpus)[len(cpus) // 2]:>7.0f}ms {p95(cpus):>7.0f}ms"
                )
        if args.peer:
            print(
                f"CPU p95, this / {args.peer_name}: "
                + ", ".join(
                    f"{label} {p95(times['this', label][1]) / max(p95(times[args.peer_name, label][1]), 1e-9):.2f}"
                    for label in labels
                )
            )
        print("(python -c pass: both of its runs per round)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
