"""`ctx demo`: the whole toolchain on the bundled example, in a temporary copy, in well under a minute.

Each line of ctxops adds a step here as it lands; the output stays short and every figure is computed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxops_contracts.shared.cli import plural

from .example_project import make_example_repo
from .versions import installed_versions

LANGUAGES = {".py": "Python", ".ts": "TypeScript", ".tsx": "TSX", ".go": "Go", ".rs": "Rust", ".java": "Java"}


@dataclass
class DemoContext:
    repo: Path
    head: str


Step = Callable[[DemoContext], list[str]]


def step_packages(ctx: DemoContext) -> list[str]:
    versions = installed_versions()
    have = [f"{'core' if d == 'ctxops' else d.removeprefix('ctxops-')} {v}" for d, v in versions.items() if v]
    missing = [d for d, v in versions.items() if not v]
    lines = [f"{len(have)} packages installed: " + ", ".join(have)]
    if missing:
        lines.append("not installed: " + ", ".join(missing))
    return lines


def step_example(ctx: DemoContext) -> list[str]:
    log = subprocess.run(
        ["git", "-C", str(ctx.repo), "log", "--oneline"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    files = subprocess.run(
        ["git", "-C", str(ctx.repo), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    by_lang: Counter[str] = Counter()
    lines_total = 0
    for name in files:
        lang = LANGUAGES.get(Path(name).suffix)
        if lang:
            by_lang[lang] += 1
            lines_total += (ctx.repo / name).read_bytes().count(b"\n")
    langs = ", ".join(f"{n} {lang}" for lang, n in by_lang.most_common())
    return [
        f"example repo at {ctx.repo} (HEAD {ctx.head[:10]}, {len(log)} commits)",
        f"{len(files)} files tracked; source: {langs}; {lines_total} lines of code",
    ]


def step_contracts(ctx: DemoContext) -> list[str]:
    import ctxops_contracts as c

    good = b'{"symbol_name":"transition","path":"api/orders/state_machine.py","line":42,"role":"call"}'
    ref = c.decode(c.Reference, good)
    lines = [f"contracts: decoded a Reference ({ref.symbol_name} at {ref.path}:{ref.line})"]
    try:
        c.decode(c.Reference, good.replace(b'"line":42', b'"line":"42"'))
    except c.ContractError as exc:
        lines.append(f"contracts: a bad record is refused: {exc}")
    return lines


def step_code_index(ctx: DemoContext) -> list[str]:
    from ctxops_code_graph import CodeIndex

    index = CodeIndex(ctx.repo)
    report = index.build()
    st = index.status()
    langs = ", ".join(f"{n} {lang}" for lang, n in st.files_by_language.items())
    (target,) = index.definitions("OrderStateMachine.transition")
    hops = index.callers(target.id)
    shown = ", ".join(f"{h.symbol.qualname if h.symbol else h.edge.src} [{h.edge.confidence}]" for h in hops[:3])
    more = f" ... and {len(hops) - 3} more" if len(hops) > 3 else ""
    return [
        f"code index: {plural(st.files, 'file')} ({langs}), {plural(st.symbols, 'symbol')}, "
        f"{plural(st.edges, 'edge')} (who calls, imports or inherits what) in {report.elapsed_s:.1f} s, "
        f"revision {st.indexed_revision}",
        f"{plural(len(hops), 'caller')} of {target.qualname} ({target.path}:{target.line}): {shown}{more}",
    ]


def step_ledger(ctx: DemoContext) -> list[str]:
    """Ingest the recorded Claude Code session into a throwaway ledger and sum it per model."""
    from ctxops_token_capture.ingest import Sources, ingest
    from ctxops_token_capture.totals import totals

    from .example_project import example_dir

    recorded = sorted((example_dir() / "sessions").glob("claude-code-*/transcripts"))
    if not recorded:
        return ["ledger: no recorded Claude Code session under examples/sessions"]
    work = ctx.repo.parent / "ledger-demo"
    config, data = work / "claude", work / "data"
    shutil.copytree(recorded[-1], config / "projects")
    report = ingest(Sources(claude_dirs=[config]), data)
    version = recorded[-1].parent.name.removeprefix("claude-code-")
    lines = [
        f"recorded session: a real Claude Code {version}, with the scripted model server of tests/agent_harness "
        "standing in for the model (canned answers, usage figures chosen by the script; no real model was called)",
        f"ledger: ingested {plural(report.files_read, 'transcript file')} ({plural(report.lines_read, 'line')}): "
        f"{plural(report.records, 'model call')}; {plural(report.duplicates, 'line')} repeating a call's usage "
        "(one line per content block) counted once",
    ]
    for row in totals(["model"], root=data).rows:
        lines.append(
            f"ledger: {row['model']}: {plural(row['calls'], 'call')}, {row['input_tokens']:,} input tokens, "
            f"{row['output_tokens']:,} output, {row['cache_creation_tokens']:,} written to the prompt cache, "
            f"{row['cache_read_tokens']:,} read from it"
        )
    return lines


def step_memory(ctx: DemoContext) -> list[str]:
    from .demo_memory import step_memory as run

    return run(ctx)


def step_wiring(ctx: DemoContext) -> list[str]:
    """`ctx init` on the example, what it wrote, and what `ctx doctor` then says."""
    from .doctor import diagnose
    from .init_cmd import apply_init, ctx_argv, plan_init, statusline_available

    plan = plan_init(ctx.repo, ["claude-code"], ctx_argv(), statusline_available())
    written = apply_init(ctx.repo, plan)
    again = [c for c in plan_init(ctx.repo, ["claude-code"], ctx_argv(), statusline_available()).changes if c.changed]
    from .watch_cmd import kick

    kicked = kick(str(ctx.repo))  # what the git hooks run after a commit (the files init wrote are new)
    report = diagnose(ctx.repo)
    problems = "; ".join(f"{p.message} (fix: {p.fix})" for p in report.problems)
    return [
        f"ctx init --agent claude-code: wrote {plural(len(written), 'file')} "
        f"({', '.join(c.path for c in written if not c.path.startswith('.git/'))}, 4 git hooks); "
        f"a second run would change {plural(len(again), 'file')}",
        f"ctx watch kick (what the git hooks run): {kicked}",
        f"ctx doctor: claude-code {'wired' if report.agents['claude-code']['wired'] else 'NOT wired'}, "
        + (f"{plural(len(report.problems), 'problem')}: {problems}" if problems else "no problems found"),
    ]


def step_injection(ctx: DemoContext) -> list[str]:
    """A prompt through `ctx hook claude-code`, as Claude Code runs it: what reaches the model's context."""
    import json

    from .hook_cmd import files_in_play

    prompt = "how should _apply_refunded store money?"
    payload = {"session_id": "demo-2", "cwd": str(ctx.repo), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ctxops_core", "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=ctx.repo,
        timeout=60,
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    # What the index holds for the prompt, shown whole: the hook's own 50 ms budget (timed on the next line)
    # stopped this lookup before its first name on a loaded CI machine, and the line read "none".
    files = files_in_play(str(ctx.repo), prompt, budget=5.0)
    lines = [f"prompt {prompt!r}: files in play from the code index: {', '.join(files) or 'none'}"]
    if not done.stdout.strip():
        lines.append(
            f"ctx hook claude-code ({elapsed:.0f} ms, exit {done.returncode}): captured; nothing injected "
            "(memory-inject offers no hook handler in this install)"
        )
        return lines
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    memories = [line.strip() for line in context.splitlines() if line.startswith("- ")]
    lines.append(
        f"ctx hook claude-code ({elapsed:.0f} ms, exit {done.returncode}): {len(context):,} characters injected "
        f"into the model's context (Claude Code's additionalContext), {plural(len(memories), 'memory', 'memories')}:"
    )
    lines += [f"  {line[:110]}" for line in memories]
    return lines


def step_code_query(ctx: DemoContext) -> list[str]:
    """A few `cq` answers, each with its token count against reading the whole files it answers from."""
    from ctxops_code_query.graph_backend import build_index
    from ctxops_code_query.service import Request, execute
    from ctxops_code_query.tokens import TokenizerUnavailable, estimate_tokens, exact_counter

    try:
        count = exact_counter().count
    except TokenizerUnavailable:
        count = estimate_tokens
    build_index(ctx.repo)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("def", {"name": "OrderStateMachine.transition"}),
        ("callers", {"name": "OrderStateMachine.transition", "depth": 1}),
        ("brief", {"path": "api/orders/service.py"}),
        ("impact", {"name": "verify_signature", "depth": 3}),
    ]
    lines = []
    for command, params in asks:
        rendered = execute(ctx.repo, Request(command=command, params=params, use_cache=False)).rendered
        files = sorted({h.path for h in rendered.result.hits})
        whole = sum(count((ctx.repo / f).read_text(errors="replace")) for f in files)
        subject = next(iter(params.values()))
        answer = count(rendered.text)
        lines.append(
            f"cq {command} {subject}: {plural(rendered.result.total, 'hit')} in {answer} tokens; reading the "
            f"{plural(len(files), 'file')} it comes from instead: {whole:,} tokens "
            f"(the answer is {answer / max(whole, 1):.0%})"
        )
    first = execute(ctx.repo, Request(command="def", params={"name": "transition"})).rendered.text.splitlines()[0]
    lines.append(f"e.g. {first[:100]}")
    return lines


