"""Receivers built by an operator, typed as a checker types them (issue 24 item 1, session 16): `a + b` is
what the left operand's class states `__add__` returns (through its bases, in another file), a builtin
literal on the left gives the right operand's `__radd__`, `~a` is `__invert__`'s, `a[1, ...]` `__getitem__`'s;
the result flows through locals, attributes, parentheses and a function's return. An operand whose class is
unknown gives nothing certain. pyparsing's shape, in two files. Real files, a real git repository, a real
index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

GRAMMAR = {
    "grammar/__init__.py": "",
    "grammar/core.py": """from __future__ import annotations

import typing

class ParserElement:
    def parse_string(self, text):
        return text

    def __add__(self, other) -> ParserElement:
        return And([self, other])

    def __radd__(self, other) -> ParserElement:
        return And([other, self])

    def __or__(self, other) -> ParserElement:
        return MatchFirst([self, other])

    def __invert__(self) -> NotAny:
        return NotAny(self)

    def __getitem__(self, key) -> "_MultipleMatch":
        return _MultipleMatch(self)

    def __eq__(self, other) -> bool:
        return self is other

    def __call__(self, name) -> ParserElement:
        return self

    def __mul__(self, other) -> ParserElement:
        return And([self] * other)


class And(ParserElement):
    def __init__(self, exprs):
        self.exprs = exprs


class MatchFirst(ParserElement):
    def __init__(self, exprs):
        self.exprs = exprs


class NotAny(ParserElement):
    def __init__(self, expr):
        self.expr = expr

    def negated(self):
        return self.expr


class _MultipleMatch(ParserElement):
    def __init__(self, expr):
        self.expr = expr

    def stop_on(self, ender):
        return self


class Word(ParserElement):
    def __init__(self, chars):
        self.chars = chars


class Literal(ParserElement):
    def __init__(self, text):
        self.text = text


class Keyword(ParserElement):
    def __getitem__(self, key):
        ret = self * key
        ret = typing.cast(Repeat, ret)
        return ret


class Loose(ParserElement):
    def __or__(self, other):
        if other:
            return Total()
        return self


class Repeat(ParserElement):
    def stop_on(self, ender):
        return self


class Forward(ParserElement):
    def __ilshift__(self, other) -> Forward:
        return self

    def forward_only(self):
        return self


class Total:
    def total_only(self):
        return self


class Counter:
    def __add__(self, other) -> Total:
        return Total()

    def counter_only(self):
        return self
""",
    "grammar/other.py": """class Document:
    def parse_string(self, text):
        return text

    def stop_on(self, ender):
        return ender

    def negated(self):
        return self
""",
    "examples/__init__.py": "",
    "examples/greet.py": """from grammar.core import Counter, Forward, Keyword, Literal, Loose, Word
from grammar.other import Document


def greet_parser():
    greet = Word("abc") + "," + Word("abc") + "!"
    greet.parse_string("Hello, World!")
    (Word("a") | Word("b")).parse_string("a")
    Word("a")[1, ...].stop_on(Literal("."))
    ("," + Word("a")).parse_string(",a")
    (~Word("a")).negated()
    return greet


class Grammar:
    def __init__(self):
        self.expr = Word("a") | Literal("b")

    def run(self, text):
        return self.expr.parse_string(text)


def number():
    return Word("0123456789") + Literal(".")


def use(doc: Document):
    number().parse_string("1.")
    (doc + Word("a")).parse_string("x")
    (unknown() + Word("a")).parse_string("x")
    ("%s" % Word("a")).parse_string("x")
    (1 == Word("a")).parse_string("x")
    doc.parse_string("y")


def recursive():
    expr = Forward()
    expr <<= Word("a")
    expr.forward_only()
    count = Counter()
    count += 1
    count.total_only()
    count.counter_only()


def called():
    Word("A")("name").parse_string("A")
    Keyword("k")[1, ...].stop_on(Literal("."))
    named = Literal("A")("a") + Word("b")
    named.parse_string("Ab")
    (Loose("x") | Word("y")).parse_string("xy")
