"""Python receivers pyright types and cq missed (issue 24 item 1, session 14): a base class reached through
an attribute or a module (`class D(self.Cache)`, `class X(mod.Base)`), `super()` in a class defined inside
a function, identity helpers (`copy.deepcopy(x)`, `typing.cast(K, x)`). Real files, a real git repository,
a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": """
class Cache:
    def get_info(self, key):
        return key

    def clear(self):
        pass


class Other:
    def get_info(self, key):
        return key

    def clear(self):
        pass
""",
    "pkg/use.py": """
import copy
import typing
from copy import deepcopy
from typing import cast

from pkg import base
from pkg.base import Cache, Other


class Derived(base.Cache):
    pass


def nested():
    class Slots(Cache):
        def get_info(self, key):
            return key

    class SlotsChild(Slots):
        def get_info(self, key):
            return super().get_info(key)

    return SlotsChild


def helpers(thing):
    copy.deepcopy(Cache()).clear()
    deepcopy(Other()).clear()
    copy.copy(Cache()).clear()
    made = copy.deepcopy(Cache())
    made.clear()
    cast(Cache, thing).clear()
    typing.cast("Other", thing).clear()
    Derived().clear()
""",
    "pkg/aio.py": """
import typing

from pkg import helpers

T = typing.TypeVar("T")


class AwaitableOrCM(typing.Awaitable[T], typing.AsyncContextManager[T], typing.Protocol[T]): ...


class FormData:
    def get(self, key):
        return key


class Request:
    def form(self) -> AwaitableOrCM[FormData]:
        return make()

    def stream(self) -> typing.Coroutine[None, None, FormData]:
        return make()

    async def json(self) -> FormData:
        return FormData()

    async def body(self):
        return FormData()


async def handler(request: Request):
    data = await request.form()
    data.get("a")
    (await request.json()).get("b")
    (await request.body()).get("c")
    (await request.stream()).get("d")
    (await helpers.load()).get("e")
""",
    "pkg/helpers.py": """
async def load():
    from pkg.aio import FormData

    return FormData()
""",
    "tests/__init__.py": "",
    "tests/test_cache.py": """
import unittest

from pkg.base import Cache


class CacheTestMixin:
    Cache = Cache

    def test_missing(self):
        class DefaultCache(self.Cache):
            def __missing__(self, key):
                return key

        cache = DefaultCache()
        cache.clear()
""",
    "tests/test_stated.py": """
from pkg import base


class StatedMixin:
    Cache: type[base.Other]

    def test_missing(self):
        class DefaultCache(self.Cache):
            pass

        DefaultCache().clear()
""",
}


def test_classes_a_checker_types(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python pkg/use.py nested.Slots.get_info().") == {("pkg/use.py", 22)}
    assert _certain(ix, "python pkg/base.py Cache.clear().") == {
        ("pkg/use.py", 28),  # copy.deepcopy(x): x's type
        ("pkg/use.py", 30),  # copy.copy(x)
        ("pkg/use.py", 32),  # a local made by deepcopy
        ("pkg/use.py", 33),  # typing.cast(Cache, x)
        ("pkg/use.py", 35),  # class Derived(base.Cache): a base named through its module
        ("tests/test_cache.py", 16),  # class DefaultCache(self.Cache), the class body's `Cache = Cache`
    }
    assert _certain(ix, "python pkg/base.py Other.clear().") == {
        ("pkg/use.py", 29),
        ("pkg/use.py", 34),
        ("tests/test_stated.py", 12),  # `Cache: type[base.Other]`: the base a checker reads
    }
    # `await`: what awaiting the result gives (an async def's result; X of a stated generic awaitable `K[X]`,
    # `Coroutine[_, _, X]`), also through a module's async function
    assert _certain(ix, "python pkg/aio.py FormData.get().") == {
        ("pkg/aio.py", 33),
        ("pkg/aio.py", 34),
        ("pkg/aio.py", 35),
        ("pkg/aio.py", 36),
        ("pkg/aio.py", 37),
    }


FLUENT = {
    "flow/__init__.py": "",
    "flow/stream.py": """
class Iter:
    def __init__(self, ops=()):
        self.ops = ops

    def _add_op(self, op):
        return type(self)(self.ops + (op,))

    def filter(self, key=None):
        return self._add_op(("filter", key))

    def all(self):
        return list(self.ops)


def run():
    spec = Iter().filter()
    spec = spec.filter(len)
    spec.all()
    Iter().filter().all()
""",
}


def test_type_of_self_called_makes_the_own_class(tmp_path: Path) -> None:
    # glom's `Iter._add_op` returns `type(self)(...)`: a checker reads it as Self, so every fluent method's result
    root = make_repo(tmp_path / "repo", FLUENT)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python flow/stream.py Iter.all().") == {("flow/stream.py", 19), ("flow/stream.py", 20)}
    assert _certain(ix, "python flow/stream.py Iter.filter().") == {
        ("flow/stream.py", 17),
        ("flow/stream.py", 18),
        ("flow/stream.py", 20),
    }
