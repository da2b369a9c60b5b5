"""Python receivers a checker types and cq now does too (issue 24 item 1): a `.pyi` stub's callers are its
implementation's, a local declared with a type (`hook: HookCaller | None = getattr(...)`), a generic
class's instance (`outcome: Result[object]`), `Final[...]` / `ClassVar[...]` attributes. Real files, a
real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "lib/__init__.py": "from ._funcs import asdict\nfrom ._funcs import *\n",
    "lib/__init__.pyi": "def asdict(inst: object) -> dict: ...\ndef astuple(inst: object) -> tuple: ...\n",
    "lib/_funcs.py": """
__all__ = ["astuple"]


def asdict(inst):
    return {}


def astuple(inst):
    return ()
""",
    "lib/plain.py": "def helper(x):\n    return x\n",
    "lib/plain.pyi": "def helper(x: int) -> int: ...\ndef missing(x: int) -> int: ...\n",
    "app.py": """
import lib
from lib import asdict, astuple
from lib.plain import helper


def run(x):
    asdict(x)
    lib.asdict(x)
    astuple(x)
    return helper(x)
""",
    "hooks.py": """
from typing import Final, Generic, TypeVar

T = TypeVar("T")


class Result(Generic[T]):
    def get_result(self):
        return None


class HookCaller:
    def has_spec(self):
        return True

    def other(self):
        return True


class Tracer:
    def get(self, name):
        return self


class Manager:
    def __init__(self, relay) -> None:
        self.relay = relay
        self.trace: Final[Tracer] = make_tracer()

    def register(self, name):
        hook: HookCaller | None = getattr(self.relay, name, None)
        if hook is not None and hook.has_spec():
            return hook
        hook = getattr(self.relay, name)
        hook.has_spec()
        untyped = getattr(self.relay, name)
        untyped.other()
        return self.trace.get("x")

    def finish(self, outcome: Result[object]):
        return outcome.get_result()


def make_tracer():
    return Tracer()
""",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    root = make_repo(tmp_path_factory.mktemp("recall") / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    return ix


def test_a_stub_has_the_callers_of_the_function_it_describes(index: CodeIndex) -> None:
    # the module re-exports it (`from ._funcs import asdict`): the stub's callers are `_funcs.asdict`'s
    assert _certain(index, "python lib/__init__.pyi asdict().") == {("app.py", 8), ("app.py", 9)}
    assert _certain(index, "python lib/__init__.pyi asdict().") == _certain(index, "python lib/_funcs.py asdict().")
    # a star import brings it
    assert _certain(index, "python lib/__init__.pyi astuple().") == {("app.py", 10)}
    # the module's own definition of the same name
    assert _certain(index, "python lib/plain.pyi helper().") == {("app.py", 11)}


def test_a_stub_without_an_implementation_has_no_callers(index: CodeIndex) -> None:
    assert _certain(index, "python lib/plain.pyi missing().") == set()
    # the implementation keeps its own callers only (nothing comes from the stub's side)
    assert _certain(index, "python lib/plain.py helper().") == {("app.py", 11)}


def test_a_declared_local_has_its_declared_type_for_every_use(index: CodeIndex) -> None:
    calls = _certain(index, "python hooks.py HookCaller.has_spec().")
    assert calls == {("hooks.py", 32), ("hooks.py", 35)}  # also after a reassignment the checker holds to it
    # an undeclared local from `getattr` stays untyped: no certain caller of `other`
    assert _certain(index, "python hooks.py HookCaller.other().") == set()


def test_generic_instances_and_final_attributes(index: CodeIndex) -> None:
    assert _certain(index, "python hooks.py Result.get_result().") == {("hooks.py", 41)}
    assert _certain(index, "python hooks.py Tracer.get().") == {("hooks.py", 38)}


CONTAINERS = {
    "reg.py": """
from typing import Optional


class HookCaller:
    def remove(self, plugin):
        return plugin


