"""Python receivers a checker types and cq missed (issue 24 item 1, session 15): a class object held by an
attribute (`self.parser.parse_options(m)` with `parser: type[K]`, `self.factory.create()` with `factory = K`),
a class attribute read through the class (`Contact.objects.get()`), and a class a function defines that
shadows a module-level class of the same name. Real files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import make_repo

CLASS_OBJECTS = {
    "md/__init__.py": "",
    "md/base.py": """
from typing import Type


class DirectiveParser:
    name = "directive"

    @staticmethod
    def parse_options(m):
        return m

    @classmethod
    def create(cls):
        return cls()

    def render(self):
        return self.name


class Other:
    @staticmethod
    def parse_options(m):
        return m

    @classmethod
    def create(cls):
        return cls()


class Plugin:
    parser: Type[DirectiveParser]
    factory = DirectiveParser

    def __init__(self, maker: type[Other]):
        self.maker = maker

    def options(self, m):
        return self.parser.parse_options(m)

    def made(self):
        return self.factory.create()

    def other(self):
        return self.maker.create()


def build(kind: type[Other]):
    kind.create()
    return kind().create()
""",
    "md/plugins.py": """
from md.base import Plugin


class Image(Plugin):
    def parse(self, m):
        options = self.parser.parse_options(m)
        self.factory.create().render()
        return options
""",
    "md/manager.py": """
class ContactManager:
    def get(self, **kw):
        return kw

    def save(self, contact):
        return contact


class Contact:
    objects = ContactManager()
    stated: ContactManager

    def save(self):
        self.objects.save(self)
""",
    "tests/__init__.py": "",
    "tests/test_manager.py": """
from md.manager import Contact
from md import manager


def test_get():
    contact = Contact()
    assert Contact.objects.get(contact_id=1) is contact
    manager.Contact.objects.get(contact_id=2)
    Contact.stated.save(contact)
""",
}


def test_a_class_object_held_by_an_attribute_calls_the_class_methods(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", CLASS_OBJECTS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    # `parser: Type[DirectiveParser]`: `self.parser.parse_options(m)` is DirectiveParser's (in the class and a subclass)
    assert _certain(ix, "python md/base.py DirectiveParser.parse_options().") == {
        ("md/base.py", 38),
        ("md/plugins.py", 7),
    }
    # `factory = DirectiveParser` (the class body holds the class): `self.factory.create()` is its classmethod
    assert _certain(ix, "python md/base.py DirectiveParser.create().") == {("md/base.py", 41), ("md/plugins.py", 8)}
    # ... whose result (`cls()`) is a DirectiveParser
    assert _certain(ix, "python md/base.py DirectiveParser.render().") == {("md/plugins.py", 8)}
    # `self.maker = maker` with `maker: type[Other]`
    assert _certain(ix, "python md/base.py Other.create().") == {
        ("md/base.py", 44),
        ("md/base.py", 48),  # `kind: type[Other]`: `kind.create()`
        ("md/base.py", 49),  # ... and `kind()` is an Other
    }
    assert _certain(ix, "python md/base.py Other.parse_options().") == set()


def test_a_class_attribute_read_through_the_class(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", CLASS_OBJECTS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python md/manager.py ContactManager.get().") == {
        ("tests/test_manager.py", 8),
        ("tests/test_manager.py", 9),
    }
    assert _certain(ix, "python md/manager.py ContactManager.save().") == {
        ("md/manager.py", 15),
        ("tests/test_manager.py", 10),
    }


SHADOW = {
    "tests/__init__.py": "",
    "tests/test_shadow.py": """class Cached:
    def get_info(self, value):
        return value


class Base:
    def get_info(self, value):
        return value


def test_shadow():
    class Cached(Base):
        def get_info(self, value):
            return value + 1

    class CachedChild(Cached):
        def get_info(self, value):
            return super().get_info(value)

    made = Cached()
    made.get_info(1)
    CachedChild().get_info(2)
    return Cached


def test_module():
    class Child(Cached):
        def get_info(self, value):
            return super().get_info(value)

    Cached().get_info(3)
    return Child