""",
}


def test_a_receiver_built_by_an_operator_has_the_dunders_result_type(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", GRAMMAR)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python grammar/core.py ParserElement.parse_string().") == {
        ("examples/greet.py", 7),  # a local bound to `Word + "," + Word + "!"` (`__add__` through the bases)
        ("examples/greet.py", 8),  # `(a | b).parse_string()`: `__or__`
        ("examples/greet.py", 10),  # `"," + Word(...)`: a str on the left, Word's `__radd__`
        ("examples/greet.py", 20),  # `self.expr = a | b` in `__init__`
        ("examples/greet.py", 28),  # a function returning `a + b`
        ("examples/greet.py", 47),  # `Word("A")("name")`: `__call__`
        ("examples/greet.py", 50),  # ... inside an operator chain
    }
    # `expr[1, ...]`: `__getitem__ -> "_MultipleMatch"` (a forward reference as a string)
    assert _certain(ix, "python grammar/core.py _MultipleMatch.stop_on().") == {("examples/greet.py", 9)}
    # `~expr`: `__invert__ -> NotAny`
    assert _certain(ix, "python grammar/core.py NotAny.negated().") == {("examples/greet.py", 11)}


def test_an_operand_of_unknown_class_gives_nothing_certain(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", GRAMMAR)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `doc + Word(...)` (Document states no `__add__`), `unknown() + ...`, `"%s" % ...` (a str), `1 == ...`
    # (a bool): none is ParserElement's or Document's certainly
    found = _certain(ix, "python grammar/core.py ParserElement.parse_string().")
    assert not found & {("examples/greet.py", line) for line in (29, 30, 31, 32)}
    # `Loose.__or__` overrides the base's `-> ParserElement`, its returns disagree (before: the base's result)
    assert ("examples/greet.py", 51) not in found
    assert _certain(ix, "python grammar/other.py Document.parse_string().") == {("examples/greet.py", 33)}
    assert _certain(ix, "python grammar/other.py Document.stop_on().") == set()
    assert _certain(ix, "python grammar/other.py Document.negated().") == set()


def test_an_augmented_assignment_is_the_in_place_dunders_result(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", GRAMMAR)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `expr <<= ...`: `Forward.__ilshift__ -> Forward`
    assert _certain(ix, "python grammar/core.py Forward.forward_only().") == {("examples/greet.py", 39)}
    # `count += 1` where Counter has no `__iadd__`: `__add__ -> Total`, as a checker falls back
    assert _certain(ix, "python grammar/core.py Total.total_only().") == {("examples/greet.py", 42)}
    # ... so `count` is no longer a Counter (before: a wrong certain answer)
    assert _certain(ix, "python grammar/core.py Counter.counter_only().") == set()


def test_calling_an_instance_and_a_returned_local_flow_through(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", GRAMMAR)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    found = _certain(ix, "python grammar/core.py ParserElement.parse_string().")
    # `Word("A")("name")`: `__call__ -> ParserElement`, also inside an operator chain
    assert {("examples/greet.py", 47), ("examples/greet.py", 50)} <= found
    # `Keyword.__getitem__` states no result: it returns `ret`, whose reaching assignment is `cast(Repeat, ...)`;
    # the base's `__getitem__ -> _MultipleMatch` is overridden there (before: a wrong certain answer)
    assert _certain(ix, "python grammar/core.py Repeat.stop_on().") == {("examples/greet.py", 48)}


COMMON = {
    "grammar/__init__.py": "",
    "grammar/core.py": GRAMMAR["grammar/core.py"],
    "grammar/common.py": """from grammar.core import Literal, Word


def convert(tokens):
    return tokens


class Common:
    integer = Word("0123456789") + Literal("")
    real = Word("0123456789") | Literal(".")
    number = real | integer
""",
    "tests/__init__.py": "",
    "tests/test_common.py": """from grammar.common import Common as ppc


def test_common():
    (ppc.integer + ppc.real).parse_string("1")
    ppc.integer.parse_string("1")
    ppc.number.parse_string("1")
""",
}


def test_a_class_body_value_built_by_an_operator_is_the_attribute_type(tmp_path: Path) -> None:
    # pyparsing_common's `integer = Word(nums).set_name("integer")`, read through the class
    root = make_repo(tmp_path / "repo", COMMON)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python grammar/core.py ParserElement.parse_string().") == {
        ("tests/test_common.py", 5),
        ("tests/test_common.py", 6),
        # (line 7: `number = real | integer` reads the class body's own names, left alone)
    }