class Registry:
    def __init__(self) -> None:
        self.by_name: dict[str, HookCaller] = {}

    def get_hookcallers(self, plugin) -> Optional[list[HookCaller]]:
        return None

    def unregister(self, plugin):
        hookcallers = self.get_hookcallers(plugin)
        if hookcallers:
            for hookcaller in hookcallers:
                hookcaller.remove(plugin)
        self.by_name["x"].remove(plugin)
        for hc in self.by_name.values():
            hc.remove(plugin)
        first = hookcallers[0]
        first.remove(plugin)
        for name in self.by_name:
            name.remove(plugin)


def each(callers: "list[HookCaller]", names: tuple[HookCaller, ...], other: list[int]):
    for c in callers:
        c.remove(1)
    for n in names:
        n.remove(2)
    for o in other:
        o.remove(3)
""",
}


def test_elements_and_values_of_annotated_containers(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", CONTAINERS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # the element of a method's `list[K]` result, of a `dict[str, K]` attribute (`d[k]`, `d.values()`), of
    # annotated parameters; iterating a dict gives its keys (str), a `list[int]` no class: nothing certain
    assert _certain(ix, "python reg.py HookCaller.remove().") == {
        ("reg.py", 21),
        ("reg.py", 22),
        ("reg.py", 24),
        ("reg.py", 26),
        ("reg.py", 33),
        ("reg.py", 35),
    }


MODULES = {
    "pkg/__init__.py": "",
    "pkg/_tracing.py": """
class TagTracer:
    def get(self, name):
        return self


DEFAULT = TagTracer()
""",
    "pkg/_manager.py": """
from . import _tracing
import pkg._tracing as tr


class Manager:
    def __init__(self):
        self.trace = _tracing.TagTracer().get("pluginmanage")
        _tracing.DEFAULT.get("x")
        tr.TagTracer().get("y")
""",
}


def test_members_of_an_imported_module(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", MODULES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python pkg/_tracing.py TagTracer.get().") == {
        ("pkg/_manager.py", 8),
        ("pkg/_manager.py", 9),
        ("pkg/_manager.py", 10),
    }


FACTORIES: dict[str, str | bytes] = {"pkg/__init__.py": ""}
FACTORIES["pkg/store.py"] = """
class Storage:
    def add(self, x):
        return x


class NotAClass:
    pass


def Helper():
    return 1


class PopMixin:
    def pop(self):
        return 1


class Holder(PopMixin):
    storage_class = Storage
    maker = Helper

    def __init__(self, backend: Storage):
        self.backend = backend

    def run(self):
        s = self.storage_class()
        s.add(1)
        self.pop()
        self.backend.add(2)
        m = self.maker()
        m.add(3)


def use():
    h = Holder(Storage())
    h.pop()
"""
FACTORIES["tests/conftest.py"] = """
import pytest
from pkg.store import Storage


@pytest.fixture
def storage():
    return Storage()
"""
FACTORIES["tests/test_store.py"] = "def test_add(storage):\n    storage.add(5)\n"


def test_class_attribute_factories_mixins_and_fixtures(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FACTORIES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `storage_class = Storage`; `self.storage_class()` is a Storage; `maker = Helper` (a function named like
    # a class) gives nothing certain
    assert _certain(ix, "python pkg/store.py Storage.add().") == {
        ("pkg/store.py", 29),
        ("pkg/store.py", 31),
        ("tests/test_store.py", 2),
    }
    assert _certain(ix, "python pkg/store.py PopMixin.pop().") == {("pkg/store.py", 30), ("pkg/store.py", 38)}


OVERLOADS = {
    "items.py": """
from typing import overload


class Bool:
    def flip(self):
        return self


class Integer:
    def flip(self):
        return self


class Text:
    def upper(self):
        return self


@overload
def item(value: bool) -> Bool: ...
@overload
def item(value: int) -> Integer: ...
def item(value):
    return Bool() if isinstance(value, bool) else Integer()


def text(value: str) -> Text:
    return Text()


def text(value: str) -> Text:  # a redefinition stating the same result
    return Text()
""",
    "use.py": """
from items import item, text


def run(value):
    item(3).flip()
    text("a").upper()
    item(value).flip()
