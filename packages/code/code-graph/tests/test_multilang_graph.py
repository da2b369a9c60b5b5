"""Resolution across files in each language: imports resolve, bare names are marked, languages never mix."""

from __future__ import annotations

import pytest
from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo

FILES = {
    "web/src/utils/money.ts": "export function formatMoney(cents: number): string { return String(cents); }\n",
    "web/src/cart.ts": (
        'import { formatMoney } from "./utils/money";\n'
        "export function total(c: number): string { sharedHelper(); return formatMoney(c); }\n"
    ),
    "worker/go.mod": "module example.com/worker\n\ngo 1.22\n",
    "worker/internal/queue/q.go": "package queue\n\nfunc Pop() int { return 1 }\n",
    "worker/cmd/main.go": (
        'package main\n\nimport "example.com/worker/internal/queue"\n\nfunc main() { queue.Pop() }\n'
    ),
    "java/src/com/shop/util/Money.java": (
        "package com.shop.util;\npublic class Money { public int plus() { return 1; } }\n"
    ),
    "java/src/com/shop/Order.java": (
        "package com.shop;\nimport com.shop.util.Money;\npublic class Order { Money m() { return new Money(); } }\n"
    ),
    "rs/src/orders.rs": "pub fn total() -> u32 { 1 }\n",
    "rs/src/main.rs": "mod orders;\nuse crate::orders::total;\nfn main() { total(); }\n",
    "c/lib/queue.c": "int push(int x) { return x; }\n",
    "c/app.c": '#include "lib/queue.h"\nint main(void) { return push(1); }\n',
    "c/lib/queue.h": "int push(int x);\n",
    "py/helpers.py": "def sharedHelper():\n    return 1\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    root = make_repo(tmp_path_factory.mktemp("multi") / "repo", FILES)
    ix = CodeIndex(root)
    ix.build()
    return ix


def _callers(ix: CodeIndex, sid: str) -> set[tuple[str, str]]:
    return {(h.edge.src, h.edge.confidence) for h in ix.callers(sid)}


def test_typescript_import(index: CodeIndex) -> None:
    assert _callers(index, "typescript web/src/utils/money.ts formatMoney().") == {
        ("typescript web/src/cart.ts total().", "import-resolved")
    }


def test_go_package_import(index: CodeIndex) -> None:
    assert _callers(index, "go worker/internal/queue/q.go Pop().") == {
        ("go worker/cmd/main.go main().", "import-resolved")
    }
    deps = index.file_deps("worker/cmd/main.go")
    assert [(i.module, i.target) for i in deps.imports] == [
        ("example.com/worker/internal/queue", "worker/internal/queue/q.go")
    ]
    assert index.file_deps("worker/internal/queue/q.go").imported_by == ["worker/cmd/main.go"]


def test_java_import(index: CodeIndex) -> None:
    assert _callers(index, "java java/src/com/shop/util/Money.java Money#") == {
        ("java java/src/com/shop/Order.java Order.m().", "import-resolved")
    }


def test_rust_use(index: CodeIndex) -> None:
    assert _callers(index, "rust rs/src/orders.rs total().") == {("rust rs/src/main.rs main().", "import-resolved")}


def test_c_bare_name_is_name_only(index: CodeIndex) -> None:
    assert _callers(index, "c c/lib/queue.c push().") == {("c c/app.c main().", "name-only")}
    assert [i.target for i in index.file_deps("c/app.c").imports] == ["c/lib/queue.h"]


def test_no_edge_crosses_languages(index: CodeIndex) -> None:
    assert index.callers("python py/helpers.py sharedHelper().") == []
    callees = {h.edge.dst for h in index.callees("typescript web/src/cart.ts total().")}
    assert callees == {"typescript web/src/utils/money.ts formatMoney()."}


def test_status_counts_languages(index: CodeIndex) -> None:
    st = index.status()
    assert st.files_by_language == {"go": 2, "java": 2, "c": 3, "typescript": 2, "rust": 2, "python": 1}
    assert st.files == 12 and st.revision == st.indexed_revision and st.stale_files == []