STEPS: list[tuple[str, Step]] = [
    ("packages", step_packages),
    ("example", step_example),
    ("contracts", step_contracts),
    ("code index", step_code_index),
    ("code query", step_code_query),
    ("memory", step_memory),
    ("wiring", step_wiring),
    ("injection", step_injection),
    ("ledger", step_ledger),
]


def main(argv: list[str]) -> int:
    from ctxops_contracts.shared.cli import Parser

    parser = Parser(prog="ctx demo", description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary example repository")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="ctxops-demo-"))
    repo = workdir / "order-service"
    try:
        head = make_example_repo(repo)
        ctx = DemoContext(repo=repo, head=head)
        for name, step in STEPS:
            t0 = time.perf_counter()
            try:
                lines = step(ctx)
            except ModuleNotFoundError as exc:
                # Installing fewer packages gives a smaller ctx: a line that is not installed is skipped.
                if not (exc.name or "").startswith("ctxops_"):
                    raise
                lines = [f"skipped: {exc.name} is not installed"]
            print(f"== {name} ({(time.perf_counter() - t0) * 1000:.0f} ms)")
            for line in lines:
                print(f"   {line}")
        print(f"== done in {time.perf_counter() - started:.1f} s")
        if args.keep:
            print(f"   kept {repo}")
        return 0
    except Exception as exc:  # the demo reports, it does not dump a traceback on a user
        print(f"ctx demo failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
