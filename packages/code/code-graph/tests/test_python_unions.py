"""Receivers a checker types by joining two arms (issue 24 item 1, session 17): `p or K` / `p or K(...)`
where the parameter states `type[K] | None` / `K | None` is K's class object / a K; a conditional expression
whose arms give one class (`Field(f) if not isinstance(f, Field) else f`, `A(x) if c else A(y)`, `A() if c
else None`) is that class. Arms of two classes give nothing. pypika's shape, in two files. Real files, a real
git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import certain_callers as _certain
from repo_fixtures import indexed

FILES = {
    "sql/__init__.py": "",
    "sql/terms.py": """from __future__ import annotations


class Term:
    def get_sql(self) -> str:
        return "term"


class Field(Term):
    def __init__(self, name):
        self.name = name


class Other(Term):
    def get_sql(self) -> str:
        return "other"


class Query:
    @classmethod
    def update(cls, table) -> Query:
        return cls()
""",
    "sql/queries.py": """from __future__ import annotations

from sql.terms import Field, Other, Query


class Table:
    def __init__(self, name: str, query_cls: type[Query] | None = None, term: Field | None = None) -> None:
        self._query_cls = query_cls or Query
        self._term = term or Field(name)
        self._plain = query_cls

    def update(self):
        return self._query_cls.update(self)

    def sql(self):
        return self._term.get_sql()


class Values:
    def __init__(self, field: str | Field) -> None:
        self.field = Field(field) if not isinstance(field, Field) else field

    def sql(self):
        return self.field.get_sql()


def pick(flag, name):
    same = Field(name) if flag else Field("x")
    same.get_sql()
    maybe = Field(name) if flag else None
    maybe.get_sql()
    mixed = Field(name) if flag else Other()
    mixed.get_sql()
    narrowed = name if isinstance(name, Field) else Field(name)
    narrowed.get_sql()
    wrong = Field(name) if isinstance(name, Field) else name
    wrong.get_sql()
""",
}


def _index(tmp_path: Path) -> CodeIndex:
    return indexed(tmp_path / "repo", FILES)


def test_a_parameter_or_a_class_is_the_class(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    # `self._query_cls = query_cls or Query` with `query_cls: type[Query] | None`: the class object
    assert ("sql/queries.py", 13) in _certain(ix, "python sql/terms.py Query.update().")
    # `self._term = term or Field(name)` with `term: Field | None`: a Field (Term's get_sql)
    assert ("sql/queries.py", 16) in _certain(ix, "python sql/terms.py Term.get_sql().")


def test_a_conditional_whose_arms_give_one_class_is_that_class(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    term = _certain(ix, "python sql/terms.py Term.get_sql().")
    assert ("sql/queries.py", 24) in term  # `Field(field) if not isinstance(field, Field) else field`
    assert ("sql/queries.py", 29) in term  # `Field(name) if flag else Field("x")`
    assert ("sql/queries.py", 31) in term  # `Field(name) if flag else None`: the Optional's other arm
    assert ("sql/queries.py", 35) in term  # `name if isinstance(name, Field) else Field(name)`


def test_arms_of_two_classes_give_nothing(tmp_path: Path) -> None:
    ix = _index(tmp_path)
    term = _certain(ix, "python sql/terms.py Term.get_sql().")
    other = _certain(ix, "python sql/terms.py Other.get_sql().")
    assert ("sql/queries.py", 33) not in term | other  # `Field(name) if flag else Other()`
    # `Field(name) if isinstance(name, Field) else name`: the narrowed name is in the other arm, `name` unknown
    assert ("sql/queries.py", 37) not in term
