"""Each tree-sitter language on a small fixture: symbols, qualified names, signatures, docs, refs, imports."""

from __future__ import annotations

import pytest
from ctxops_code_scan.extract import extract
from ctxops_code_scan.languages import TREE_SITTER_LANGUAGES, language_for_path, ts_query


def _ids(src: str, path: str, lang: str) -> dict[str, tuple[str, int, str | None, str | None, str | None]]:
    out = extract(src.encode(), path, lang)
    assert not out.has_error
    return {s.id: (s.kind, s.line, s.signature, s.doc, s.parent) for s in out.symbols}


def _refs(src: str, path: str, lang: str) -> set[tuple[str, str, str | None]]:
    return {(r.symbol_name, r.role, r.qualifier) for r in extract(src.encode(), path, lang).references}


@pytest.mark.parametrize("spec", TREE_SITTER_LANGUAGES, ids=lambda s: s.name)
def test_every_query_compiles(spec: object) -> None:
    assert ts_query(spec.name).pattern_count > 5  # type: ignore[attr-defined]


def test_python() -> None:
    src = '''"""Module."""
from .base import Base as B
import os.path

LIMIT = 3
name: str = "x"


class Store(B):
    """Keeps things."""

    size: int = 0

    def put(self, key: str, value: "Item") -> None:
        self._check(key)
        os.path.join(key)

    @property
    def count(self) -> int:
        return helper()


def helper(*args, **kw) -> int:
    def inner():
        pass
    return 1
'''
    ids = _ids(src, "pkg/store.py", "python")
    assert ids == {
        "python pkg/store.py LIMIT.": ("constant", 5, None, None, None),
        "python pkg/store.py name.": ("variable", 6, "str", None, None),
        "python pkg/store.py Store#": ("class", 9, "(B)", "Keeps things.", None),
        "python pkg/store.py Store.size.": ("field", 12, "int", None, "python pkg/store.py Store#"),
        "python pkg/store.py Store.put().": (
            "method",
            14,
            '(self, key: str, value: "Item") -> None',
            None,
            "python pkg/store.py Store#",
        ),
        "python pkg/store.py Store.count().": ("method", 19, "(self) -> int", None, "python pkg/store.py Store#"),
        "python pkg/store.py helper().": ("function", 23, "(*args, **kw) -> int", None, None),
        "python pkg/store.py helper.inner().": ("function", 24, "()", None, "python pkg/store.py helper()."),
    }
    refs = _refs(src, "pkg/store.py", "python")
    assert {("B", "inherit", None), ("_check", "call", "self"), ("join", "call", "os.path")} <= refs
    assert {("helper", "call", None), ("property", "call", None), ("Base", "import", "pkg.base")} <= refs
    imports = extract(src.encode(), "pkg/store.py", "python").imports
    assert [(i.module, i.name, i.alias) for i in imports] == [("pkg.base", "Base", "B"), ("os.path", None, "os.path")]


def test_typescript_and_tsx() -> None:
    src = """import { Money as M } from "../utils/money";
import api from "./client";
/** A shape. */
export interface Shape { area(): number }
export type Id = string;
export class Box extends Base implements Shape {
  area(): number { return this.scale(2) }
}
export const total = (items: M[]): number => items.length;
function local(x: Id): void { new Box(); api.get(x); }
"""
    ids = _ids(src, "src/box.ts", "typescript")
    assert ids["typescript src/box.ts Shape#"] == ("interface", 4, None, "A shape.", None)
    assert ids["typescript src/box.ts Box.area()."][0:3] == ("method", 7, "(): number")
    assert ids["typescript src/box.ts total()."][0:3] == ("function", 9, "(items: M[]): number")
    assert ids["typescript src/box.ts Id#"][0] == "type"
    refs = _refs(src, "src/box.ts", "typescript")
    assert {("Base", "inherit", None), ("Shape", "inherit", None), ("scale", "call", "this")} <= refs
    assert {("Box", "call", None), ("get", "call", "api"), ("Id", "type", None)} <= refs
    imports = extract(src.encode(), "src/box.ts", "typescript").imports
    assert [(i.module, i.name, i.alias) for i in imports] == [
        ("utils/money", "Money", "M"),
        ("src/client", "default", "api"),
    ]
    tsx = "export function Badge(p: Props): JSX.Element { return <span>{label(p)}</span>; }\n"
    assert _ids(tsx, "ui/Badge.tsx", "tsx")["tsx ui/Badge.tsx Badge()."][0] == "function"
    assert ("label", "call", None) in _refs(tsx, "ui/Badge.tsx", "tsx")


