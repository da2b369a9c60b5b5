"""How each edge was resolved, and the resolutions added for issue 9: re-exports, submodules,
constructors, return annotations, `with ... as`, values, module-qualified names, absolute imports,
Go import paths (go.mod, the standard library) and the definitions Go and TypeScript hid."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo

PY = {
    "pkg/__init__.py": "from .helpers import flash\nfrom . import helpers as h\n",
    "pkg/json/__init__.py": "def loads(s):\n    return s\n",
    "pkg/helpers.py": """import json


class Client:
    def __init__(self):
        self.n = 0

    def get(self, url):
        return self.fetch(url)

    def fetch(self, url):
        return url


def make() -> Client:
    return Client()


def flash(msg):
    return json.loads(msg)
""",
    "os_like/__init__.py": "",
    "os_like/osmod.py": "import os_like.posixish as path\n",
    "os_like/posixish.py": "def join(a, b):\n    return a + b\n",
    "app.py": """import pkg
from pkg import flash
from pkg.helpers import make, Client
import urllib.request


def main():
    flash("x")
    pkg.flash("y")
    c = make()
    c.get("u")
    with Client() as d:
        d.fetch("v")
    register(cb=flash)
    other.get(2)


shared = Client()
Client().fetch(3)


def later(app):
    shared.get(4)
    app.get(5)


def shadow(shared):
    shared.get(6)


def rebinds():
    shared = 2
    shared.get(7)
