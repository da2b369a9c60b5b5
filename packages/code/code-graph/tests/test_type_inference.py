"""Receivers only inference finds: pytest fixtures, method results, imported module instances, attribute
chains across files. Each certain edge says which inference it rests on (Edge.resolution)."""

from __future__ import annotations

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo

FILES = {
    "web/__init__.py": "from .globals import g as g\nfrom .app import App\n",
    "web/globals.py": """
from .proxy import LocalProxy
from .ctx import Globals

g: Globals = LocalProxy("g")
plain = LocalProxy("plain")
""",
    "web/proxy.py": """
class LocalProxy:
    def __init__(self, name):
        self.name = name
""",
    "web/ctx.py": """
class Globals:
    def setdefault(self, key, value=None):
        return value
""",
    "web/config.py": """
class Config(dict):
    def from_file(self, name):
        return True
""",
    "web/response.py": """
class Response:
    def json(self):
        return {}

    def close(self):
        pass


class Other:
    def json(self):
        return []
""",
    "web/app.py": """
from typing import Self

from .config import Config
from .response import Response, Other


class Client:
    def get(self, url) -> Response:
        return Response()

    def build(self):
        return Response()

    def either(self, flag):
        if flag:
            return Response()
        return Other()

    def again(self) -> Self:
        return self

    def send(self):
        response = self.get("/")
        response.close()
        self.build().close()


class App:
    def __init__(self):
        self.config = self.make_config()

    def make_config(self) -> Config:
        return Config()

    def test_client(self):
        return Client()
""",
    "tests/__init__.py": "",
    "tests/conftest.py": """
import pytest

from web import App


@pytest.fixture
def app():
    app = App()
    yield app


@pytest.fixture
def client(app):
    return app.test_client()
""",
    "tests/test_use.py": """
import web
from web import g


def test_fixture(app, client):
    app.config.from_file("x.json")
    client.get("/").json()
    client.again().get("/").json()
    app.test_client().get("/").json()


def test_instances():
    g.setdefault("a")
    web.g.setdefault("b")


def test_unsure(client, nothing):
    client.either(1).json()
    nothing.json()
    r = client.get("/")
    r = 3
    r.json()
""",
    "tests/special/__init__.py": "",
    "tests/special/conftest.py": """
import pytest

from web.response import Other


@pytest.fixture
def client():
    return Other()
""",
    "tests/special/test_special.py": """
def test_override(client):
    client.json()
""",
}

JSON = "python web/response.py Response.json()."
OTHER_JSON = "python web/response.py Other.json()."
CLOSE = "python web/response.py Response.close()."
SETDEFAULT = "python web/ctx.py Globals.setdefault()."
FROM_FILE = "python web/config.py Config.from_file()."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    root = make_repo(tmp_path_factory.mktemp("infer") / "repo", FILES)
    ix = CodeIndex(root)
    ix.build(full=True)
    return ix


def _sites(ix: CodeIndex, target: str, certain_only: bool = True) -> dict[tuple[str, int], str | None]:
    return {
        (h.edge.path or "", h.edge.line or 0): h.edge.resolution
        for h in ix.callers(target, depth=1)
        if not certain_only or h.edge.confidence != "name-only"
    }


def test_fixture_parameters_resolve_through_conftest(index: CodeIndex) -> None:
    json = _sites(index, JSON)
    # client -> conftest's client(app) -> app.test_client() -> Client; Client.get -> Response
    assert json[("tests/test_use.py", 8)] == "fixture"
    assert json[("tests/test_use.py", 9)] == "fixture"  # through `-> Self`
    assert json[("tests/test_use.py", 10)] == "fixture"  # app.test_client().get(...)
    assert _sites(index, FROM_FILE) == {("tests/test_use.py", 7): "fixture"}  # self.config = self.make_config()


def test_the_nearest_conftest_wins(index: CodeIndex) -> None:
    assert ("tests/special/test_special.py", 3) not in _sites(index, JSON, certain_only=False)
    assert _sites(index, OTHER_JSON) == {("tests/special/test_special.py", 3): "fixture"}


def test_method_results(index: CodeIndex) -> None:
    close = _sites(index, CLOSE)
    assert close == {("web/app.py", 25): "return-type", ("web/app.py", 26): "return-type"}  # annotated, inferred


def test_module_level_instances_through_imports_and_re_exports(index: CodeIndex) -> None:
    assert _sites(index, SETDEFAULT) == {
        ("tests/test_use.py", 14): "module-instance",  # from web import g (re-exported from web.globals)
        ("tests/test_use.py", 15): "module-instance",  # import web; web.g
    }


def test_what_inference_cannot_settle_stays_possible(index: CodeIndex) -> None:
    certain = _sites(index, JSON)
    possible = _sites(index, JSON, certain_only=False)
    for line in (19, 20, 23):  # two different results, an unknown fixture, a reassigned local
        assert ("tests/test_use.py", line) not in certain
        assert ("tests/test_use.py", line) in possible
    assert ("tests/test_use.py", 19) not in _sites(index, OTHER_JSON)