def test_javascript() -> None:
    src = (
        "import { a } from './a.js';\n"
        "class C extends a.B { m(x) { return helper(x); } }\n"
        "const f = function (y) { return y; };\n"
    )
    ids = _ids(src, "lib/c.js", "javascript")
    assert set(ids) == {"javascript lib/c.js C#", "javascript lib/c.js C.m().", "javascript lib/c.js f()."}
    assert {("B", "inherit", "a"), ("helper", "call", None)} <= _refs(src, "lib/c.js", "javascript")
    assert extract(src.encode(), "lib/c.js", "javascript").imports[0].module == "lib/a"


def test_go() -> None:
    src = """package queue

import (
\tq "example.com/app/internal/store"
)

// Max bounds retries.
const Max = 3

// Consumer reads messages.
type Consumer struct {
\tstore *q.Store
}

type Handler interface {
\tHandle(m Message) error
}

// Run consumes until done.
func (c *Consumer) Run(limit int) (int, error) {
\tc.poll()
\treturn q.Save(limit), nil
}

func New() *Consumer { return &Consumer{} }
"""
    ids = _ids(src, "internal/queue/consumer.go", "go")
    p = "go internal/queue/consumer.go "
    assert ids[p + "Max."] == ("constant", 8, None, "Max bounds retries.", None)
    assert ids[p + "Consumer#"] == ("struct", 11, None, "Consumer reads messages.", None)
    assert ids[p + "Handler.Handle()."][0] == "method"
    assert ids[p + "Consumer.Run()."] == (
        "method",
        20,
        "(limit int) -> (int, error)",
        "Run consumes until done.",
        p + "Consumer#",
    )
    refs = _refs(src, "internal/queue/consumer.go", "go")
    assert {("poll", "call", "self"), ("Save", "call", "q"), ("Consumer", "type", None)} <= refs
    (imp,) = extract(src.encode(), "internal/queue/consumer.go", "go").imports
    assert (imp.module, imp.alias) == ("example.com/app/internal/store", "q")


def test_rust() -> None:
    src = """use crate::orders::{Order, state::State as S};

/// A queue of jobs.
/// More words.
pub struct Queue { items: Vec<Order> }

pub trait Runner { fn run(&self) -> bool; }

impl Queue {
    pub fn push(&mut self, o: Order) { self.grow(); helper(); S::init(); }
}

impl Runner for Queue { fn run(&self) -> bool { true } }

fn helper() {}
"""
    ids = _ids(src, "src/queue.rs", "rust")
    p = "rust src/queue.rs "
    assert ids[p + "Queue#"] == ("struct", 5, None, "A queue of jobs.", None)
    assert ids[p + "Queue.push()."] == ("method", 10, "(&mut self, o: Order)", None, p + "Queue#")
    assert ids[p + "Queue.run()."][4] == p + "Queue#"
    assert ids[p + "Runner.run()."][0] == "method"
    refs = _refs(src, "src/queue.rs", "rust")
    assert {("grow", "call", "self"), ("init", "call", "S"), ("Runner", "inherit", None)} <= refs
    imports = extract(src.encode(), "src/queue.rs", "rust").imports
    assert [(i.module, i.name, i.alias) for i in imports] == [
        ("crate::orders", "Order", "Order"),
        ("crate::orders::state", "State", "S"),
    ]


