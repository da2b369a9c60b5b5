"""A bare name reached through a chain of star imports (issue 24, session 17): funcy's shape, a package
`__init__` of `from .seqs import *` lines and users of `from pkg import *` / `from pkg.seqs import *`. Python
binds what a module's `__all__` lists (a literal, `+`/`+=` of literals and another module's `__all__`), else
every public name, its star-imported ones too. Real files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import indexed

FILES = {
    "fn/__init__.py": "from .seqs import *\nfrom .plain import *\nfrom .listed import *\n\nlcat([])\n",
    # with `__all__`: `hidden` is public but not listed, `nth` is
    "fn/seqs.py": (
        "__all__ = ['nth', 'lcat'] + extra.__all__\n__all__ += ('first',)\n\n"
        "from . import extra\nfrom .extra import *\n\n\n"
        "def nth(n, seq):\n    return seq[n]\n\n\n"
        "def first(seq):\n    return seq[0]\n\n\n"
        "def lcat(seqs):\n    return []\n\n\n"
        "def hidden():\n    return 1\n"
    ),
    "fn/extra.py": "__all__ = ['more']\n\n\ndef more():\n    return 2\n",
    # without `__all__`: every public name, also one it got by a star import of its own
    "fn/plain.py": ("from .deeper import *\n\n\ndef compose(*fs):\n    return fs\n\n\ndef _private():\n    return 0\n"),
    "fn/deeper.py": "def walk(x):\n    return x\n",
    # a star import of a module whose `__all__` is not readable: its public names
    "fn/listed.py": "__all__ = make_all()\n\n\ndef silent(f):\n    return f\n",
    "tests/test_fn.py": (
        "from fn import *\n\n\n"
        "def test_it():\n"
        "    nth(0, [1])\n"  # 5
        "    first([1])\n"  # 6
        "    compose()\n"  # 7
        "    walk(1)\n"  # 8
        "    silent(1)\n"  # 9
        "    hidden()\n"  # 10
        "    _private()\n"  # 11
        "    more()\n"  # 12
    ),
    "tests/test_seqs.py": "from fn.seqs import *\n\n\ndef test_nth():\n    nth(1, [1, 2])\n",
    # a definition of the file wins over a star-imported one
    "tests/test_order.py": "from fn.seqs import *\nfrom fn.plain import *\n\n\ndef nth(): ...\n\nfirst([1])\n",
}


def _index(tmp_path: Path) -> CodeIndex:
    return indexed(tmp_path / "repo", FILES)


def test_a_star_import_of_a_module_with_all_gives_its_listed_names(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    assert ("tests/test_seqs.py", 5) in _certain(ix, "python fn/seqs.py nth().")
    assert ("fn/__init__.py", 5) in _certain(ix, "python fn/seqs.py lcat().")  # the package's own star import


def test_a_chain_of_star_imports_reaches_the_definition(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    assert ("tests/test_fn.py", 5) in _certain(ix, "python fn/seqs.py nth().")
    assert ("tests/test_fn.py", 6) in _certain(ix, "python fn/seqs.py first().")  # `__all__ += (...)`
    assert ("tests/test_fn.py", 7) in _certain(ix, "python fn/plain.py compose().")  # no `__all__`
    assert ("tests/test_fn.py", 8) in _certain(ix, "python fn/deeper.py walk().")  # three hops
    assert ("tests/test_fn.py", 9) in _certain(ix, "python fn/listed.py silent().")  # unreadable `__all__`
    assert ("tests/test_fn.py", 12) in _certain(ix, "python fn/extra.py more().")  # `extra.__all__`


def test_names_a_star_import_does_not_bring_are_not_resolved(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    assert ("tests/test_fn.py", 10) not in _certain(ix, "python fn/seqs.py hidden().")  # not in `__all__`
    assert ("tests/test_fn.py", 11) not in _certain(ix, "python fn/plain.py _private().")  # private


def test_a_local_definition_wins_over_a_star_import(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    assert ("tests/test_order.py", 7) in _certain(ix, "python fn/seqs.py first().")
    nth = _certain(ix, "python fn/seqs.py nth().")
    assert not any(path == "tests/test_order.py" for path, _ in nth)
