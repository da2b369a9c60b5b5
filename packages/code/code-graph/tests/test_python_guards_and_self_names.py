"""Two readings a checker makes that the graph did not (issue 24, session 20): a guard that never falls
through (`if not isinstance(x, K): self.raise_os_error(...)`, pyfakefs) narrows `x` after it, and a method's
first parameter is the instance whatever its name (mako's `def visitDefTag(s, node): s.visitDefOrBase(node)`),
and a module-level alias of a class read through an imported module (`FakeFile = fake_file.FakeFile`) is
that class where an annotation names it.
Real files, a real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

FILES = {
    "p/__init__.py": "",
    "p/k.py": """class K:
    def ping(self):
        return 1


class D(K):
    def ping(self):
        return 2


class J:
    def pong(self):
        return 3
""",
    "p/fs.py": """from p import k

J2 = k.J
Gone = k.J
Gone = None


class FS:
    def resolve(self) -> J2:
        return make()

    def other(self) -> Gone:
        return make()
""",
    "p/os_.py": """from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from p.fs import FS


class OS:
    def __init__(self, fs: FS):
        self.fs = fs

    def chdir(self):
        directory = self.fs.resolve()
        directory.pong()
        self.fs.other().pong()
""",
    "p/use.py": """from typing import NoReturn

from p.k import K


class Host:
    def a(s):
        s.b()

    def b(this):
        return this

    @staticmethod
    def st(s):
        s.b()

    def raising(self, x):
        if not isinstance(x, K):
            raise TypeError()
        x.ping()

    def failing(self, x):
        if not isinstance(x, K):
            self.fail()
        x.ping()

    def falls_through(self, x):
        if not isinstance(x, K):
            print(x)
        x.ping()

    def fail(self) -> NoReturn:
        raise TypeError()
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("guards_self_names") / "repo", FILES)


def test_a_first_parameter_under_another_name_is_the_instance(ix: CodeIndex) -> None:
    assert _certain(ix, "python p/use.py Host.b().") == {("p/use.py", 8)}  # (not the staticmethod's `s`)


def test_a_guard_that_never_falls_through_narrows(ix: CodeIndex) -> None:
    assert _certain(ix, "python p/k.py K.ping().") == {("p/use.py", 20), ("p/use.py", 25)}
    assert not _certain(ix, "python p/k.py D.ping().")


def test_an_alias_of_a_class_through_an_imported_module_is_the_class(ix: CodeIndex) -> None:
    assert _certain(ix, "python p/k.py J.pong().") == {("p/os_.py", 13)}  # (not `Gone`, bound twice)
