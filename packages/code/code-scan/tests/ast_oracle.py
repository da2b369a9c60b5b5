"""An independent oracle for Python definitions: the standard library's own `ast` module.

It states the scanner's contract for Python in ast terms: every function and class at any depth, every
plain name assigned at module level (variables, constants) or in a class body (fields), including
under if/for/while/try/with blocks, and names unpacked one level from tuple or list targets. Names
assigned inside functions are locals and not part of the map. Shared by the test (a sample) and the
benchmark (the whole standard library).
"""

from __future__ import annotations

import ast
from collections import Counter

Definition = tuple[str, int]  # (name, line)


def _targets(node: ast.expr) -> list[ast.Name]:
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.Tuple | ast.List):
        return [elt for elt in node.elts if isinstance(elt, ast.Name)]
    return []


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: Counter[Definition] = Counter()
        self._scope: list[str] = ["module"]

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: str) -> None:
        self.found[(node.name, node.lineno)] += 1
        self._scope.append(scope)
        self.generic_visit(node)
        self._scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._def(node, "function")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._def(node, "function")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._def(node, "class")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scope.append("function")
        self.generic_visit(node)
        self._scope.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._scope[-1] != "function":
            for target in node.targets:
                for name in _targets(target):
                    self.found[(name.id, name.lineno)] += 1
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self._scope[-1] != "function" and isinstance(node.target, ast.Name):
            self.found[(node.target.id, node.target.lineno)] += 1
        self.generic_visit(node)


def python_definitions(source: bytes) -> Counter[Definition] | None:
    """Definitions by (name, line); None when `ast` cannot parse the file (then it is no oracle)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    collector = _Collector()
    collector.visit(tree)
    return collector.found


def compare(expected: Counter[Definition], found: Counter[Definition]) -> tuple[int, int, int]:
    """(true positives, expected total, found total) as multisets."""
    return sum((expected & found).values()), sum(expected.values()), sum(found.values())
