"""A function's name is what its decorator makes (issue 24 item 1, session 17): `@generate def xy(): ...` binds
`xy = generate(xy)`, so `xy.parse(...)` is Parser.parse where `generate` states `-> Parser`, and `@Parser def
p(...)` makes a Parser; in a function (a local) or at module level, read from another module too. A decorator
that states nothing, or a called one, gives nothing. parsy's shape, in two files. Real files, a real git
repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "combo/__init__.py": "",
    "combo/core.py": """from __future__ import annotations


class Parser:
    def __init__(self, fn):
        self.fn = fn

    def parse(self, text):
        return self.fn(text)


def generate(fn) -> Parser:
    return Parser(fn)


def plain(fn):
    return fn


def named(label):
    return generate
""",
    "combo/grammar.py": """from combo.core import Parser, generate, named, plain


@generate
def number():
    yield 1


@Parser
def letter(text):
    return text


@plain
def other():
    yield 2


@named("x")
def labelled():
    yield 3


def use():
    @generate
    def xy():
        yield 4

    xy.parse("xy")
    number.parse("1")
    letter.parse("a")
    other.parse("2")
    labelled.parse("3")
""",
    "combo/use.py": """from combo import grammar
from combo.grammar import number


def run():
    number.parse("1")
    grammar.letter.parse("b")
""",
}


def test_a_decorated_name_is_what_its_decorator_makes(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    parse = _certain(ix, "python combo/core.py Parser.parse().")
    assert {("combo/grammar.py", 29), ("combo/grammar.py", 30), ("combo/grammar.py", 31)} <= parse
    assert {("combo/use.py", 6), ("combo/use.py", 7)} <= parse  # read from another module
    # `@plain` states nothing (it returns its argument), `@named("x")` is called: no answer
    assert ("combo/grammar.py", 32) not in parse
    assert ("combo/grammar.py", 33) not in parse