""",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    root = make_repo(tmp_path_factory.mktemp("res") / "repo", PY)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    return idx


def _sites(index: CodeIndex, symbol_id: str, certain_only: bool = True) -> dict[tuple[str, int], str]:
    hops = index.callers(symbol_id, 1, ("call", "import", "read"), certain_only=certain_only)
    return {(h.edge.path or "", h.edge.line or 0): h.edge.resolution or "" for h in hops}


def test_every_edge_says_how_it_was_resolved(index: CodeIndex) -> None:
    flash = "python pkg/helpers.py flash()."
    assert _sites(index, flash) == {
        ("app.py", 2): "import",  # from pkg import flash: the re-export in pkg/__init__.py followed
        ("app.py", 8): "import",
        ("app.py", 9): "module-qualified",  # pkg.flash(...)
        ("app.py", 14): "import",  # register(cb=flash): a use as a value
        ("pkg/__init__.py", 1): "import",
    }
    get = "python pkg/helpers.py Client.get()."
    # c = make() -> Client; a module-level instance where nothing hides it, not where a parameter or a
    # local assignment of the same name does (app.get(5), shared.get(6), shared.get(7))
    assert _sites(index, get) == {("app.py", 11): "return-type", ("app.py", 23): "typed-receiver"}
    assert ("app.py", 15) in _sites(index, get, certain_only=False)  # other.get(2): a name-only guess
    fetch = "python pkg/helpers.py Client.fetch()."
    assert _sites(index, fetch) == {
        ("pkg/helpers.py", 9): "self",
        ("app.py", 13): "typed-receiver",  # with Client() as d
        ("app.py", 19): "typed-receiver",  # Client().fetch(3)
    }
    init = "python pkg/helpers.py Client.__init__()."
    assert set(_sites(index, init).values()) == {"constructor"}
    assert len(_sites(index, init)) == 4


def test_a_stdlib_import_never_lands_in_a_same_named_subpackage(index: CodeIndex) -> None:
    assert _sites(index, "python pkg/json/__init__.py loads().", certain_only=False) == {}
    deps = index.file_deps("pkg/helpers.py")
    assert [(i.module, i.target) for i in deps.imports] == [("json", None)]
    # ... and the name-only candidates skip a call through an import that resolves outside the repository.
    assert index.uncertain_references("loads") == []
    # `import urllib.request` is a use of a module, not of any function named `request`.
    assert index.uncertain_references("request", ("call", "import")) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pkg.json.loads", "python pkg/json/__init__.py loads()."),
        ("pkg.flash", "python pkg/helpers.py flash()."),  # re-exported by pkg/__init__.py
        ("pkg.h.make", "python pkg/helpers.py make()."),  # `from . import helpers as h`
        ("pkg.helpers.Client.get", "python pkg/helpers.py Client.get()."),
        ("os_like.osmod.path.join", "python os_like/posixish.py join()."),  # `import ... as path`
    ],
)
def test_module_qualified_names(index: CodeIndex, name: str, expected: str) -> None:
    assert [s.id for s in index.definitions(name)] == [expected]


def test_module_qualified_misses_stay_empty(index: CodeIndex) -> None:
    assert index.definitions("pkg.nothing") == []
    assert index.definitions("nowhere.loads") == []


GO = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "main.go": 'package main\n\nimport (\n\t"context"\n\t"errors"\n\t"example.com/app/util"\n)\n\n'
    "var (\n\tone = 1\n\ttwo, three int\n)\n\nfunc main() {\n\tutil.Do(context.Background())\n"
    '\t_ = errors.New("x")\n}\n',
    "util/util.go": "package util\n\nfunc Do(x any) {}\n\ntype W struct{}\n\nfunc (w W) Run() {}\n",
    "shapes/a.go": 'package shapes\n\nimport "example.com/app/util"\n\ntype T struct{}\n\n'
    "func f(p *T) {\n\tx := &T{}\n\tx.M()\n\tvar y T\n\ty.M()\n\tp.N()\n\tw := util.W{}\n\tw.Run()\n}\n",
    "shapes/b.go": "package shapes\n\nfunc (me *T) M() { me.N() }\n\nfunc (T) N() {}\n",
    # Look-alikes of standard-library packages (as /usr/share/gocode holds them side by side).
    "third/golang.org/x/net/context/context.go": "package context\n\nfunc Background() int { return 0 }\n",
    "third/github.com/pkg/errors/errors.go": "package errors\n\nfunc New(s string) error { return nil }\n",
    "web/color.ts": "export enum Color { Red, Green = 2 }\n",
}


def test_go_imports_and_definitions(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "go", GO)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    deps = {i.module: i.target for i in idx.file_deps("main.go").imports}
    assert deps == {"context": None, "errors": None, "example.com/app/util": "util/util.go"}
    assert {s.name for s in idx.symbols_in_file("main.go") if s.kind == "variable"} >= {"one", "two", "three"}
    do = idx.callers("go util/util.go Do().", 1, certain_only=True)
    assert [(h.edge.path, h.edge.resolution) for h in do] == [("main.go", "module-qualified")]
    assert idx.callers("go third/golang.org/x/net/context/context.go Background().", 1, certain_only=True) == []
    assert [s.qualname for s in idx.definitions("Color.Green")] == ["Color.Green"]

    def sites(symbol_id: str) -> set[tuple[str | None, int | None, str | None]]:
        return {(h.edge.path, h.edge.line, h.edge.resolution) for h in idx.callers(symbol_id, 1, certain_only=True)}

    assert sites("go shapes/b.go T.M().") == {
        ("shapes/a.go", 9, "typed-receiver"),
        ("shapes/a.go", 11, "typed-receiver"),
    }
    assert sites("go shapes/b.go T.N().") == {("shapes/a.go", 12, "typed-receiver"), ("shapes/b.go", 3, "self")}
    assert sites("go util/util.go W.Run().") == {("shapes/a.go", 14, "typed-receiver")}
    idx.close()


def test_go_imports_never_reach_test_files_or_testdata(tmp_path: Path) -> None:
    files = {
        **GO,
        # a package's tests (internal and external) and its testdata: never part of what `import` names
        "util/util_test.go": "package util\n\nfunc Do(x any) {}\n\nfunc helper() {}\n",
        "util/x_test.go": "package util_test\n\nfunc Example() {}\n",
        "util/testdata/fake.go": "package fake\n\nfunc Do(x any) {}\n",
        "shapes/t_test.go": 'package shapes\n\nimport "example.com/app/util"\n\nfunc g() { util.Do(1) }\n',
    }
    root = make_repo(tmp_path / "gotests", files)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    targets = {(i.module, i.target) for i in idx.file_deps("main.go").imports}
    assert ("example.com/app/util", "util/util.go") in targets
    assert not {t for _m, t in targets if t and (t.endswith("_test.go") or "/testdata/" in t)}
    # A test file may import the package; its call still reaches the package's own definition.
    do = idx.callers("go util/util.go Do().", 1, certain_only=True)
    assert {h.edge.path for h in do} == {"main.go", "shapes/t_test.go"}
    assert idx.callers("go util/util_test.go Do().", 1, certain_only=True) == []
    idx.close()


def test_an_import_inside_a_function_binds_the_name_there(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "localimport",
        {
            "app/__init__.py": "",
            "app/core.py": "def main(args=None):\n    return 0\n",
            "app/__main__.py": "def main():\n    from app.core import main\n    return main()\n\n\n"
            "def again():\n    return main()\n\n\nif __name__ == '__main__':\n    main()\n",
        },
    )
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)

    def sites(symbol_id: str) -> set[tuple[str | None, int | None, str | None]]:
        return {(h.edge.path, h.edge.line, h.edge.resolution) for h in idx.callers(symbol_id, 1, certain_only=True)}

    # Line 3 is inside the function that imported `main`: app.core's. Lines 7 and 11 see the module's own.
    assert sites("python app/core.py main().") == {("app/__main__.py", 3, "import")}
    own = {("app/__main__.py", 7, "local"), ("app/__main__.py", 11, "local")}
    assert sites("python app/__main__.py main().") == own
    idx.close()


def test_classes_defined_in_a_function_reach_their_bases(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "nested",
        {
            "v.py": "class View:\n    @classmethod\n    def as_view(cls, n):\n        return n\n",
            "t.py": "from v import View\n\n\ndef test_a():\n    class Index(View):\n        pass\n\n"
            "    Index.as_view('i')\n\n\ndef test_b():\n    class Index(View):\n        def as_view(self, n):\n"
            "            return 2\n\n    Index.as_view('j')\n",
        },
    )
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    # test_a's Index inherits as_view; test_b's Index (same name, another function) overrides it.
    assert [(h.edge.path, h.edge.line) for h in idx.callers("python v.py View.as_view().", certain_only=True)] == [
        ("t.py", 8)
    ]
    own = idx.callers("python t.py test_b.Index.as_view().", certain_only=True)
    assert [(h.edge.path, h.edge.line, h.edge.resolution) for h in own] == [("t.py", 16, "local")]
    idx.close()


def test_a_base_outside_the_repository_listed_first_may_define_the_member(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "mro",
        {
            "m.py": "import unittest\nfrom typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\n"
            "class Proto:\n    def check(self, a):\n        return a\n\n\n"
            "class Mixin(Proto):\n    def go(self):\n        return self.check(1)\n\n\n"
            "class First(unittest.TestCase, Mixin):\n    def test(self):\n        self.check(2)\n\n\n"
            "class Last(Mixin, unittest.TestCase):\n    def test(self):\n        self.check(3)\n\n\n"
            "class Typed(Generic[T], Mixin):\n    def test(self):\n        self.check(4)\n",
        },
    )
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    certain = {h.edge.line for h in idx.callers("python m.py Proto.check().", certain_only=True)}
    every = {h.edge.line for h in idx.callers("python m.py Proto.check().", certain_only=False)}
    # First's MRO reaches TestCase (outside the repository) before Mixin: its call is only possible.
    assert certain == {14, 24, 29}
    assert every == {14, 19, 24, 29}
    idx.close()


def test_a_reassigned_parameter_has_no_single_type(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "reassigned",
        {
            "k.py": "class K:\n    def go(self):\n        return 1\n",
            "t.py": "from k import K\n\n\ndef f(app):\n    app.go()\n    app = K()\n    app.go()\n\n\n"
            "def g():\n    app = K()\n    app.go()\n",
        },
    )
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    sites = {(h.edge.path, h.edge.line) for h in idx.callers("python k.py K.go().", certain_only=True)}
    # in f, `app` is a parameter first: its first use is not certain; the second is typed by the assignment
    # that reaches it (`app = K()` just before), as a checker's flow typing does (session 12)
    assert sites == {("t.py", 7), ("t.py", 12)}
    idx.close()


def test_typescript_bare_specifiers_through_tsconfig_and_package_json(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "ts",
        {
            "app/tsconfig.json": '{\n  // comments and trailing commas, as tsc allows\n  "compilerOptions": {\n'
            '    "baseUrl": "./src",\n    "paths": { "@lib/*": ["lib/*"], },\n  },\n}\n',
            "app/src/lib/helper.ts": "export function helper(): number { return 1; }\n",
            "app/src/direct.ts": "export function direct(): number { return 2; }\n",
            "packages/util/package.json": '{"name": "@acme/util", "exports": {".": "./src/index.ts",'
            ' "./strings": {"import": "./src/strings.ts"}}}\n',
            "packages/util/src/index.ts": "export function util(): number { return 3; }\n",
            "packages/util/src/strings.ts": "export function upper(s: string): string { return s; }\n",
            "app/src/main.ts": "import { helper } from '@lib/helper';\nimport { direct } from 'direct';\n"
            "import { util } from '@acme/util';\nimport { upper } from '@acme/util/strings';\n"
            "import { map } from 'rxjs';\n",
        },
    )
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    assert {i.module: i.target for i in idx.file_deps("app/src/main.ts").imports} == {
        "@lib/helper": "app/src/lib/helper.ts",  # paths
        "direct": "app/src/direct.ts",  # baseUrl
        "@acme/util": "packages/util/src/index.ts",  # package.json exports "."
        "@acme/util/strings": "packages/util/src/strings.ts",  # exports "./strings" (import condition)
        "rxjs": None,  # not in the repository: external
    }
    idx.close()


GO_EMBEDDED = {
    "go.mod": "module example.com/zoo\n\ngo 1.22\n",
    "zoo/types.go": "package zoo\n\ntype Animal interface {\n\tName() string\n}\n\n"
    "type Walker interface {\n\tAnimal\n\tWalk()\n}\n\ntype Base struct{}\n\nfunc (b *Base) Hello() {}\n\n"
    "type Dog struct {\n\t*Base\n\tage int\n}\n",
    "zoo/use.go": "package zoo\n\nfunc (d *Dog) Bark() { d.Hello() }\n\n"
    "func use(a Animal, w Walker, d *Dog) {\n\ta.Name()\n\tw.Name()\n\tw.Walk()\n\td.Hello()\n"
    "\tx := Dog{}\n\tx.Hello()\n}\n",
}


def test_go_interface_calls_and_promoted_methods(tmp_path: Path) -> None:
    """go/types' view: a call on an interface-typed receiver calls the interface's method (not each
    implementation); a method of an embedded struct or interface is promoted to the outer type."""
    root = make_repo(tmp_path / "zoo", GO_EMBEDDED)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)

    def sites(symbol_id: str) -> set[tuple[str | None, int | None, str | None]]:
        return {(h.edge.path, h.edge.line, h.edge.resolution) for h in idx.callers(symbol_id, 1, certain_only=True)}

    assert sites("go zoo/types.go Animal.Name().") == {
        ("zoo/use.go", 6, "typed-receiver"),
        ("zoo/use.go", 7, "typed-receiver"),  # Walker embeds Animal: found up the typed receiver's embeddings
    }
    assert sites("go zoo/types.go Walker.Walk().") == {("zoo/use.go", 8, "typed-receiver")}
    assert sites("go zoo/types.go Base.Hello().") == {
        ("zoo/use.go", 3, "inheritance"),  # the receiver of Dog's own method: promoted through *Base
        ("zoo/use.go", 9, "typed-receiver"),  # d *Dog, then up its embeddings
        ("zoo/use.go", 11, "typed-receiver"),
    }
    idx.close()


GO_RESULTS = {
    "go.mod": "module example.com/flags\n\ngo 1.22\n",
    "flag/flag.go": "package flag\n\nvar CommandLine = NewFlagSet()\n\ntype FlagSet struct{}\n\n"
    "func NewFlagSet() *FlagSet { return &FlagSet{} }\n",
    "flag/int.go": "package flag\n\nfunc (f *FlagSet) IntP() {}\n\nfunc IntP() { CommandLine.IntP() }\n\n"
    "type iterT struct{}\n\nfunc iter() (iterT, error) { return iterT{}, nil }\n\nfunc (i iterT) next() {}\n\n"
    "func use(xs []int) {\n\tx, err := iter()\n\t_ = err\n\tx.next()\n\titer2().next()\n"
    "\tfor _, CommandLine := range xs {\n\t\tCommandLine.IntP()\n\t}\n}\n\nfunc iter2() *iterT { return nil }\n",
}


def test_go_receivers_through_function_results(tmp_path: Path) -> None:
    """`x, err := f()` and `f().M()` through f's stated result; a package-level `var v = New()` used in
    another file of the package; a range variable hides the package-level name."""
    root = make_repo(tmp_path / "flags", GO_RESULTS)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)

    def sites(symbol_id: str) -> set[tuple[str | None, int | None, str | None]]:
        return {(h.edge.path, h.edge.line, h.edge.resolution) for h in idx.callers(symbol_id, 1, certain_only=True)}

    assert sites("go flag/int.go FlagSet.IntP().") == {
        ("flag/int.go", 5, "return-type")
    }  # var CommandLine = NewFlagSet()
    assert sites("go flag/int.go iterT.next().") == {
        ("flag/int.go", 16, "return-type"),
        ("flag/int.go", 17, "return-type"),
    }
    idx.close()


TS_CHAINS = {
    "web/obs.ts": "export class Observable {\n  pipe(): Observable {\n    return this;\n  }\n"
    "  self(): this {\n    return this;\n  }\n  subscribe(): void {}\n}\n",
    "web/use.ts": "import { Observable } from './obs';\n\nexport function f(o: Observable) {\n"
    "  o.pipe().subscribe();\n  o.self().subscribe();\n  o.pipe;\n}\n",
}


def test_typescript_receivers_through_method_results(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "ts", TS_CHAINS)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    hops = idx.callers("typescript web/obs.ts Observable.subscribe().", 1, certain_only=True)
    assert {(h.edge.path, h.edge.line, h.edge.resolution) for h in hops} == {
        ("web/use.ts", 4, "return-type"),  # pipe(): Observable
        ("web/use.ts", 5, "return-type"),  # self(): this
    }
    idx.close()
