"""`ctx doctor [--json]`: is this repository wired, fresh and healthy — and if not, which command fixes it.

Checks each agent's wiring (hooks and MCP entry present, the hook command reachable), the git hooks,
package versions, the `.meta/` ignore rules, the code index's freshness, the watch daemon, who holds
which lock, and the ledger's transcript sources. Exit 0 when nothing is wrong, 4 when a problem was found.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ctxops_contracts.shared import cli as grammar
from ctxops_contracts.shared.layout import meta_path, user_data_dir
from ctxops_contracts.shared.locks import LockBusy, file_lock, holder_pid
from ctxops_contracts.shared.repo import NotARepository, find_root

from . import agent_trust, agents, jsonc, textblocks
from .init_cmd import GIT_HOOKS, MANIFEST, MEMORY_GIT_HOOKS, hooks_dir
from .versions import installed_versions


@dataclass
class Problem:
    area: str
    message: str
    fix: str


@dataclass
class Report:
    root: str
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    git_hooks: dict[str, bool] = field(default_factory=dict)
    versions: dict[str, str | None] = field(default_factory=dict)
    code_index: dict[str, Any] = field(default_factory=dict)
    watch: dict[str, Any] = field(default_factory=dict)
    locks: list[dict[str, Any]] = field(default_factory=list)
    ledger: dict[str, Any] = field(default_factory=dict)
    memory_trust: dict[str, Any] = field(default_factory=dict)
    memory_vectors: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def problem(self, area: str, message: str, fix: str) -> None:
        self.problems.append(Problem(area, message, fix))


def _commands_in(doc: Any) -> list[str]:
    """Every ``command`` string anywhere in a settings document."""
    found: list[str] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "command" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(_commands_in(value))
    elif isinstance(doc, list):
        for value in doc:
            found.extend(_commands_in(value))
    return found


def command_problem(command: str) -> str | None:
    """What is wrong with a command ``ctx init`` wrote: a program looked up on PATH (which the repository may
    lead: ``node_modules/.bin/ctx``), or a path where nothing runs any more; None when it is sound."""
    words = agents.split_command(command)
    if not words:
        return f"`{command}` cannot be parsed"
    word = words[0]
    if not Path(word).is_absolute():
        found = shutil.which(word)
        where = f" (now {found})" if found else " (not found now)"
        return f"`{command}` runs whatever `{word}` PATH finds first{where}: a repository's node_modules/.bin/ctx too"
    if not (Path(word).is_file() and os.access(word, os.X_OK)):
        return f"`{word}` does not exist or is not executable (ctxops moved or was uninstalled)"
    return None


REWIRE = "run `ctx init --agent {agent}` from the installation agents should run (it writes its absolute path)"


def check_agents(root: Path, report: Report) -> None:
    for agent in agents.AGENT_NAMES:
        info: dict[str, Any] = {"wired": False, "hooks_reachable": None, "mcp": False, "files": []}
        for spec in agents.json_files(agent):
            path = root / spec.path
            if not path.exists():
                continue
            info["files"].append(spec.path)
            try:
                doc = jsonc.load(path.read_text(encoding="utf-8"), path=spec.path, allow_comments=spec.allow_comments)
            except jsonc.HasComments:
                doc = json.loads(jsonc.strip_comments(path.read_text(encoding="utf-8"))[0])
            except (jsonc.BadJson, OSError) as exc:
                report.problem(agent, str(exc), f"fix {spec.path} by hand, then `ctx init --agent {agent}`")
                continue
            commands = _commands_in(doc)
            hooks = [c for c in commands if agents.runs_ctx(c, "hook", agent)]
            ours = hooks + [c for c in commands if agents.runs_ctx(c, "ledger", "statusline")]
            if hooks:
                info["wired"] = True
                info["hook_command"] = hooks[0]
            servers = doc.get("mcpServers") if isinstance(doc, dict) else None
            if isinstance(servers, dict) and agents.MCP_NAME in servers:
                info["mcp"] = True
                server = servers[agents.MCP_NAME]
                if agents._mcp_is_ours(server):
                    ours.append(" ".join(shlex.quote(w) for w in [server["command"], *server.get("args", [])]))
            problems = list(dict.fromkeys(p for p in map(command_problem, ours) if p))
            if hooks:
                info["hooks_reachable"] = not any(command_problem(c) for c in hooks)
            for problem in problems:
                report.problem(agent, f"{spec.path}: {problem}", REWIRE.format(agent=agent))
            if agent == "claude-code" and isinstance(doc, dict) and doc.get(agents.APPROVE_ALL_KEY) is True:
                report.problem(
                    agent,
                    f"{spec.path} sets {agents.APPROVE_ALL_KEY}: true, which approves every MCP server a later "
                    "commit adds to .mcp.json",
                    f'remove it; `ctx init` approves only its own server ("{agents.APPROVE_KEY}": ["ctxops"])',
                )
        if agent == "claude-code":
            local = root / ".claude" / "settings.local.json"
            try:
                local_doc = json.loads(local.read_text(encoding="utf-8")) if local.exists() else None
            except (OSError, ValueError):
                local_doc = None
            if isinstance(local_doc, dict) and local_doc.get(agents.APPROVE_ALL_KEY) is True:
                report.problem(
                    agent,
                    f".claude/settings.local.json sets {agents.APPROVE_ALL_KEY}: true, which approves every MCP "
                    "server a later commit adds to .mcp.json",
                    f'remove it; list the servers you approve in "{agents.APPROVE_KEY}"',
                )
        if info["wired"] and agent in {"gemini", "codex"}:
            # Gemini runs a project's settings only in a trusted folder, Codex only a trusted project's
            # trusted hooks: read from the files each client keeps its trust in (agent_trust).
            trust = agent_trust.gemini_trust(root) if agent == "gemini" else agent_trust.codex_trust(root)
            info["trust"] = {"trusted": trust.trusted, "source": trust.source, **trust.details}
            if trust.problem:
                report.problem(agent, trust.problem, trust.fix or "")
        if agent == "codex":
            config = root / ".codex" / "config.toml"
            text = config.read_text(encoding="utf-8") if config.exists() else ""
            if f"[mcp_servers.{agents.MCP_NAME}]" in text:
                info["mcp"] = True
                codex_problem = _codex_mcp_problem(text)
                if codex_problem:
                    report.problem(agent, f".codex/config.toml: {codex_problem}", REWIRE.format(agent=agent))
        if info["files"] and not info["wired"]:
            report.problem(
                agent, f"{agent} has project settings but ctxops's hooks are not in them", f"ctx init --agent {agent}"
            )
        report.agents[agent] = info
    if not any(a["wired"] for a in report.agents.values()):
        report.problem(
            "agents", "no agent is wired to ctxops in this repository", "ctx init --agent claude-code (or --agent all)"
        )


def _codex_mcp_problem(text: str) -> str | None:
    import tomllib

    try:
        server = tomllib.loads(text).get("mcp_servers", {}).get(agents.MCP_NAME)
    except tomllib.TOMLDecodeError:
        return None
    if not agents._mcp_is_ours(server):
        return None
    return command_problem(" ".join(shlex.quote(w) for w in [server["command"], *server.get("args", [])]))


def _git_hook_problem(text: str) -> str | None:
    """What is wrong with the command in ctxops's block of a git hook (see ``init_cmd.git_hook_body``)."""
    start = text.find(textblocks.BEGIN)
    end = text.find(textblocks.END, start)
    for line in text[start:end].splitlines()[1:]:
        command = line.strip()
        if command.startswith("command -v ") or command.startswith("[ -x "):
            command = command.split("&& ", 1)[-1]
        # `( CTX watch kick ... &)`, or `{ CTX mem reconcile ...; ( CTX watch kick ... &); }` after a pull
        command = command.lstrip("{ (").split(" mem reconcile", 1)[0].split(" watch kick", 1)[0]
        if command:
            return command_problem(command + " watch kick")
    return None


