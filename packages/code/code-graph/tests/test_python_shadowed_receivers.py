"""A parameter or local shadows the module's class of that name as a receiver (issue 24 item 1, scoping):
`def add(x, Loader=None): Loader.add_multi(x)` calls whatever the caller passed, not the imported class
`Loader` (PyYAML's `add_multi_constructor`, found by session 17's held-out VIII as a wrong certain answer).
A check reads it as jedi and pyright do: no certain answer there. Real files, a real git repository, a real
index."""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers as _certain
from repo_fixtures import indexed

FILES = {
    "pkg/__init__.py": "",
    "pkg/loader.py": """class Base:
    @classmethod
    def add_multi(cls, x):
        return x


class Loader(Base):
    pass
""",
    "pkg/use.py": """from pkg.loader import Loader


def with_default(x, Loader=None):
    Loader.add_multi(x)


def plain(x, Loader):
    Loader.add_multi(x)


def keyword_only(x, *, Loader):
    Loader.add_multi(x)


def local(x, make):
    Loader = make()
    Loader.add_multi(x)


def the_class(x):
    Loader.add_multi(x)


class Holder:
    def method(self, x):
        Loader.add_multi(x)
""",
}


def test_a_parameter_or_local_shadows_the_class_as_a_receiver(tmp_path: Path) -> None:
    ix = indexed(tmp_path / "repo", FILES)
    assert _certain(ix, "python pkg/loader.py Base.add_multi().") == {
        ("pkg/use.py", 22),  # the imported class itself
        ("pkg/use.py", 27),  # in a method, where no parameter is named Loader
    }
