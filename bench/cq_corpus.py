"""The benchmark corpus: the CPython standard library of the running interpreter, as a git repository,
plus an independent oracle of its definitions and calls built with Python's own `ast` module.

Shared by `cq_tokens.py` and `cq_latency.py`. Nothing here imports ctxops.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sysconfig
import warnings
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = {"site-packages", "__pycache__", "idlelib", "lib2to3"}


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def make_corpus(dest: Path, *, copies: int = 1) -> Path:
    """Copy every .py file of the stdlib into ``dest`` (``copies`` times, under copy0/, copy1/, ... when > 1)
    and commit it, so the tools see an ordinary git repository. Reused when already built."""
    marker = dest / ".corpus-done"
    if marker.exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    src = stdlib_dir()
    files = [p for p in src.rglob("*.py") if not (set(p.relative_to(src).parts[:-1]) & SKIP_DIRS)]
    for i in range(copies):
        base = dest if copies == 1 else dest / f"copy{i}"
        for p in files:
            target = base / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
    git = ["git", "-C", str(dest), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], check=True)
    marker.write_text("ok\n")
    (dest / ".git" / "info" / "exclude").write_text(".corpus-done\n.meta/\n")
    return dest


@dataclass
class Def:
    name: str
    qualname: str
    kind: str  # function | method | class
    path: str
    line: int  # the def/class line
    first_line: int  # the first decorator line, if any
    end_line: int
    doc: str | None
    top_level: bool


@dataclass
class Call:
    name: str  # called name (bare or attribute)
    path: str
    line: int
    enclosing: str | None  # qualname of the enclosing function/class, None at module level


@dataclass
class Oracle:
    defs: list[Def] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: str, oracle: Oracle) -> None:
        self.path = path
        self.oracle = oracle
        self.stack: list[tuple[str, str]] = []  # (qualname, kind)

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, kind: str) -> None:
        parent = self.stack[-1] if self.stack else None
        qual = f"{parent[0]}.{node.name}" if parent else node.name
        if kind == "function" and parent and parent[1] == "class":
            kind = "method"
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        doc = ast.get_docstring(node)
        self.oracle.defs.append(
            Def(
                name=node.name,
                qualname=qual,
                kind=kind,
                path=self.path,
                line=node.lineno,
                first_line=first,
                end_line=node.end_lineno or node.lineno,
                doc=doc.strip().splitlines()[0] if doc and doc.strip() else None,
                top_level=parent is None,
            )
        )
        self.stack.append((qual, "class" if kind == "class" else "function"))
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._def(node, "function")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._def(node, "function")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._def(node, "class")

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name:
            enclosing = self.stack[-1][0] if self.stack else None
            self.oracle.calls.append(Call(name=name, path=self.path, line=node.lineno, enclosing=enclosing))
        self.generic_visit(node)


def build_oracle(root: Path) -> Oracle:
    oracle = Oracle()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(".meta/"):
            continue
        data = p.read_bytes()
        oracle.files.append(rel)
        oracle.lines[rel] = data.count(b"\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(data, filename=rel)
            except (SyntaxError, ValueError):
                continue  # a few test files are deliberately invalid
        _Visitor(rel, oracle).visit(tree)
    return oracle
