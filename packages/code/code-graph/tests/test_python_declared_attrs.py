"""An attribute `__init__` declares (`self.exprs: list[ParserElement]`, with or without a value) has that type
in the other methods whatever else `__init__` assigns to it (`self.exprs = list(exprs)`), as a checker reads
it (issue 24, session 16): a loop over it gives its elements. pyparsing's ParseExpression, in two files. Real
files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "grammar/__init__.py": "",
    "grammar/base.py": """from __future__ import annotations


class ParserElement:
    def leave(self, recursive=True) -> ParserElement:
        return self


class Token(ParserElement):
    def token_only(self):
        return self
""",
    "grammar/exprs.py": """from __future__ import annotations

import typing

from grammar.base import ParserElement, Token


class ParseExpression(ParserElement):
    def __init__(self, exprs: typing.Iterable[ParserElement]) -> None:
        self.exprs: list[ParserElement]
        if isinstance(exprs, str):
            self.exprs = [exprs]
        else:
            self.exprs = list(exprs)
        self.tokens: list[Token] = []
        self.tokens: list[ParserElement] = []

    def leave(self, recursive=True) -> ParserElement:
        if recursive:
            self.exprs = [e.leave() for e in self.exprs]
            for e in self.exprs:
                e.leave(recursive)
        return self

    def plain(self):
        for e in self.exprs:
            e.leave()
        for t in self.tokens:
            t.token_only()
""",
}


def test_a_declared_attribute_keeps_its_type_over_other_values(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    found = _certain(ix, "python grammar/base.py ParserElement.leave().")
    # `for e in self.exprs` with `self.exprs: list[ParserElement]` declared, then `= list(exprs)` assigned
    assert {("grammar/exprs.py", 22), ("grammar/exprs.py", 27)} <= found
    # two declarations that differ (`list[Token]`, `list[ParserElement]`): no certain element type
    assert _certain(ix, "python grammar/base.py Token.token_only().") == set()