def test_java() -> None:
    src = """package com.shop;

import com.shop.util.Money;
import java.util.*;

/** An order. */
public class Order extends Base implements Comparable<Order> {
    public static final int MAX = 5;
    private Money total;

    /** Adds money. */
    public Money add(Money m) { check(m); return total.plus(m); }
}
"""
    ids = _ids(src, "src/com/shop/Order.java", "java")
    p = "java src/com/shop/Order.java "
    assert ids[p + "Order#"] == ("class", 7, None, "An order.", None)
    assert ids[p + "Order.MAX."][0] == "constant"
    assert ids[p + "Order.add()."] == ("method", 12, "(Money m) -> Money", "Adds money.", p + "Order#")
    refs = _refs(src, "src/com/shop/Order.java", "java")
    assert {("Base", "inherit", None), ("Comparable", "inherit", None), ("plus", "call", "total")} <= refs
    imports = extract(src.encode(), "src/com/shop/Order.java", "java").imports
    assert [(i.module, i.name) for i in imports] == [("com.shop.util", "Money"), ("java.util", "*")]


def test_c() -> None:
    src = """#include "queue.h"
#define MAX 10
/* A job. */
struct job { int id; };
typedef struct job job_t;
static int counter = 0;
/* Push a job. */
int push(struct job *j) { return helper(j); }
static char *helper(struct job *j) { return 0; }
"""
    ids = _ids(src, "src/queue.c", "c")
    p = "c src/queue.c "
    assert ids[p + "MAX!"][0] == "macro"
    assert ids[p + "job#"] == ("struct", 4, None, "A job.", None)
    assert ids[p + "push()."] == ("function", 8, "(struct job *j) -> int", "Push a job.", None)
    assert ids[p + "helper()."][0:2] == ("function", 9)
    assert ("helper", "call", None) in _refs(src, "src/queue.c", "c")
    (imp,) = extract(src.encode(), "src/queue.c", "c").imports
    assert imp.module == "src/queue.h"


def test_cpp() -> None:
    src = """#include "queue.hpp"
namespace shop {
class Queue : public Base {
 public:
  void push(int x);
};
void Queue::push(int x) { this->grow(); helper(x); }
template <typename T> T max_of(T a, T b) { return a; }
}
"""
    ids = _ids(src, "src/queue.cpp", "cpp")
    p = "cpp src/queue.cpp "
    assert ids[p + "shop.Queue#"][0] == "class"
    assert ids[p + "shop.Queue.push()."][0:2] == ("method", 5)
    assert ids[p + "shop.Queue.push(+1)."] == ("method", 7, "(int x) -> void", None, p + "shop.Queue#")
    assert ids[p + "shop.max_of()."][0] == "function"
    assert {("Base", "inherit", None), ("grow", "call", "this")} <= _refs(src, "src/queue.cpp", "cpp")


def test_language_detection() -> None:
    assert language_for_path("a/b.PY").name == "python"  # type: ignore[union-attr]
    assert language_for_path("x.tsx").name == "tsx"  # type: ignore[union-attr]
    assert language_for_path("x.rb").grammar is None  # type: ignore[union-attr]
    assert language_for_path("README.md") is None


def test_ids_are_stable_when_unrelated_lines_move() -> None:
    before = "def a():\n    pass\n\ndef b():\n    pass\n"
    after = "import os\n\n\ndef a():\n    return 1\n\n# comment\n\ndef b():\n    pass\n"
    ids_before = [s.id for s in extract(before.encode(), "m.py", "python").symbols]
    ids_after = [s.id for s in extract(after.encode(), "m.py", "python").symbols]
    assert ids_before == ids_after == ["python m.py a().", "python m.py b()."]


def test_duplicate_definitions_get_deterministic_ids() -> None:
    src = "class P:\n    @property\n    def x(self): ...\n    @x.setter\n    def x(self, v): ...\n    x = 3\n"
    ids = [s.id for s in extract(src.encode(), "p.py", "python").symbols]
    assert ids == ["python p.py P#", "python p.py P.x().", "python p.py P.x(+1).", "python p.py P.x(+2)."]
    assert len(set(ids)) == len(ids)
