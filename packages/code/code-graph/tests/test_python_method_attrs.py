"""An attribute bound in any method of a class, not only `__init__`, has the type its bindings join to, as a
checker reads an undeclared attribute: bottle's tests bind `self.subapp = bottle.Bottle()` in `setUp` and call
`self.subapp.mount(...)` in a test method, and a base class's `setUp` in another module binds `self.app` that
its subclasses call (session 18's held-out IX: 69 of 86 checker-decided misses). Bindings of one class (None
dropped) give that class; bindings of two classes give nothing; a declared type wins. Real files, a real git
repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "web/__init__.py": "",
    "web/app.py": """class Bottle:
    def mount(self, prefix, app):
        return prefix

    def route(self, path):
        return path


class Router:
    def add(self, rule):
        return rule


class Other:
    def mount(self, prefix, app):
        return app


class AppStack(list):
    def push(self, value=None):
        if not isinstance(value, Bottle):
            value = Bottle()
        self.append(value)
        return value


apps = app = default_app = AppStack()
""",
    "tests/__init__.py": "",
    "tests/tools.py": """from web.app import Bottle


class ServerTestBase:
    def setUp(self):
        self.app = Bottle()
""",
    "tests/pushed.py": """from web import app as bottle


class PushedBase:
    def setUp(self):
        self.app = bottle.app.push()


class PushedTest(PushedBase):
    def test_route(self):
        self.app.route("/e")


def pair(x):
    ax, rx = bottle.Bottle(), bottle.Router()
    ax.route("/f")
    rx.add("/g")
""",
    "tests/test_mount.py": """import unittest

from web import app as bottle
from web.app import Other, Router
from tests.tools import ServerTestBase


class TestMount(unittest.TestCase):
    def setUp(self):
        self.subapp = bottle.Bottle()
        self.router = None

    def reset(self):
        self.router = Router()

    def test_mount(self):
        self.subapp.mount("/a", None)
        self.router.add("x")


class TestTwo(unittest.TestCase):
    def setUp(self):
        self.either = bottle.Bottle()

    def swap(self):
        self.either = Other()

    def test_either(self):
        self.either.mount("/b", None)


class TestDeclared(unittest.TestCase):
    def __init__(self):
        self.declared: Other | None = None
    def setUp(self):
        self.declared = bottle.Bottle()

    def test_declared(self):
        self.declared.mount("/c", None)


class TestInherited(ServerTestBase):
    def test_route(self):
        self.app.route("/d")
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("method_attrs") / "repo", FILES)


def test_an_attribute_bound_in_set_up_is_typed(ix: CodeIndex) -> None:
    assert ("tests/test_mount.py", 17) in _certain(ix, "python web/app.py Bottle.mount().")


def test_none_and_a_class_join_to_the_class(ix: CodeIndex) -> None:
    assert ("tests/test_mount.py", 18) in _certain(ix, "python web/app.py Router.add().")


def test_two_classes_give_nothing(ix: CodeIndex) -> None:
    assert ("tests/test_mount.py", 29) not in _certain(ix, "python web/app.py Bottle.mount().")
    assert ("tests/test_mount.py", 29) not in _certain(ix, "python web/app.py Other.mount().")


def test_a_declared_type_wins(ix: CodeIndex) -> None:
    assert ("tests/test_mount.py", 39) in _certain(ix, "python web/app.py Other.mount().")
    assert ("tests/test_mount.py", 39) not in _certain(ix, "python web/app.py Bottle.mount().")


def test_a_base_class_method_in_another_module_binds_it(ix: CodeIndex) -> None:
    assert ("tests/test_mount.py", 44) in _certain(ix, "python web/app.py Bottle.route().")


def test_a_chained_module_assignment_and_a_narrowed_parameter_returned(ix: CodeIndex) -> None:
    # bottle's `self.app = bottle.app.push()`: `apps = app = default_app = AppStack()` binds `app`, and
    # `push` returns its parameter narrowed by `if not isinstance(value, Bottle): value = Bottle()`
    assert _certain(ix, "python web/app.py Bottle.route().") == {
        ("tests/test_mount.py", 44),
        ("tests/pushed.py", 11),
        ("tests/pushed.py", 16),
    }


def test_tuple_unpacking_pairs_constructors(ix: CodeIndex) -> None:
    assert ("tests/pushed.py", 17) in _certain(ix, "python web/app.py Router.add().")