""",
}


def test_overloads_stating_different_results_type_no_receiver(tmp_path: Path) -> None:
    # a checker picks `Integer` from the argument's type (session 15: `item(3)`, an int, is no bool); without
    # it (`item(value)`), neither overload's result is certain (cq once listed it as a certain caller of
    # `Bool.flip`, tomlkit's `item()` class)
    root = make_repo(tmp_path / "repo", OVERLOADS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python items.py Bool.flip().") == set()
    assert _certain(ix, "python items.py Integer.flip().") == {("use.py", 6)}
    possible = {(h.edge.path, h.edge.line) for h in ix.callers("python items.py Bool.flip().", depth=1)}
    assert ("use.py", 8) in possible  # still listed, as possible
    # definitions that agree keep their result
    assert _certain(ix, "python items.py Text.upper().") == {("use.py", 7)}


COMPREHENSIONS = {
    "comp.py": """
class K:
    def go(self):
        return 1


class Other:
    def go(self):
        return 2


def use(items: list[K], by_name: dict[str, K], others: list[Other]):
    [k.go() for k in items]
    {k.go() for k in items}
    sum(v.go() for v in by_name.values())
    [[j.go() for j in others] for i in items]
    for c in others:
        c.go()
    return [c.go() for c in items]
""",
}


def test_comprehension_variables_are_elements_of_what_they_iterate(tmp_path: Path) -> None:
    # `[k.go() for k in items]` with `items: list[K]`: a checker types `k` as K, as it does a `for` loop's
    root = make_repo(tmp_path / "repo", COMPREHENSIONS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python comp.py K.go().") == {("comp.py", 13), ("comp.py", 14), ("comp.py", 15)}
    assert _certain(ix, "python comp.py Other.go().") == {("comp.py", 16)}
    # `c` is bound to elements of two different lists in one function: neither use is certain
    possible = {(h.edge.path, h.edge.line) for h in ix.callers("python comp.py K.go().", depth=1)}
    assert {("comp.py", 18), ("comp.py", 19)} <= possible


NARROWING = {
    "shapes.py": """
class Circle:
    def area(self):
        return 1


class Square:
    def area(self):
        return 2


def make():
    return 3


def measure(s, t, u):
    if isinstance(s, Circle):
        s.area()
    elif isinstance(t, Square) and t.area():
        t.area()
    else:
        s.area()
    n = s.area() if isinstance(s, Square) else 0
    assert isinstance(u, Circle)
    u.area()
    return n


def unsure(s, t, u, v):
    if isinstance(s, (Circle, Square)):
        s.area()
    if isinstance(t, Circle):
        t = make()
        t.area()
    if not isinstance(u, Circle):
        u.area()
    while isinstance(v, Circle):
        v.area()
    if isinstance(v, Circle):
        for _ in range(3):
            v.area()
            v += 1

        def inner(v):
            return v.area()

    return v.area()
""",
}


def test_isinstance_narrows_a_local_where_a_checker_does(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", NARROWING)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # the body of `if isinstance(s, Circle)`, the rest of the block after `assert isinstance(u, Circle)`
    assert _certain(ix, "python shapes.py Circle.area().") == {("shapes.py", 18), ("shapes.py", 25)}
    # `elif isinstance(t, Square) and t.area()` (its right operand and its body), a conditional expression
    assert _certain(ix, "python shapes.py Square.area().") == {
        ("shapes.py", 19),
        ("shapes.py", 20),
        ("shapes.py", 23),
    }
    # a tuple of classes, a reassigned local, `not`, a `while` (not read), a region that rebinds the name
    # (a later `+=` in a loop), a nested function's parameter, the code after the `if`: all stay possible
    possible = {(h.edge.path, h.edge.line) for h in ix.callers("python shapes.py Circle.area().", depth=1)}
    assert {("shapes.py", n) for n in (22, 31, 34, 36, 38, 41, 45, 47)} <= possible


SPECIALISED = {
    "ruler.py": """
from typing import Generic, TypeVar

T = TypeVar("T")


class Ruler(Generic[T]):
    def get_rules(self, chain):
        return []


