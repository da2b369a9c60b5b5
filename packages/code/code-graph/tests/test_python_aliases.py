"""Aliases read as a checker reads them (issue 24, session 16): a module-level `Alias = Name` where `Name` is a
class makes `Alias` that class object (`Alias(...)` constructs one, `Alias.attr` reads the class attribute,
staticmethod or classmethod), where `Name` is a function `Alias(...)` calls it; a name rebound anywhere else in
the module gives nothing. pyparsing's shape (`pyparsing_common = common`, `Optional = Opt`, `countedArray =
counted_array`), in two files. Real files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "grammar/__init__.py": """from grammar.core import Common as common, Opt, counted_array

pyparsing_common = common
Optional = Opt
countedArray = counted_array
""",
    "grammar/core.py": """from __future__ import annotations


class ParserElement:
    def parse_string(self, text):
        return text

    def __call__(self, name) -> ParserElement:
        return self


class Opt(ParserElement):
    def __init__(self, expr):
        self.expr = expr

    def opt_only(self):
        return self


class Word(ParserElement):
    def __init__(self, chars):
        self.chars = chars


class Common:
    integer = Word("0123456789")

    @staticmethod
    def make() -> Word:
        return Word("a")

    @classmethod
    def build(cls) -> Opt:
        return Opt(cls.integer)


def counted_array(expr) -> ParserElement:
    return expr


Optional = Opt
Rebound = Opt
Rebound = Word
held = Opt(Word("a"))
same = held
""",
    "examples/__init__.py": "",
    "examples/use.py": """import grammar as pp
from grammar import Optional, countedArray
from grammar.core import Rebound, same

ppc = pp.pyparsing_common


def use():
    ppc.integer.parse_string("1")
    ppc.make().parse_string("a")
    pp.pyparsing_common.build().opt_only()
    Optional(ppc.integer).opt_only()
    countedArray(ppc.integer).parse_string("1")
    ppc.integer("name").parse_string("1")
    Rebound("x").opt_only()
    same("x").opt_only()
""",
}


def test_a_class_alias_is_the_class_object(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python grammar/core.py ParserElement.parse_string().") == {
        ("examples/use.py", 9),  # `ppc.integer`: the class attribute through `ppc = pp.pyparsing_common = common`
        ("examples/use.py", 10),  # a staticmethod's result through the alias
        ("examples/use.py", 13),  # a function alias: `countedArray(...)` is counted_array's result
        ("examples/use.py", 14),  # the class attribute called: `__call__`
    }
    opt = _certain(ix, "python grammar/core.py Opt.opt_only().")
    assert ("examples/use.py", 11) in opt  # a classmethod's result through the alias
    assert ("examples/use.py", 12) in opt  # `Optional = Opt`: calling the alias constructs an Opt


def test_a_rebound_alias_gives_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `Rebound = Opt` then `Rebound = Word`: no answer
    opt = _certain(ix, "python grammar/core.py Opt.opt_only().")
    assert ("examples/use.py", 15) not in opt
    # `same = held` with `held = Opt(...)`: an instance, calling it is `__call__`, no constructor
    assert ("examples/use.py", 16) not in opt


LEGACY = {
    "grammar/legacy.py": """from grammar.core import counted_array


def parse_all(x):
    return x


class Element:
    def parse_string(self, text):
        return text

    parseString = parse_string
    _parse = parse_string

    def enable_cache(self):
        Element._parse = Element.parse_string


countedArray2 = counted_array
parseAll = parse_all
parse_everything = parseAll
flip = parse_all
flip = counted_array
""",
    "examples/legacy_use.py": """from grammar import countedArray
from grammar.legacy import Element, countedArray2, flip, parse_everything


def use(e: Element):
    countedArray2(1)
    countedArray(1)
    parse_everything(2)
    e.parseString("x")
    Element().parseString("y")
    flip(3)
    e._parse("z")
""",
}


def test_a_call_of_a_function_alias_is_a_call_of_the_function(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {**FILES, **LEGACY})
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `countedArray2 = counted_array` (imported by the alias's module), and `countedArray` of grammar/__init__.py
    assert {("examples/legacy_use.py", 6), ("examples/legacy_use.py", 7), ("examples/use.py", 13)} <= _certain(
        ix, "python grammar/core.py counted_array()."
    )
    # a chain of aliases in one module: `parseAll = parse_all; parse_everything = parseAll`
    assert ("examples/legacy_use.py", 8) in _certain(ix, "python grammar/legacy.py parse_all().")
    # a class body's `parseString = parse_string`: a method alias
    assert {("examples/legacy_use.py", 9), ("examples/legacy_use.py", 10)} <= _certain(
        ix, "python grammar/legacy.py Element.parse_string()."
    )
    # `_parse = parse_string` in the class body, rebound by `Element._parse = ...` in a method: no alias
    assert ("examples/legacy_use.py", 12) not in _certain(ix, "python grammar/legacy.py Element.parse_string().")
    # `flip` bound twice (to two functions): a call of neither
    assert ("examples/legacy_use.py", 11) not in _certain(ix, "python grammar/legacy.py parse_all().")
    assert ("examples/legacy_use.py", 11) not in _certain(ix, "python grammar/core.py counted_array().")