def check_git_hooks(root: Path, report: Report) -> None:
    where, _ = hooks_dir(root)
    for hook in GIT_HOOKS:
        path = where / hook
        try:
            text = path.read_text(encoding="utf-8")
            ours = textblocks.has_block(text) and os.access(path, os.X_OK)
        except (OSError, UnicodeDecodeError):
            ours = False
        report.git_hooks[hook] = ours
        problem = _git_hook_problem(text) if ours else None
        if problem:
            report.problem("git hooks", f"{hook}: {problem}", "run `ctx init` from the installation to use")
        elif ours and hook in MEMORY_GIT_HOOKS and " mem reconcile" not in text:
            # written by an older `ctx init`: pulled memories are folded by the agent's next hook, not the pull
            report.problem("git hooks", f"{hook}: written by an older `ctx init` (no `ctx mem reconcile`)", "ctx init")
    missing = [h for h, ok in report.git_hooks.items() if not ok]
    if missing and (root / MANIFEST).exists():
        report.problem("git hooks", f"missing or not executable: {', '.join(missing)}", "ctx init")


def check_meta(root: Path, report: Report) -> None:
    probe = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "-q", ".meta/events/probe.jsonl"], capture_output=True, check=False
    )
    if (root / ".meta").exists() and probe.returncode != 0:
        report.problem(".meta", "captured events under .meta/events/ are not ignored by git", "ctx init")


