"""A second judge for the sites `bench/cq_resolution.py` prints: what pyright says each call's receiver is.

    npm install --prefix /tmp/pyright pyright          # (the npm registry; pyright runs offline)
    uv run python bench/cq_resolution.py --show 300 X.tar.gz > X.log
    uv run python bench/pyright_sites.py --pyright /tmp/pyright/node_modules/.bin/pyright X.tar.gz X.log

jedi is the bench's truth; where it and cq disagree (a "missed" or "wrong" site), pyright, the checker
the issue's "the way the language's checker does it" points at, is asked too. Each printed site's call
`recv.method(...)` is rewritten in a copy of the sdist as `reveal_type(recv).method(...)` (same lines and
meaning), pyright checks the copy once, and its `Type of "recv" is "K"` is printed beside the drawn method's
class: whether pyright's class calls the drawn method (itself or inherited, `provider`) says which of jedi
(a "missed" site: jedi's call, not cq's certain one) and cq (a "wrong" site) it agrees with; `unknown` when
pyright cannot type it either (`Unknown`, `Any`, a union, a type variable).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

_SITE = re.compile(r"^\s+(missed|wrong): (\S+) <- (\S+):(\d+)")
_TYPE = re.compile(r'^Type of "(.*)" is "(.*)"$', re.DOTALL)


def sites(log: Path) -> list[tuple[str, str, str, int]]:
    """(kind, drawn qualname, path, line) of every printed site, once each."""
    out: dict[tuple[str, str, str, int], None] = {}
    for line in log.read_text("utf-8", "replace").splitlines():
        found = _SITE.match(line)
        if found:
            out[(found[1], found[2], found[3], int(found[4]))] = None
    return list(out)


def _receivers(tree: ast.AST, line: int, method: str) -> list[ast.expr]:
    return [
        n.func.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == method
        and n.func.value.lineno == line
    ]


def _offset(lines: list[str], line: int, col: int) -> int:
    """The character offset of (1-based line, UTF-8 byte column), as ast reports positions."""
    before = sum(len(x) for x in lines[: line - 1])
    return before + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))


def rewrite(root: Path, wanted: list[tuple[str, str, str, int]]) -> dict[tuple[str, int, str], str]:
    """Wrap each site's receiver in `reveal_type(...)`; (path, line, method) -> the receiver's text."""
    by_file: dict[str, list[tuple[int, str]]] = {}
    for _kind, qualname, path, line in wanted:
        by_file.setdefault(path, []).append((line, qualname.rpartition(".")[2]))
    done: dict[tuple[str, int, str], str] = {}
    for path, todo in by_file.items():
        file = root / path
        try:
            text = file.read_text("utf-8")
            tree = ast.parse(text)
        except (OSError, SyntaxError, ValueError):
            continue
        lines = text.splitlines(keepends=True)
        spans: list[tuple[int, int]] = []
        for line, method in todo:
            for recv in _receivers(tree, line, method):
                start = _offset(lines, recv.lineno, recv.col_offset)
                end = _offset(lines, recv.end_lineno or recv.lineno, recv.end_col_offset or 0)
                spans.append((start, end))
                done[(path, line, method)] = text[start:end]
        for start, end in sorted(set(spans), reverse=True):  # (from the end: earlier offsets stay right)
            text = text[:start] + "reveal_type(" + text[start:end] + ")" + text[end:]
        file.write_text(text, "utf-8")
    return done


def class_table(root: Path) -> dict[str, list[tuple[list[str], set[str]]]]:
    """Class name -> (its bases' last names, the names it defines), for every class of the sdist."""
    table: dict[str, list[tuple[list[str], set[str]]]] = {}
    for file in root.rglob("*.py"):
        try:
            tree = ast.parse(file.read_text("utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for stmt in tree.body:  # (`TableBase: type[Table] = ...`: as a base, a checker reads it as Table)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found = re.fullmatch(r"(?:typing\.)?[Tt]ype\[['\"]?([\w.]+)['\"]?\]", ast.unparse(stmt.annotation))
                if found:
                    table.setdefault(stmt.target.id, []).append(([found[1].rpartition(".")[2]], set()))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).split("[")[0].rpartition(".")[2] for b in node.bases]
                names = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                table.setdefault(node.name, []).append((bases, names))
    return table


def provider(table: dict[str, list[tuple[list[str], set[str]]]], cls: str, method: str) -> str | None:
    """The class (by name) whose `method` an instance of `cls` calls, bases depth-first left to right (an
    approximation of the MRO that is exact for single inheritance); None when no class of the sdist has it."""
    todo, seen = [cls], set()
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        for _bases, names in table.get(name, []):
            if method in names:
                return name
        todo[:0] = [b for bases, _ in table.get(name, []) for b in bases]
    return None


def judge(pyright: str, sdist: Path, log: Path) -> Counter[str]:
    wanted = sites(log)
    with tempfile.TemporaryDirectory(prefix="pyright-sites-") as tmp:
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp, filter="data")
        root = next(p for p in Path(tmp).iterdir() if p.is_dir())
        verdicts = judge_tree(pyright, root, wanted)
    return Counter(f"{kind} {verdicts[(kind, q, p, ln)]}" for kind, q, p, ln in wanted)


Site = tuple[str, str, str, int]  # (kind, drawn qualname, path, line)


def judge_tree(pyright: str, root: Path, wanted: list[Site]) -> dict[Site, str]:
    """Each (kind, drawn qualname, path, line) site's verdict, printed as it goes. Rewrites files under `root`:
    give it a copy."""
    classes = class_table(root)
    receivers = rewrite(root, wanted)
    (root / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "basic"}))
    # (pyright exits 1 when it reports errors, which every rewritten copy has: the JSON is what counts)
    run = subprocess.run([pyright, "--outputjson", str(root)], capture_output=True, text=True, cwd=root, check=False)
    report = json.loads(run.stdout or "{}")
    revealed: dict[tuple[str, int], list[str]] = {}
    for diag in report.get("generalDiagnostics", []):
        found = _TYPE.match(diag.get("message", ""))
        if found:
            rel = str(Path(diag["file"]).resolve().relative_to(root.resolve()))
            revealed.setdefault((rel, diag["range"]["start"]["line"] + 1), []).append(found[2])
    out: dict[Site, str] = {}
    for kind, qualname, path, line in wanted:
        method = qualname.rpartition(".")[2]
        drawn = qualname.rpartition(".")[0].rpartition(".")[2] or "(function)"
        types = revealed.get((path, line), [])
        if (path, line, method) not in receivers or not types:
            verdict, shown = "no-receiver" if (path, line, method) not in receivers else "unknown", "-"
        else:
            shown = " / ".join(sorted(set(types)))
            # (`TTLCache[int, int]`: TTLCache; `type[vPeriod]`, the class itself: its methods are vPeriod's)
            bases = {re.sub(r"\[.*$", "", re.sub(r"^type\[(.*)\]$", r"\1", t)) for t in types}
            # (`T@f`: a type variable, `Self@K`: the class's own type; neither is one class)
            if any(b in ("Unknown", "Any", "type") or "|" in b or "@" in b for b in bases):
                verdict = "unknown"
            elif "_" in bases:
                verdict = "unknown"  # (the class pyright makes for `type(name, bases, ns)`: its bases unshown)
            else:  # a missed site is jedi's call of the drawn method, a wrong one cq's
                calls_drawn = any(provider(classes, b, method) == drawn for b in bases)
                verdict = "agrees-jedi" if calls_drawn == (kind == "missed") else "agrees-cq"
        out[(kind, qualname, path, line)] = verdict
        print(
            f"  {kind:6} {verdict:11} {qualname} <- {path}:{line}"
            f"  pyright: {receivers.get((path, line, method), '?')} is {shown}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sdist", type=Path)
    parser.add_argument("log", type=Path, help="the output of bench/cq_resolution.py for that sdist")
    parser.add_argument("--pyright", default="pyright", help="the pyright CLI")
    args = parser.parse_args(argv)
    if not args.sdist.is_file() or not args.log.is_file():
        print("pyright_sites: sdist and log must be files", file=sys.stderr)
        return 2
    tally = judge(args.pyright, args.sdist, args.log)
    print("  " + ", ".join(f"{k}: {n}" for k, n in sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