""",
}


def test_a_class_a_function_defines_shadows_the_module_class_of_its_name(tmp_path: Path) -> None:
    # cachetools' `class CachedChild(Cached)` in a test method that defines its own `class Cached`: the base,
    # `super()` and `Cached()` there are the function's class, as Python's scoping (and a checker) reads them
    root = make_repo(tmp_path / "repo", SHADOW)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python tests/test_shadow.py test_shadow.Cached.get_info().") == {
        ("tests/test_shadow.py", 18),  # super() in CachedChild
        ("tests/test_shadow.py", 21),  # made = Cached() in the function
    }
    assert _certain(ix, "python tests/test_shadow.py Cached.get_info().") == {
        ("tests/test_shadow.py", 29),
        ("tests/test_shadow.py", 31),
    }
    assert _certain(ix, "python tests/test_shadow.py Base.get_info().") == set()


OVERLOADS = {
    "pkg/__init__.py": "",
    "pkg/items.py": """from __future__ import annotations

from datetime import date, datetime, time
from typing import Any, Sequence, TypeVar, overload


class Item:
    def as_string(self):
        return ""


class Bool(Item):
    pass


class Integer(Item):
    pass


class Float(Item):
    pass


class String(Item):
    pass


class DateTime(Item):
    def unwrap(self):
        return datetime.now()


class Date(Item):
    pass


class Time(Item):
    def replace(self, **kw) -> Time:
        return self


class Array(Item):
    def multiline(self, flag):
        return flag


ItemT = TypeVar("ItemT", bound=Item)


@overload
def item(value: bool) -> Bool: ...


@overload
def item(value: int) -> Integer: ...


@overload
def item(value: float) -> Float: ...


@overload
def item(value: str) -> String: ...


@overload
def item(value: datetime) -> DateTime: ...


@overload
def item(value: date) -> Date: ...


@overload
def item(value: time) -> Time: ...


@overload
def item(value: Sequence[Any]) -> Array: ...


@overload
def item(value: ItemT) -> ItemT: ...


@overload
def item(value: object) -> Item: ...


def item(value):
    return Item()


@overload
def guarded(value: Item) -> Array: ...


@overload
def guarded(value: time) -> Time: ...


def guarded(value):
    return Item()
""",
    "tests/__init__.py": "",
    "tests/test_items.py": """import datetime as dt
from datetime import datetime, time

from pkg.items import guarded, item


def test_items():
    i = item(time(12, 34, 56))
    i.as_string()
    item(datetime(2018, 7, 22)).as_string()
    value = datetime(2018, 11, 4)
    item(value).unwrap()
    item(dt.date(2020, 1, 1)).as_string()
    item(True).as_string()
    item(1).as_string()
    item(1.5).as_string()
    item("s").as_string()
    item(time(1, 2)).replace(hour=1).as_string()
    item([1, 2]).multiline(True)
    guarded(time(1, 2)).as_string()


def test_shadowed(time):
    item(time(1, 2)).as_string()
""",
}


def test_an_overload_is_picked_by_the_first_argument_class(tmp_path: Path) -> None:
    # tomlkit's `item(time(12, 34, 56)).as_string()`: a checker tries `item`'s overloads in order and takes the
    # first whose parameter accepts a `time` (not `bool`, `int`, `float`, `str`, `datetime`, `date`): `-> Time`.
    # A `datetime` is a `date` (the `datetime` overload comes first), a `bool` an `int` (`bool` first).
    root = make_repo(tmp_path / "repo", OVERLOADS)
    ix = CodeIndex(root, auto_update=False)
    ix.build(full=True)
    assert _certain(ix, "python pkg/items.py Item.as_string().") == {
        ("tests/test_items.py", 9),  # i = item(time(...)): Time
        ("tests/test_items.py", 10),  # item(datetime(...)): DateTime
        ("tests/test_items.py", 13),  # item(dt.date(...)): Date, through `import datetime as dt`
        ("tests/test_items.py", 14),  # item(True): Bool
        ("tests/test_items.py", 15),  # item(1): Integer
        ("tests/test_items.py", 16),  # item(1.5): Float
        ("tests/test_items.py", 17),  # item("s"): String
        ("tests/test_items.py", 18),  # Time.replace() -> Time
    }
    # a local bound to a constructed datetime
    assert _certain(ix, "python pkg/items.py DateTime.unwrap().") == {("tests/test_items.py", 12)}
    assert _certain(ix, "python pkg/items.py Time.replace().") == {("tests/test_items.py", 18)}
    # not decided: a list (no stated class here), an overload before the match whose parameter is a repository
    # class (`guarded(value: Item)`: a checker reads its bases, this does not), a parameter named `time`
    assert _certain(ix, "python pkg/items.py Array.multiline().") == set()
