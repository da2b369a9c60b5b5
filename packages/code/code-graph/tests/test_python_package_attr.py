"""`from pkg import x` where pkg/x.py is a module and pkg/__init__.py rebinds x (issue 24, session 17):
Python's `from` reads the package's attribute, which the __init__'s `from pkg.x import x` made the instance,
not the submodule. plumbum's shape (`local = LocalMachine()` re-exported through two packages). Real files,
a real git repository, a real index. Also `with m.tempdir() as tmp` where `tempdir` is a `@contextmanager`
stating `-> Generator[LocalPath, None, None]`: tmp is a LocalPath."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "pb/__init__.py": "from pb.machines import local\n",
    "pb/machines/__init__.py": "from pb.machines.local import LocalMachine, local\n",
    "pb/machines/local.py": (
        "from contextlib import contextmanager\nfrom typing import Generator\n\n\n"
        "class LocalPath:\n    def walk(self):\n        return []\n\n\n"
        "class LocalMachine:\n    def as_root(self):\n        return self\n\n"
        "    @contextmanager\n    def tempdir(self) -> Generator[LocalPath, None, None]:\n        yield LocalPath()\n\n"
        "    def paths(self) -> Generator[LocalPath, None, None]:\n        yield LocalPath()\n\n\n"
        "local = LocalMachine()\n"
    ),
    "pb/machines/other.py": "class Other:\n    def as_root(self):\n        return self\n",
    "tests/test_sudo.py": (
        "from pb import local\nfrom pb.machines import other\n\n\n"
        "def test_root():\n    local.as_root()\n    other.as_root()\n"
        "    with local.tempdir() as tmp:\n        tmp.walk()\n"  # 8, 9
        "    gen = local.paths()\n    gen.walk()\n"  # 10, 11
    ),
}


def test_a_package_attribute_its_init_rebinds_is_the_bound_value(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert ("tests/test_sudo.py", 6) in _certain(ix, "python pb/machines/local.py LocalMachine.as_root().")
    # a submodule the __init__ does not rebind stays the module (`other.as_root` is no module function)
    assert ("tests/test_sudo.py", 7) not in _certain(ix, "python pb/machines/other.py Other.as_root().")


def test_with_a_contextmanager_binds_what_it_yields(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    walk = _certain(ix, "python pb/machines/local.py LocalPath.walk().")
    assert ("tests/test_sudo.py", 9) in walk  # `with local.tempdir() as tmp`: the yielded LocalPath
    assert ("tests/test_sudo.py", 11) not in walk  # a plain generator's call is the generator, no LocalPath