def check_code_index(root: Path, report: Report) -> None:
    try:
        from ctxops_code_graph import CodeIndex
        from ctxops_code_graph.index import IndexNotBuilt
    except ModuleNotFoundError:
        report.code_index = {"installed": False}
        return
    damage = _index_damage(root)
    if damage:
        report.code_index = {"installed": True, "built": None, "damaged": [str(p) for p, _ in damage]}
        for path, why in damage:
            report.problem("code index", f"{path} is {why}", "cq index --full (moves it aside, then rebuilds)")
        return
    try:
        with CodeIndex(root, auto_update=False) as index:
            stale = index.stale_files()
            revision = index.revision
    except IndexNotBuilt:
        from ctxops_code_graph.background import build_running

        building = build_running(root)
        report.code_index = {"installed": True, "built": False, "building": building}
        if not building:  # a first build in progress (`ctx init` or a first `cq` started it) is not a problem
            report.problem("code index", "no code index yet", "ctx code index")
        return
    except Exception as exc:  # an unreadable or locked index is reported, not fatal to the doctor
        report.code_index = {"installed": True, "built": None, "error": str(exc)}
        report.problem("code index", f"cannot read the code index: {exc}", "ctx code index --full")
        return
    report.code_index = {"installed": True, "built": True, "revision": revision, "stale_files": len(stale)}
    if stale and not report.watch.get("running"):
        report.problem(
            "code index", f"{grammar.plural(len(stale), 'stale file')}", "ctx code index (or `ctx watch start`)"
        )


def _index_damage(root: Path) -> list[tuple[Path, str]]:
    """Index files that are damaged or not ctxops's (an older code-graph without the check: none)."""
    try:
        from ctxops_code_graph.health import damaged
        from ctxops_code_graph.layout import IndexLayout
    except ImportError:
        return []
    try:
        return damaged(IndexLayout(root.resolve()), deep=True)
    except OSError as exc:  # a symlinked .meta/index and the like: reported by the read below
        return [(root / ".meta" / "index", f"not readable ({exc})")]


def check_watch(root: Path, report: Report) -> None:
    from .watch_cmd import running_pid

    pid = running_pid(str(root))
    report.watch = {"running": bool(pid), "pid": pid if pid and pid > 0 else None}


def check_locks(root: Path, report: Report) -> None:
    """Every lock file under ``.meta/`` and the user data dir, and the pid holding it right now, if any."""
    places = [Path(meta_path(str(root))), Path(user_data_dir())]
    for place in places:
        if not place.is_dir():
            continue
        for path in sorted(place.rglob("*.lock")):
            try:
                with file_lock(path, timeout=0.0):
                    held, pid = False, None
            except LockBusy:
                held, pid = True, holder_pid(path)
            except OSError:
                continue
            report.locks.append({"path": str(path), "held": held, "holder_pid": pid})


def check_ledger(report: Report) -> None:
    try:
        from ctxops_token_capture.ingest import Sources, discover
        from ctxops_token_capture.paths import data_dir
    except ModuleNotFoundError:
        report.ledger = {"installed": False}
        return
    sources = Sources.defaults()
    files = discover(sources)
    by_kind: dict[str, int] = {}
    for source in files:
        by_kind[source.kind] = by_kind.get(source.kind, 0) + 1
    report.ledger = {
        "installed": True,
        "data_dir": str(data_dir()),
        "claude_dirs": [str(d) for d in sources.claude_dirs],
        "codex_homes": [str(h) for h in sources.codex_homes],
        "gemini_dirs": [str(g) for g in sources.gemini_dirs],
        "transcripts": by_kind,
    }


def check_memory_trust(root: Path, report: Report) -> None:
    """Memories held back from injection (they came through git, unreviewed): said, not a problem."""
    try:
        from ctxops_memory_store import MemoryStore, trust
    except ModuleNotFoundError:
        return
    trusted = trust.repository_trusted(root)
    held = [] if trusted else MemoryStore(root).held_back()
    report.memory_trust = {"trusted": trusted, "held_back": len(held), "record": trust.trust_dir()}


