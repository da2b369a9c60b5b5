"""How sure are `cq callers` and `cq refs`? Their answers against jedi on outside Python projects.

    uv sync --group bench
    uv run python bench/cq_resolution.py                      # flask and httpx sdists from PyPI
    uv run python bench/cq_resolution.py --sample 80 flask==3.1.2 rich
    uv run python bench/cq_resolution.py DIR/flask-3.1.3.tar.gz DIR/httpx-0.28.1.tar.gz   # already downloaded

For each project (an sdist fetched with `pip download`, unpacked into a temporary git repository):
index it, sample functions and methods (no dunders), ask jedi for every reference of each from its
definition (`Script.get_references`, project scope), keep the ones with at least one call site (a
reference followed by `(`), and compare with what `cq callers` and `cq refs` answer for the same
definition (by symbol id, so the lookup of the name is not what is measured):

- certain callers: site precision and recall (sites are file:line);
- certain + possible (name-only candidates listed apart): site recall;
- certain refs: precision against jedi's references.

jedi's reference search misses calls whose receiver it infers only at the site (pytest fixtures,
`response = client.get(...)`): every listed site (certain or possible) that the search lacks is checked
with `goto` at the site, and joins the truth when jedi lands on the definition there.

Figures are micro-averaged over all sampled sites. jedi is the outside truth; where it cannot infer a
receiver it misses calls too, so a "wrong" certain answer is worth reading before trusting the ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
DEFAULT_PROJECTS = ("flask", "httpx")
_DECORATOR = re.compile(r"@(?:[A-Za-z_]\w*\.){0,4}")  # what comes before a decorator's last name


@dataclass
class Tally:
    functions: int = 0
    truth_calls: int = 0
    certain: int = 0
    certain_right: int = 0
    certain_found: int = 0  # truth call sites among the certain answers
    all_found: int = 0  # truth call sites among certain + possible
    possible: int = 0
    confirmed: int = 0  # call sites jedi's reference search missed and `goto` at the site confirmed
    truth_refs: int = 0
    refs: int = 0
    refs_right: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    wrong_refs: list[str] = field(default_factory=list)
    # Calls of a parameter jedi links to the function (a pytest fixture's value called in a test: pytest
    # calls the fixture, the test calls what it returned): left out of the truth, counted apart.
    param_calls: int = 0
    param_calls_certain: int = 0  # of those, listed by cq as certain
    certain_sites: set[tuple[str, int]] = field(default_factory=set)  # one function's, not summed

    def add(self, other: Tally) -> None:
        for name in ("functions", "truth_calls", "certain", "certain_right", "certain_found", "all_found"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("possible", "confirmed", "truth_refs", "refs", "refs_right", "param_calls", "param_calls_certain"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.wrong += other.wrong
        self.missed += other.missed
        self.wrong_refs += other.wrong_refs

    def line(self, label: str) -> str:
        def ratio(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "n/a"

        return (
            f"{label}: {self.functions} functions, {self.truth_calls} true call sites ({self.confirmed} confirmed at"
            f" the site) | certain callers precision"
            f" {ratio(self.certain_right, self.certain)} ({self.certain_right}/{self.certain}), recall"
            f" {ratio(self.certain_found, self.truth_calls)} | certain+possible recall"
            f" {ratio(self.all_found, self.truth_calls)} ({self.possible} possible listed) | certain refs precision"
            f" {ratio(self.refs_right, self.refs)} ({self.refs_right}/{self.refs}, {self.truth_refs} true refs)"
            f" | calls of a parameter left out: {self.param_calls} ({self.param_calls_certain} certain; certain"
            f" recall counting them"
            f" {ratio(self.certain_found + self.param_calls_certain, self.truth_calls + self.param_calls)})"
        )


def fetch(spec: str, dest: Path) -> Path:
    """An sdist from PyPI, unpacked into a fresh git repository; returns its root."""
    if spec.endswith(".tar.gz") and Path(spec).is_file():
        archive = Path(spec)  # already downloaded (pip download --no-deps --no-binary :all: NAME)
    else:
        dl = dest / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip"] if _has_pip() else ["/usr/bin/python3", "-m", "pip"]
        subprocess.run([*pip, "download", "--no-deps", "--no-binary", ":all:", "-q", "-d", str(dl), spec], check=True)
        name = re.split(r"[=<>!~\[]", spec, maxsplit=1)[0].lower().replace("-", "_")
        archive = next(p for p in sorted(dl.iterdir()) if p.name.lower().replace("-", "_").startswith(name))
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    root = dest / archive.name.removesuffix(".tar.gz")
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / ".gitignore").write_text(".meta/\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=GIT_ENV)
    subprocess.run(
        ["git", "commit", "-q", "-m", "sdist"], cwd=root, check=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}
    )
    return root


def _has_pip() -> bool:
    import importlib.util

    return importlib.util.find_spec("pip") is not None


def source_roots(root: Path) -> list[str]:
    """Directories holding top-level packages (a package whose parent is none): what `sys.path` would
    need for jedi to follow the project's absolute imports (`src/`, `examples/tutorial/`, the root)."""
    roots = {str(root)}
    for init in root.rglob("__init__.py"):
        pkg = init.parent
        if not (pkg.parent / "__init__.py").exists():
            roots.add(str(pkg.parent))
    return sorted(roots)


