"""A tuple a function states or returns, unpacked (issue 24 item 1, session 21), as a checker reads
`tuple[A, B]`: pyparsing's `a, a_end = pp.make_html_tags("a")` (`-> tuple[ParserElement, ParserElement]`,
reached through a package's star import), boltons' `return A(..), B(..)` unpacked, a method's tuple
(`x, y = self.pair()`). A position whose `return`s disagree, a star, an async def and a generator give no
certain answer. Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "pp/__init__.py": "from pp.core import *\nfrom pp.helpers import *\n",
    "pp/core.py": """class Opener:
    def parse_string(self, s):
        return s


class Closer:
    def parse_string(self, s):
        return s
""",
    "pp/helpers.py": """from pp.core import Opener, Closer


def make_html_tags(tag: str) -> tuple[Opener, Closer]:
    return build(tag)


def build(tag):
    return None


def made(tag):
    if tag:
        return Opener(), Closer()
    return Opener(), Closer()


def mixed(tag):
    if tag:
        return Opener(), Closer()
    return Closer(), Closer()


def starred(tag, rest):
    return Opener(), *rest


async def later(tag) -> tuple[Opener, Closer]:
    return Opener(), Closer()


def gen(tag):
    yield Opener(), Closer()


class Pairs:
    def pair(self) -> "tuple[Closer, Opener]":
        return build(1)

    def use(self):
        c, o = self.pair()
        c.parse_string("m1")
        o.parse_string("m2")
""",
    "tests/__init__.py": "",
    "tests/test_tags.py": """import pp
from pp.helpers import made, mixed, starred, later, gen

a, a_end = pp.make_html_tags("a")
a.parse_string("<a>")
a_end.parse_string("</a>")


def test_made():
    x, y = made(1)
    x.parse_string("1")
    y.parse_string("2")
    p, q = mixed(1)
    p.parse_string("3")
    q.parse_string("4")
    s, t = starred(1, [])
    s.parse_string("5")
    u, v = later(1)
    u.parse_string("6")
    w, z = gen(1)
    w.parse_string("7")
""",
}

OPENER = "python pp/core.py Opener.parse_string()."
CLOSER = "python pp/core.py Closer.parse_string()."


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("tuple_items") / "repo", FILES)


def test_a_stated_tuple_unpacked_at_module_level_through_a_star_import(ix: CodeIndex) -> None:
    assert ("tests/test_tags.py", 5) in _certain(ix, OPENER)
    assert ("tests/test_tags.py", 6) in _certain(ix, CLOSER)


def test_a_returned_tuple_unpacked_in_a_function(ix: CodeIndex) -> None:
    assert ("tests/test_tags.py", 11) in _certain(ix, OPENER)
    assert ("tests/test_tags.py", 12) in _certain(ix, CLOSER)


def test_a_method_s_stated_tuple_unpacked(ix: CodeIndex) -> None:
    assert ("pp/helpers.py", 42) in _certain(ix, CLOSER)
    assert ("pp/helpers.py", 43) in _certain(ix, OPENER)


def test_no_certain_item_where_the_tuple_is_not_known(ix: CodeIndex) -> None:
    # mixed's first item is an Opener or a Closer; its second is a Closer whatever the branch
    both = _certain(ix, OPENER) | _certain(ix, CLOSER)
    assert ("tests/test_tags.py", 14) not in both
    assert ("tests/test_tags.py", 15) in _certain(ix, CLOSER)
    # a starred return, an async def's coroutine, a generator: nothing certain
    assert not {("tests/test_tags.py", n) for n in (17, 19, 21)} & both