class Block:
    def __init__(self) -> None:
        self.ruler = Ruler[int]()

    def tokenize(self):
        local = Ruler[str]()
        local.get_rules("")
        return self.ruler.get_rules("")
""",
}


def test_a_specialised_generic_constructor_makes_an_instance_of_the_class(tmp_path: Path) -> None:
    # `self.ruler = Ruler[RuleFuncBlockType]()` (markdown-it-py, found after its held-out run): a Ruler
    root = make_repo(tmp_path / "repo", SPECIALISED)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python ruler.py Ruler.get_rules().") == {("ruler.py", 18), ("ruler.py", 19)}


TYPE_ATTRIBUTES = {
    "lib/__init__.py": "",
    "lib/caches.py": """
class Cache:
    def clear(self):
        return None

    def pop(self, key):
        return key


class LRU(Cache):
    def clear(self):
        return None
""",
    "tests/__init__.py": """
from typing import Type

from lib import caches
from lib.caches import Cache


class CacheTestMixin:
    Cache: type[caches.Cache]
    Other: "Type[Cache]"
    Many: type[Cache | int]

    def test_clear(self):
        cache = self.Cache(maxsize=2)
        cache.clear()
        self.Other().pop(1)
        self.Many().clear()
""",
    "tests/test_lru.py": """
import unittest

from lib.caches import LRU

from . import CacheTestMixin


class LRUTest(unittest.TestCase, CacheTestMixin):
    Cache = LRU

    def test_lru(self):
        self.Cache(maxsize=2).clear()
""",
}


def test_an_attribute_holding_a_class_makes_its_instances(tmp_path: Path) -> None:
    # cachetools' test mixin (`Cache: type[cachetools.Cache]`, `cache = self.Cache(maxsize=2)`): a checker
    # types `cache` as a Cache; a subclass that sets `Cache = LRU` makes LRUs in its own methods
    root = make_repo(tmp_path / "repo", TYPE_ATTRIBUTES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python lib/caches.py Cache.clear().") == {("tests/__init__.py", 15)}
    assert _certain(ix, "python lib/caches.py Cache.pop().") == {("tests/__init__.py", 16)}
    assert _certain(ix, "python lib/caches.py LRU.clear().") == {("tests/test_lru.py", 13)}


CALLABLE_PARAMETERS = {
    "client.py": """
class Session:
    def receive_bytes(self):
        return b""


class Client:
    def connect(self, url) -> Session:
        return Session()


def make(app):
    return Client()
""",
    "factory.py": """
from typing import Protocol

from client import Client


class ClientFactory(Protocol):
    def __call__(self, app) -> Client: ...
""",
    "tests/test_ws.py": """
from client import make
from factory import ClientFactory


def test_bytes(client_factory: ClientFactory) -> None:
    client = client_factory(object())
    with client.connect("/ws") as session:
        session.receive_bytes()


def test_shadowed(make) -> None:
    other = make(object())
    other.connect("/")
""",
}


def test_calling_a_parameter_gives_what_its_type_returns(tmp_path: Path) -> None:
    # starlette's tests: `client = test_client_factory(App)` with `test_client_factory: TestClientFactory`, a
    # Protocol whose `__call__` returns TestClient: a checker types `client` by `__call__`'s result; a
    # parameter named like a function of the module (`make`) is the parameter, not the function
    root = make_repo(tmp_path / "repo", CALLABLE_PARAMETERS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python client.py Session.receive_bytes().") == {("tests/test_ws.py", 9)}
    assert _certain(ix, "python client.py Client.connect().") == {("tests/test_ws.py", 8)}


FIXTURES = {
    "app/client.py": """
from typing import Protocol


class Client:
    def get(self, url):
        return url


class Conn:
    def send(self, data):
        return data


class Storage:
    def add(self, item):
        return item


class Other:
    def add(self, item):
        return item


class ClientFactory(Protocol):
    def __call__(self, app) -> Client: ...


def connect():
    return object()
""",
    "tests/conftest.py": """
from typing import Generator, Iterator

