"""A package's `__init__.py` binds each submodule it imports (issue 24 item 1, session 22): the rows code-scan
adds (an `Import` of the submodule, alias its name) for `import pkg.sub` and for the package written by its name
below the repository root (`src/humanize/__init__.py`: `from humanize.i18n import activate`); a name the
`__init__` binds otherwise gets none. The graph's side: code-graph's tests/test_python_submodule_attrs.py."""

from __future__ import annotations

from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract


def _bound(src: str, path: str) -> dict[str, str]:
    out = extract(src.encode(), path, "python")
    return {i.alias: i.module for i in out.imports if i.name is None and i.alias and "." not in i.alias}


def test_a_src_layout_package_importing_its_submodules_by_absolute_name() -> None:
    src = "from hz.i18n import activate\nimport hz.lists\nfrom .number import f\nfrom hz.time.sub import g\n"
    got = _bound(src, "src/hz/__init__.py")
    assert got == {"i18n": "hz.i18n", "lists": "hz.lists", "number": "src.hz.number", "time": "hz.time"}


def test_a_name_the_init_binds_otherwise_is_left() -> None:
    src = "from hz.i18n import activate\nimport hz.lists\ni18n = None\n\n\ndef lists():\n    pass\n"
    assert _bound(src, "src/hz/__init__.py") == {}


def test_an_import_in_a_def_or_class_body_binds_nothing() -> None:
    # email's `def message_from_string(s): from email.parser import Parser`: bound only once it runs
    src = "def f():\n    from hz.parser import P\n\n\nclass K:\n    import hz.lists\n\nimport hz.time\n"
    assert _bound(src, "src/hz/__init__.py") == {"time": "hz.time"}


def test_other_packages_and_plain_modules_bind_nothing() -> None:
    assert _bound("from other.i18n import activate\nimport json.decoder\n", "src/hz/__init__.py") == {}
    assert _bound("from hz.i18n import activate\n", "src/hz/mod.py") == {}


def _best(n: int) -> float:
    src = "".join(f"from pkg.sub{i} import f{i}\nimport pkg.mod{i}\n" for i in range(n))
    return best_cpu_s(lambda: extract(src.encode(), "a/b/c/pkg/__init__.py", "python"))


def test_many_submodule_imports_extract_linearly() -> None:
    assert _best(4_000) < 64 * _best(250)  # 16x the imports: linear is ~16x, quadratic ~256x