def check_memory_vectors(root: Path, report: Report) -> None:
    """Which embedder memory search uses, and whether vectors are fused with BM25 (issue 23)."""
    try:
        from ctxops_memory_store.config import ConfigError, load_config
        from ctxops_memory_store.vector import describe
    except ModuleNotFoundError:
        return
    try:
        report.memory_vectors = describe(load_config(root))
    except ConfigError as exc:
        report.problem("memory", str(exc), "fix the [memory] section of .meta/config.toml")


def diagnose(root: Path) -> Report:
    report = Report(root=str(root))
    report.versions = installed_versions()
    check_agents(root, report)
    check_git_hooks(root, report)
    check_meta(root, report)
    check_watch(root, report)
    check_code_index(root, report)
    check_locks(root, report)
    check_ledger(report)
    check_memory_trust(root, report)
    check_memory_vectors(root, report)
    return report


def render(report: Report) -> str:
    lines = [f"ctx doctor: {report.root}"]
    for agent, info in report.agents.items():
        if not info["wired"]:
            state = "not wired"
        else:
            reach = "hooks reachable" if info["hooks_reachable"] else "hook command NOT reachable"
            state = f"wired ({reach}; MCP {'yes' if info['mcp'] else 'no'})"
            trust = info.get("trust")
            if isinstance(trust, dict) and trust.get("trusted") is not None:
                state += f"; {'trusted' if trust['trusted'] else 'NOT trusted'} ({trust['source']})"
        lines.append(f"  {agent:<12} {state}")
    hooks = ", ".join(h for h, ok in report.git_hooks.items() if ok) or "none"
    lines.append(f"  git hooks    {hooks}")
    have = [f"{d.removeprefix('ctxops-') if d != 'ctxops' else 'core'} {v}" for d, v in report.versions.items() if v]
    missing = [d for d, v in report.versions.items() if not v]
    lines.append(f"  packages     {', '.join(have)}" + (f"; not installed: {', '.join(missing)}" if missing else ""))
    ci = report.code_index
    if ci.get("built"):
        lines.append(f"  code index   revision {ci['revision']}, {grammar.plural(ci['stale_files'], 'stale file')}")
    else:
        state = "not installed" if not ci.get("installed") else "being built" if ci.get("building") else "not built"
        lines.append(f"  code index   {state}")
    watch = f"running (pid {report.watch['pid']})" if report.watch.get("running") else "not running"
    lines.append(f"  watch        {watch}")
    held = [lock for lock in report.locks if lock["held"]]
    lines.append(f"  locks        {grammar.plural(len(report.locks), 'lock file')}, {len(held)} held")
    for lock in held:
        lines.append(f"               {lock['path']}: held by pid {lock['holder_pid'] or 'unknown'}")
    if report.ledger.get("installed"):
        kinds = ", ".join(f"{grammar.plural(n, k + ' transcript')}" for k, n in report.ledger["transcripts"].items())
        lines.append(f"  ledger       {kinds or 'no transcripts found'} (ledger at {report.ledger['data_dir']})")
    trust = report.memory_trust
    if trust:
        if trust["trusted"]:
            state = "repository trusted: every memory is injected (`ctx trust --revoke`)"
        elif trust["held_back"]:
            count = grammar.plural(trust["held_back"], "memory", "memories")
            state = f"{count} from git held back until reviewed (`ctx mem review`) or trusted (`ctx trust`)"
        else:
            state = "memories written or accepted here are injected; none held back"
        lines.append(f"  memory       {state}")
    vec = report.memory_vectors
    if vec:
        if vec["hybrid"]:
            state = f"hybrid search: BM25 + {vec['embedder']} vectors"
        elif vec["vectors"]:
            state = f"vectors on with {vec['embedder']} (lexical: search stays BM25)"
        else:
            state = "BM25 alone (install ctxops-memory-store[embed] for a local embedder)"
        lines.append(f"  mem search   {state}")
    if report.problems:
        lines.append(f"{grammar.plural(len(report.problems), 'problem')}:")
        for p in report.problems:
            lines.append(f"  - {p.area}: {p.message}\n    fix: {p.fix}")
    else:
        lines.append("no problems found")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = grammar.Parser(prog="ctx doctor", description=__doc__.splitlines()[0])
    grammar.add_common_options(parser, subcommand=False)
    args = parser.parse_args(argv)
    try:
        root = Path(find_root(explicit=args.root))
    except NotARepository as exc:
        return grammar.report_error(grammar.CliError(exc.message, exc.fix), prog="ctx doctor", json_mode=args.json)
    report = diagnose(root)
    if args.json:
        data = asdict(report)
        grammar.emit_json(data)
    else:
        print(render(report))
    return grammar.EXIT_CHECK_FAILED if report.problems else grammar.EXIT_OK