import pytest

from app.client import Client, ClientFactory, Conn, Storage, connect


@pytest.fixture(name="client")
def _client_fixture():
    return Client()


@pytest.fixture
def conn() -> Iterator[Conn]:
    c = connect()
    yield c


@pytest.fixture
def gen_conn() -> Generator[Conn, None, None]:
    yield connect()


@pytest.fixture
def storage():
    return Storage()


@pytest.fixture
def client_factory() -> ClientFactory:
    return make_factory()


def plain_helper():
    return Storage()
""",
    "tests/test_top.py": """
import pytest
from app.client import Other


def test_alias(client):
    client.get("/")


def test_generators(conn, gen_conn):
    conn.send(1)
    gen_conn.send(2)


@pytest.mark.parametrize("storage", [1, 2])
def test_parametrized(storage):
    storage.add(3)


@pytest.mark.parametrize(("x", "storage"), [(1, 2)])
def test_parametrized_tuple(x, storage):
    storage.add(4)


@pytest.mark.parametrize("storage", [1], indirect=True)
def test_indirect(storage):
    storage.add(5)


def test_calls_the_fixture_value(client_factory):
    made = client_factory(object())
    made.get("/x")


def test_not_a_fixture(plain_helper):
    plain_helper.add(6)


@pytest.mark.parametrize("n", [1])
class TestInClass:
    @pytest.fixture
    def storage(self):
        return Other()

    def test_class_fixture(self, storage, n):
        storage.add(7)


class Base:
    @pytest.fixture
    def storage(self):
        return Other()


class TestSub(Base):
    def test_inherited(self, storage):
        storage.add(11)
""",
    "tests/plugins/fixtures.py": """
import pytest

from app.client import Conn, Other


@pytest.fixture
def shared():
    return Conn()


@pytest.fixture
def named():
    return Other()
""",
    "tests/plugins/__init__.py": "",
    "tests/__init__.py": "",
    "tests/imp/conftest.py": """
from tests.plugins.fixtures import *
from tests.plugins.fixtures import named
""",
    "tests/imp/test_imported.py": """
def test_imported(shared, named):
    shared.send(9)
    named.add(10)
""",
    "tests/sub/conftest.py": """
import pytest

from app.client import Other


@pytest.fixture
def storage():
    return Other()
""",
    "tests/sub/test_near.py": """
import pytest


def test_nearest(storage):
    storage.add(8)


@pytest.fixture
def client(client):
    client.get("/own")
    return client
""",
}


def test_a_fixture_parameter_is_typed_by_the_fixture_pytest_passes(tmp_path: Path) -> None:
    # the fixture found the way pytest finds it (class, module, conftest.py files up the directories; a
    # `name=` alias; a fixture requesting the name it overrides gets the one above); its value is what it
    # returns or yields (`-> Iterator[Conn]`: a Conn); a parametrized parameter is not the fixture
    root = make_repo(tmp_path / "repo", FIXTURES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python app/client.py Client.get().") == {
        ("tests/test_top.py", 7),  # `@pytest.fixture(name="client")`
        ("tests/test_top.py", 32),  # `client_factory(...)`: the fixture states `-> ClientFactory`
        ("tests/sub/test_near.py", 11),  # `def client(client)`: the conftest's `client`, not itself
    }
    assert _certain(ix, "python app/client.py Conn.send().") == {
        ("tests/test_top.py", 11),
        ("tests/test_top.py", 12),
        ("tests/imp/test_imported.py", 3),  # a fixture a conftest.py imports (`*`) is registered there
    }
    # parametrized (not indirectly) -> the listed values; the class's own fixture and the nearer conftest
    # override tests/conftest.py's `storage`
    assert _certain(ix, "python app/client.py Storage.add().") == {("tests/test_top.py", 27)}
    assert _certain(ix, "python app/client.py Other.add().") == {
        ("tests/test_top.py", 46),
        ("tests/sub/test_near.py", 6),
        ("tests/imp/test_imported.py", 4),  # imported by name
        ("tests/test_top.py", 57),  # a fixture method of the test class's base
    }
    possible = {(h.edge.path, h.edge.line) for h in ix.callers("python app/client.py Storage.add().", depth=1)}
    assert {("tests/test_top.py", 17), ("tests/test_top.py", 22), ("tests/test_top.py", 36)} <= possible


CAUGHT_AND_CLASS_PARAMETERS = {
    "errs/__init__.py": "",
    "errs/core.py": """
