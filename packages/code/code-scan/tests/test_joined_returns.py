"""A function's `return`s making different classes, or a returned local assigned several classes (construct's
`macro = Transformed(...)` in a `try`, `macro = Restreamed(...)` in its `except`; issue 24 item 1, session 24):
the union row `A|B` the graph reads member by member. A local bound any other way too (a walrus, `for`, `with
... as`, `global`, a def, an unpacking), a parameter, or a return of no capitalised call gives no row. The
binding lines are read once per function (linear); the graph-level answers are code-graph's
tests/test_python_joined_returns.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

OTHER_BINDINGS = {
    "walrus": "if (x := c()):\n            pass",
    "loop": "for x in c:\n            pass",
    "with": "with c as x:\n            pass",
    "caught": "try:\n            pass\n        except ValueError as x:\n            pass",
    "nested": "def x():\n            pass",
    "imported": "import x",
    "augmented": "x += c",
    "unpacked": "x, y = c",
    "starred": "[*x] = c",
    "called": "x = c()",
    "klass": "class x:\n            pass",
}


def _results(src: str) -> dict[str, str]:
    out = extract(src.encode(), "mod.py", "python")
    return {owner.rsplit(" ", 1)[1]: expr for owner, name, expr in out.types if owner and name is None}


def _branches(name: str, stmt: str) -> str:
    return (
        f"def {name}(c):\n    if c:\n        x = A()\n    elif c > 1:\n        {stmt}\n"
        "    else:\n        x = B(c)\n    return x\n\n\n"
    )


def test_returns_and_a_returned_local_of_several_classes_are_their_union() -> None:
    src = (
        "def returns(c):\n    if c:\n        return B(c)\n    return A()\n\n\n"
        "def local(c):\n    try:\n        x = B(c.sizeof())\n    except ValueError:\n        x = A()\n"
        "    return x\n\n\n"
        "def unbound_on_a_path(c):\n    if c:\n        x = A()\n    elif c > 1:\n        pass\n"
        "    else:\n        x = B(c)\n    return x\n\n\n"
        "def same(c):\n    return A(1) if c else A(2)\n"
    )
    assert _results(src) == {"returns().": "A|B", "local().": "A|B", "unbound_on_a_path().": "A|B", "same().": "=A"}


def test_a_local_bound_otherwise_a_parameter_or_a_lower_case_call_gives_nothing() -> None:
    src = "".join(_branches(name, stmt) for name, stmt in OTHER_BINDINGS.items())
    src += "def glob(c):\n    global x\n    if c:\n        x = A()\n    else:\n        x = B()\n    return x\n\n\n"
    src += "def param(x):\n    if x:\n        x = A()\n    else:\n        x = B()\n    return x\n\n\n"
    src += "def lower(c):\n    if c:\n        return A()\n    return make(c)\n\n\n"
    src += "def dotted(c):\n    if c:\n        x = A()\n    else:\n        x = m.B()\n    return x\n"
    assert _results(src) == {}


def _best(n: int) -> float:
    one = "def f{i}(c):\n    if c:\n        x = A{i}()\n    else:\n        x = B{i}()\n    return x\n\n\n"
    src = "".join(one.format(i=i) for i in range(n))
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def _best_nested(n: int) -> float:
    """One function of `n` returned locals each bound twice: its text is read once, not once a return."""
    each = "    if c == {i}:\n        x{i} = A()\n    else:\n        x{i} = B()\n    if c:\n        return x{i}\n"
    src = "def f(c):\n" + "".join(each.format(i=i) for i in range(n))
    return best_cpu_s(lambda: extract(src.encode(), "mod.py", "python"))


def test_many_joined_functions_extract_linearly() -> None:
    assert _best(4_000) < 32 * _best(250)  # 16x the functions: linear ~16x, quadratic ~256x
    assert _best_nested(4_000) < 32 * _best_nested(250)