def name_column(root: Path, path: str, line: int, name: str) -> int | None:
    try:
        text = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return None
    m = re.search(rf"\bdef\s+({re.escape(name)})\b", text)
    return m.start(1) if m else None


def measure(root: Path, sample: int, seed: int, budget_s: float) -> Tally:
    import jedi
    from ctxops_code_graph import CodeIndex
    from ctxops_code_query.context import QueryContext
    from ctxops_code_query.graph_backend import open_index

    index = CodeIndex(root, auto_update=False)
    report = index.build(full=True)
    print(f"  indexed {report.scanned} files in {report.elapsed_s:.1f} s")
    symbols = [
        s
        for s in index.all_symbols()
        if s.lang == "python" and s.kind in ("function", "method") and not s.name.startswith("__")
    ]
    # The index lists symbols in no fixed order (its scan is parallel): sorted first, the same seed draws
    # the same functions in every run of one corpus.
    symbols.sort(key=lambda s: (s.path, s.line, s.qualname, s.id))
    random.Random(seed).shuffle(symbols)
    # The project's own packages first: an installed copy of the same package (httpx is a dependency of
    # this workspace) would otherwise take `import httpx` in the project's tests away from the sdist.
    sys_path = [*source_roots(root), *jedi.get_default_environment().get_sys_path()]
    project = jedi.Project(str(root), sys_path=sys_path, smart_sys_path=False)
    ctx = QueryContext(root=root, open_index=open_index)
    params = ParameterCalls(root)
    total = Tally()
    started = time.perf_counter()
    drawn: list[str] = []  # the functions scored, in order: their digest tells two runs' samples apart
    for sym in symbols:
        if total.functions >= sample or time.perf_counter() - started > budget_s:
            break
        col = name_column(root, sym.path, sym.line, sym.name)
        if col is None:
            continue
        try:
            found = jedi.Script(path=str(root / sym.path), project=project).get_references(
                sym.line, col, include_builtins=False, scope="project"
            )
        except Exception as exc:
            print(f"  jedi failed on {sym.qualname} ({type(exc).__name__}): skipped")
            continue
        truth_refs: set[tuple[str, int]] = set()
        truth_calls: set[tuple[str, int]] = set()
        param_calls: set[tuple[str, int]] = set()
        for ref in found:
            # jedi counts an import statement as a definition (of the imported name): only the function's
            # own definition is left out.
            if ref.module_path is None or ref.line is None:
                continue
            try:
                rel = Path(ref.module_path).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                continue
            lines = ctx.file_lines(rel)
            text = lines[ref.line - 1] if ref.line <= len(lines) else ""
            # The name as written there: an import's alias (`from ._funcs import asdict as _asdict`) too
            written = re.match(r"\w+", text[ref.column :])
            after = text[ref.column + len(written.group() if written else sym.name) :].lstrip()
            before = text[: ref.column]
            if (rel, ref.line) == (sym.path, sym.line) or before.rstrip().endswith("def"):
                continue  # the definition itself, an overload's or a property setter's
            truth_refs.add((rel, ref.line))
            # A call: the name followed by `(`, or a decorator (`@name`, `@attrs.define`, called with the
            # function; not `@name.setter` or `@cli.command()`, which call something else).
            if after.startswith("(") or (_DECORATOR.fullmatch(before.strip()) and not after.startswith(".")):
                name = written.group() if written else ""
                if after.startswith("(") and params.calls_a_parameter(rel, ref.line, before, name):
                    param_calls.add((rel, ref.line))
                else:
                    truth_calls.add((rel, ref.line))
        param_calls -= truth_calls  # another call on the same line is of the function
        if not truth_calls and not param_calls:
            continue  # (a function whose only calls are of a parameter is drawn, as before: the same sample)
        # An `@overload` signature and its implementation are one function to a caller: jedi's `goto` at a call
        # lands on the implementation (or an overload), whichever of the set was drawn.
        same = frozenset(s.line for s in index.symbols_in_file(sym.path) if s.qualname == sym.qualname)
        verify = _site_check(jedi, project, root, ctx, sym, skip=frozenset(param_calls), overloads=same)
        tally = score(ctx, sym, truth_calls, truth_refs, verify=verify)
        tally.param_calls = len(param_calls)
        tally.param_calls_certain = len(param_calls & tally.certain_sites)
        total.add(tally)
        drawn.append(sym.id)
    index.close()
    digest = hashlib.sha1("\n".join(drawn).encode()).hexdigest()[:12]
    print(f"  sample: {len(drawn)} functions of {len(symbols)}, digest {digest} (equal digests: same functions)")
    return total


