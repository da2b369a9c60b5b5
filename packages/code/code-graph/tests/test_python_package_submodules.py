"""A package's `__init__.py` that imports from its submodule has the submodule bound by that name (issue 24
item 1, session 18): `from .loader import *` sets the package's attribute `loader`, and the package's
attributes are the `__init__`'s globals, so `loader.Loader.add_multi(...)` there calls the class's method
(invoke's vendored PyYAML). A name the `__init__` binds otherwise, and a plain module, get nothing. Real
files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers as _certain
from repo_fixtures import indexed

LOADER = """class Base:
    @classmethod
    def add_multi(cls, x):
        return x


class Loader(Base):
    pass
"""

FILES = {
    "pkg/loader.py": LOADER,
    "pkg/__init__.py": """from .loader import *


def add(x):
    loader.Loader.add_multi(x)
""",
    "pkg/other.py": """from .loader import *


def add(x):
    loader.Loader.add_multi(x)
""",
    "rebound/loader.py": LOADER,
    "rebound/__init__.py": """from .loader import *


def loader():
    return None


def add(x):
    loader.Loader.add_multi(x)
""",
}


def test_a_package_init_has_its_imported_submodule_bound(tmp_path: Path) -> None:
    ix = indexed(tmp_path / "repo", FILES)
    assert _certain(ix, "python pkg/loader.py Base.add_multi().") == {("pkg/__init__.py", 5)}
    assert _certain(ix, "python rebound/loader.py Base.add_multi().") == set()
