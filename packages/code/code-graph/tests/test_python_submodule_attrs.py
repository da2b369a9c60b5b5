"""A submodule is an attribute of its package once the package's `__init__.py` imports it (issue 24 item 1,
session 22): `import humanize; humanize.i18n.activate("fr")` with `from humanize.i18n import activate` in
humanize's `__init__` (a `src/` layout), `from . import sub`, `from pkg import sub` and `import pkg.sub` too,
as pyright and mypy read it. A submodule the `__init__` never imports stays possible (a checker reports an
attribute error), and so does one the `__init__` binds to something else after importing it. Real files, a
real git repository, a real index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import built_index
from repo_fixtures import certain_callers as _certain

SUB = """class Clock:
    def tick(self):
        return 1


def activate(locale):
    return locale
"""

FILES = {
    # humanize's shape: a src/ layout, the __init__ importing names from its submodule by absolute name
    "src/hz/__init__.py": "from hz.i18n import activate\nfrom hz import time\nfrom . import number\nimport hz.lists\n",
    "src/hz/i18n.py": SUB,
    "src/hz/time.py": SUB,
    "src/hz/number.py": SUB,
    "src/hz/lists.py": SUB,
    "src/hz/never.py": SUB,  # no import of it in the __init__
    "src/hz/rebound.py": SUB,
    # flat layout; the __init__ rebinds `rebound` after importing it
    "flat/__init__.py": """from .rebound import activate
from .sub import Clock
import flat.other
other = None


def rebound(x):
    return x
""",
    "flat/other.py": SUB,
    "flat/rebound.py": SUB,
    "flat/sub.py": SUB,
    "tests/test_hz.py": """import hz
import flat


def test_it():
    hz.i18n.activate("fr")
    hz.time.activate("fr")
    hz.number.activate("fr")
    hz.lists.activate("fr")
    hz.never.activate("fr")
    flat.rebound.activate("fr")
    flat.sub.activate("fr")
    flat.other.activate("fr")
    hz.i18n.Clock().tick()
    clock = hz.time.Clock()
    clock.tick()
    hz.lists.Clock.tick(clock)
""",
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeIndex]:
    yield from built_index(tmp_path_factory.mktemp("submodule_attrs") / "repo", FILES)


@pytest.mark.parametrize(("sub", "line"), [("i18n", 6), ("time", 7), ("number", 8), ("lists", 9)])
def test_a_submodule_the_init_imports_is_the_package_s_attribute(ix: CodeIndex, sub: str, line: int) -> None:
    assert _certain(ix, f"python src/hz/{sub}.py activate().") == {("tests/test_hz.py", line)}


def test_a_flat_package_s_submodule_imported_by_its_init(ix: CodeIndex) -> None:
    assert _certain(ix, "python flat/sub.py activate().") == {("tests/test_hz.py", 12)}


def test_a_submodule_nobody_imports_stays_possible(ix: CodeIndex) -> None:
    assert _certain(ix, "python src/hz/never.py activate().") == set()


def test_a_submodule_the_init_rebinds_stays_possible(ix: CodeIndex) -> None:
    assert _certain(ix, "python flat/rebound.py activate().") == set()  # a def of the name
    assert _certain(ix, "python flat/other.py activate().") == set()  # `other = None` after `import flat.other`


def test_a_class_of_a_submodule_and_its_instances(ix: CodeIndex) -> None:
    assert _certain(ix, "python src/hz/i18n.py Clock#") >= {("tests/test_hz.py", 14)}
    assert _certain(ix, "python src/hz/i18n.py Clock.tick().") == {("tests/test_hz.py", 14)}
    assert _certain(ix, "python src/hz/time.py Clock.tick().") == {("tests/test_hz.py", 16)}
    assert _certain(ix, "python src/hz/lists.py Clock.tick().") == {("tests/test_hz.py", 17)}  # `pkg.sub.K.m`