class ParameterCalls:
    """Which bare-name calls call a parameter of a function around them (Python's scoping: the parameter
    shadows any definition outside). jedi links a test's fixture parameter to the fixture function, so
    `test_client_factory(app)` is in its references of the fixture; the test calls the fixture's value."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._scopes: dict[str, list[tuple[int, int, frozenset[str]]]] = {}

    def calls_a_parameter(self, path: str, line: int, before: str, name: str) -> bool:
        if before.rstrip().endswith("."):
            return False  # an attribute: `obj.name(...)` is not the parameter
        # the function around the call or one around it (a closure reads the outer test's parameter)
        return any(s[0] <= line <= s[1] and name in s[2] for s in self._function_scopes(path))

    def _function_scopes(self, path: str) -> list[tuple[int, int, frozenset[str]]]:
        if path not in self._scopes:
            import ast

            try:
                tree = ast.parse((self.root / path).read_bytes())
            except (OSError, SyntaxError, ValueError):
                tree = ast.Module(body=[], type_ignores=[])
            scopes = []
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    a = node.args
                    names = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x}
                    # a parameter the body binds again (`def filter_func(x): ...` in jinja2's list_templates)
                    # may hold the function: that call is the function's, as jedi says
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
                            names.discard(inner.id)
                        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                            names.discard(inner.name)
                    body_start = node.body[0].lineno if isinstance(node.body, list) else node.lineno
                    scopes.append((body_start, node.end_lineno or node.lineno, frozenset(names)))
            self._scopes[path] = scopes
        return self._scopes[path]


def _site_check(
    jedi: Any,
    project: Any,
    root: Path,
    ctx: Any,
    sym: Any,
    *,
    skip: frozenset[tuple[str, int]] = frozenset(),
    overloads: frozenset[int] = frozenset(),
) -> Callable[[str, int], bool]:
    """Asks jedi at a call site (`goto`, imports followed) whether the called name is `sym`: jedi's search
    for references from the definition gives up on receivers it infers only from the site (a pytest
    fixture, `response = client.get(...)`), which `goto` at the site still resolves."""

    def check(path: str, line: int) -> bool:
        if (path, line) in skip:
            return False  # a call of a parameter (see ParameterCalls)
        lines = ctx.file_lines(path)
        text = lines[line - 1] if line <= len(lines) else ""
        for m in re.finditer(rf"\b{re.escape(sym.name)}\s*\(", text):
            try:
                found = jedi.Script(path=str(root / path), project=project).goto(line, m.start(), follow_imports=True)
            except Exception:
                continue
            for d in found:
                if d.module_path is None or d.line is None:
                    continue
                try:
                    rel = Path(d.module_path).resolve().relative_to(root.resolve()).as_posix()
                except ValueError:
                    continue
                if rel == sym.path and (d.line == sym.line or d.line in overloads):
                    return True
        return False

    return check


def score(
    ctx: Any,
    sym: Any,
    truth_calls: set[tuple[str, int]],
    truth_refs: set[tuple[str, int]],
    *,
    judged: Callable[[str], bool] = lambda path: True,
    verify: Callable[[str, int], bool] | None = None,
) -> Tally:
    """`cq callers` and `cq refs` of one definition (by symbol id) against its true call sites and uses;
    only answers in files the truth covers (`judged`) are scored. With `verify`, a listed site (certain or
    possible) the truth lacks is checked at the site and, if confirmed, joins the truth (so recall's
    denominator grows with precision's numerator: every listed candidate is checked alike)."""
    from ctxops_code_query.commands import cmd_callers, cmd_refs

    callers = cmd_callers(ctx, sym.id)
    certain = {(h.path, h.line) for h in callers.hits if h.confidence != "name-only" and judged(h.path)}
    possible = {(h.path, h.line) for h in callers.hits if h.confidence == "name-only" and judged(h.path)}
    n_truth = len(truth_calls)
    if verify is not None:
        confirmed = {site for site in sorted((certain | possible) - truth_calls) if verify(*site)}
        truth_calls = truth_calls | confirmed
        truth_refs = truth_refs | confirmed
    t = Tally(functions=1, truth_calls=len(truth_calls), truth_refs=len(truth_refs))
    t.confirmed = len(truth_calls) - n_truth
    t.certain, t.certain_right = len(certain), len(certain & truth_calls)
    t.certain_found = len(truth_calls & certain)
    t.all_found = len(truth_calls & (certain | possible))
    t.possible = len(possible)
    t.certain_sites = {(p, ln) for p, ln in certain if ln is not None}
    t.wrong = [f"{sym.qualname} <- {p}:{ln}" for p, ln in sorted(certain - truth_calls)]
    t.missed = [
        f"{sym.qualname} <- {p}:{ln}{' (listed as possible)' if (p, ln) in possible else ''}"
        for p, ln in sorted(truth_calls - certain)
    ]
    refs = cmd_refs(ctx, sym.id)
    certain_refs = {(h.path, h.line) for h in refs.hits if h.confidence != "name-only" and judged(h.path)}
    t.refs, t.refs_right = len(certain_refs), len(certain_refs & truth_refs)
    t.wrong_refs = [f"{sym.qualname} <- {p}:{ln}" for p, ln in sorted(certain_refs - truth_refs)]
    return t


def score_uses(
    root: Path,
    index: Any,
    uses: list[dict[str, Any]],
    lang: str,
    *,
    sample: int,
    seed: int,
    checked: set[str] | None = None,
) -> Tally:
    """Score sampled definitions against a compiler's list of uses (Go's go/types, the TypeScript API):
    records with the site (`file`, `line`, `call`) and the definition (`def_file`, `def_lines`). Answers
    are judged in `checked` files (default: those holding a use in `uses`; pass every file the checker
    read when `uses` was narrowed, so a wrong answer in a file calling none of them still counts)."""
    from ctxops_code_query.context import QueryContext
    from ctxops_code_query.graph_backend import open_index

    checked = checked if checked is not None else {str(u["file"]) for u in uses}
    calls: dict[tuple[str, tuple[int, ...]], set[tuple[str, int]]] = {}
    refs: dict[tuple[str, tuple[int, ...]], set[tuple[str, int]]] = {}
    for u in uses:
        if not u["def_file"]:
            continue
        key = (str(u["def_file"]), tuple(u["def_lines"]))
        site = (str(u["file"]), int(u["line"]))
        refs.setdefault(key, set()).add(site)
        if u["call"]:
            calls.setdefault(key, set()).add(site)
    defs = sorted(calls)
    random.Random(seed).shuffle(defs)
    ctx = QueryContext(root=root, open_index=open_index)
    total = Tally()
    for path, lines in defs:
        if total.functions >= sample:
            break
        syms = [
            s
            for s in index.symbols_in_file(path)
            if s.line in lines and s.kind in ("function", "method") and s.lang in lang.split(",")
        ]
        if len(syms) != 1:
            continue  # not indexed as one function or method (an overload set, an arrow function)
        total.add(score(ctx, syms[0], calls[(path, lines)], refs[(path, lines)], judged=checked.__contains__))
    return total


_LISTED = re.compile(r"^(\S+) <- (\S+):(\d+)")


@dataclass
class PyrightReading:
    """jedi's figures with each disputed site decided by pyright (bench/heldout_python_s14.txt says how)."""

    truth_calls: int = 0
    certain: int = 0
    certain_right: int = 0
    certain_found: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # "missed agrees-cq" -> sites

    def add(self, other: PyrightReading) -> None:
        for name in ("truth_calls", "certain", "certain_right", "certain_found"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, n in other.verdicts.items():
            self.verdicts[key] = self.verdicts.get(key, 0) + n

    def line(self, label: str) -> str:
        def ratio(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "n/a"

        shown = ", ".join(f"{k}: {n}" for k, n in sorted(self.verdicts.items()))
        return (
            f"{label}, pyright's reading: certain callers precision {ratio(self.certain_right, self.certain)}"
            f" ({self.certain_right}/{self.certain}), recall {ratio(self.certain_found, self.truth_calls)}"
            f" ({self.certain_found}/{self.truth_calls}) | disputed sites: {shown or 'none'}"
        )


def pyright_reading(pyright: str, root: Path, tally: Tally) -> PyrightReading:
    """Every missed and wrong site of `tally` judged by pyright on a copy of `root`: a missed site pyright
    decides for cq leaves the truth, a wrong one it decides for cq counts as right."""
    import shutil

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pyright_sites import judge_tree

    wanted: list[tuple[str, str, str, int]] = []
    for kind, items in (("wrong", tally.wrong), ("missed", tally.missed)):
        for item in items:
            found = _LISTED.match(item)
            if found:
                wanted.append((kind, found[1], found[2], int(found[3])))
    reading = PyrightReading(tally.truth_calls, tally.certain, tally.certain_right, tally.certain_found)
    if not wanted:
        return reading
    with tempfile.TemporaryDirectory(prefix="cq-resolution-pyright-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", ".meta"))
        verdicts = judge_tree(pyright, copy, wanted)
    for (kind, *_site), verdict in verdicts.items():
        key = f"{kind} {verdict}"
        reading.verdicts[key] = reading.verdicts.get(key, 0) + 1
    reading.truth_calls -= reading.verdicts.get("missed agrees-cq", 0)
    reading.certain_right += reading.verdicts.get("wrong agrees-cq", 0)
    return reading


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("projects", nargs="*", default=list(DEFAULT_PROJECTS), help="pip requirement specs")
    parser.add_argument("--sample", type=int, default=60, help="functions with call sites per project")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds of jedi per project at most")
    parser.add_argument("--show", type=int, default=8, help="wrong and missed sites to print per project")
    parser.add_argument(
        "--pyright", metavar="CLI", help="also print pyright's reading (bench/pyright_sites.py) of the disputed sites"
    )
    args = parser.parse_args()
    try:
        import jedi  # noqa: F401
    except ImportError:
        print("jedi is required: uv sync --group bench", file=sys.stderr)
        return 2
    grand = Tally()
    grand_pyright = PyrightReading()
    with tempfile.TemporaryDirectory(prefix="cq-resolution-") as tmp:
        for i, spec in enumerate(args.projects):
            root = fetch(spec, Path(tmp) / f"p{i}")
            print(f"{root.name}:")
            tally = measure(root, args.sample, args.seed, args.budget)
            print("  " + tally.line(root.name))
            for what, items in (("wrong", tally.wrong), ("missed", tally.missed), ("wrong ref", tally.wrong_refs)):
                for item in items[: args.show]:
                    print(f"    {what}: {item}")
            grand.add(tally)
            if args.pyright:
                reading = pyright_reading(args.pyright, root, tally)
                print("  " + reading.line(root.name))
                grand_pyright.add(reading)
    print(grand.line("all projects"))
    if args.pyright:
        print(grand_pyright.line("all projects"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