class RetryError(Exception):
    def reraise(self):
        raise self


class Other(Exception):
    def reraise(self):
        raise self


class Retrying:
    def __init__(self, retry_error_cls: type[RetryError] = RetryError):
        self.retry_error_cls = retry_error_cls

    def run(self, fut):
        retry_exc = self.retry_error_cls(fut)
        retry_exc.reraise()
""",
    "tests/test_errs.py": """
import errs.core
from errs.core import Other, RetryError


def test_caught():
    try:
        run()
    except errs.core.RetryError as retry_err:
        retry_err.reraise()
    try:
        run()
    except Other as e:
        e.reraise()
    try:
        run()
    except (RetryError, Other) as both:
        both.reraise()
""",
}


def test_caught_exceptions_and_class_object_parameters(tmp_path: Path) -> None:
    # tenacity: `except tenacity.RetryError as retry_err: retry_err.reraise()` and `retry_exc =
    # self.retry_error_cls(fut)` with `self.retry_error_cls = retry_error_cls: type[RetryError]`: pyright types
    # both receivers as RetryError; a tuple of classes gives no one class
    root = make_repo(tmp_path / "repo", CAUGHT_AND_CLASS_PARAMETERS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python errs/core.py RetryError.reraise().") == {
        ("errs/core.py", 18),
        ("tests/test_errs.py", 10),
    }
    assert _certain(ix, "python errs/core.py Other.reraise().") == {("tests/test_errs.py", 14)}
    possible = {(h.edge.path, h.edge.line) for h in ix.callers("python errs/core.py Other.reraise().", depth=1)}
    assert ("tests/test_errs.py", 18) in possible


PRIVATE_CLASSES = {
    "lfu.py": """
class LFUCache:
    class _Link:
        def insert(self, root):
            return root

    def copy(self):
        link = LFUCache._Link()
        link.insert(None)
        other = _Private()
        other.insert(None)


class _Private:
    def insert(self, root):
        return root
""",
}


def test_a_private_class_constructor_makes_an_instance(tmp_path: Path) -> None:
    # cachetools: `link = LFUCache._Link(curr.count); link.insert(root)`: `_Link` is a class (PEP 8's private
    # class name), which pyright and jedi both read
    root = make_repo(tmp_path / "repo", PRIVATE_CLASSES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python lfu.py LFUCache._Link.insert().") == {("lfu.py", 9)}
    assert _certain(ix, "python lfu.py _Private.insert().") == {("lfu.py", 11)}


CLASS_OBJECT_BASES = {
    "db/__init__.py": "",
    "db/table.py": """
class Table:
    def insert(self, doc):
        return doc
""",
    "db/database.py": """
from db.table import Table


def with_typehint(cls):
    return object


TableBase: type[Table] = with_typehint(Table)


class TinyDB(TableBase):
    def __getattr__(self, name):
        return getattr(Table(), name)
""",
    "tests/conftest.py": """
import pytest

from db.database import TinyDB


@pytest.fixture(params=["memory", "json"])
def db(request):
    db_ = TinyDB()
    yield db_
""",
    "tests/test_db.py": """
def test_insert(db):
    db.insert({"a": 1})
""",
}


def test_a_base_stated_as_a_class_object_is_that_class(tmp_path: Path) -> None:
    # tinydb: `TableBase: type[Table] = with_typehint(Table)`; `class TinyDB(TableBase)`: a checker reads
    # TinyDB as a Table (pyright and jedi type `db.insert(...)` in a test as `Table.insert`)
    root = make_repo(tmp_path / "repo", CLASS_OBJECT_BASES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python db/table.py Table.insert().") == {("tests/test_db.py", 3)}
