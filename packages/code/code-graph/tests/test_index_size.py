"""The index at most 2x its source (issue 24 item 5): the snapshot keeps no index its queries do not use,
and the text keys its references repeat most are the smallest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ctxops_code_graph import CodeIndex
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import ORDERS_PY, make_repo


def _snapshot(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(IndexLayout(root.resolve()).current_lookup())  # type: ignore[arg-type]


def test_the_snapshot_has_no_index_on_parents_or_the_file_graph(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", ORDERS_PY)
    IndexWriter(root).build()
    con = _snapshot(root)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert not indexes & {"symbols_parent", "file_edges_src", "file_edges_dst"}
    assert {"symbols_name", "refs_name", "edges_dst"} <= indexes
    assert con.execute("SELECT count(*) FROM file_edges").fetchone()[0] > 0
    con.close()
    # A deleted file's file-graph rows still go with it (one scan, no index).
    ix = CodeIndex(root)
    before = {s.id for s in ix.all_symbols()}
    (root / "shop" / "orders.py").unlink()
    ix.refresh()
    assert {s.id for s in ix.all_symbols()} < before
    con = _snapshot(root)
    dangling = con.execute(
        "SELECT count(*) FROM file_edges e WHERE e.src_fk NOT IN (SELECT fk FROM files)"
        " OR e.dst_fk NOT IN (SELECT fk FROM files)"
    ).fetchone()[0]
    assert dangling == 0
    con.close()


def test_the_commonest_strings_take_the_one_byte_keys(tmp_path: Path) -> None:
    # 300 names that sort before every role ("call", "read", ...), each used once; `hot` used 200 times.
    defs = "".join(f"def a{i:03d}():\n    return hot()\n\n" for i in range(300))
    calls = "".join(f"    a{i:03d}()\n" for i in range(300))
    source = "def hot():\n    return 1\n\n" + defs + "def main():\n" + calls
    root = make_repo(tmp_path / "many", {"many.py": source})
    IndexWriter(root).build()
    con = _snapshot(root)
    roles = con.execute("SELECT DISTINCT role_sid FROM ref_rows").fetchall()
    assert roles and all(sid < 128 for (sid,) in roles)  # SQLite keeps a key below 128 in one byte
    hot = con.execute("SELECT sid FROM strings WHERE text = 'hot'").fetchone()[0]
    assert hot < 128
    # ... and the answers read through the keys are unchanged.
    ix = CodeIndex(root)
    assert len(ix.callers("python many.py hot().")) == 300
    assert len(ix.references("a150")) == 1


def test_a_symbol_s_kind_language_and_qualname_are_stored_as_keys_and_read_as_text() -> None:
    from ctxops_code_graph.reader import ID_WHERE, SYMBOL_SELECT, id_params
    from ctxops_code_graph.schema import SQLITE_DDL, stored_symbol_sql

    con = sqlite3.connect(":memory:")
    for statement in SQLITE_DDL:
        con.execute(statement)
    con.execute("INSERT INTO files (fk, path, lang) VALUES (1, 'a b.py', 'python')")
    rows = [  # name, qualname, kind, lang: known ones, a kind and a language outside the lists, a NULL kind
        ("f", "f", "function", "python"),
        ("m", "C.m", "method", "python"),
        ("C", "C", "class", "python"),
        ("x", "C.x", "property", "zig"),
        ("0", "0", None, "go"),
        ("M", "M", "module", "typescript"),
    ]
    con.executemany(
        "INSERT INTO symbol_rows VALUES (NULL, NULL, ?1, "
        + stored_symbol_sql("?1", "?2", "?3", "?4")
        + ", 1, 1, 2, NULL, NULL, NULL, 1)",
        rows,
    )
    stored = con.execute("SELECT typeof(qual_key), typeof(kind_key), typeof(lang_key) FROM symbol_rows").fetchall()
    assert stored[0] == ("integer", "integer", "integer")
    assert stored[3] == ("text", "text", "text")  # kept as they are
    read = con.execute("SELECT name, qualname, kind, lang FROM symbols ORDER BY sk").fetchall()
    assert read == rows
    ids = [r[0] for r in con.execute("SELECT id FROM symbols ORDER BY sk")]
    assert ids == [
        "python `a b.py` f().",
        "python `a b.py` C.m().",
        "python `a b.py` C#",
        "zig `a b.py` C.x.",
        "go `a b.py` 0.",
        "typescript `a b.py` M/",
    ]
    assert [r[0] for r in con.execute(f"{SYMBOL_SELECT} ORDER BY s.sk")] == ids
    for sid in ids:
        assert con.execute(f"SELECT count(*) FROM symbol_rows s WHERE {ID_WHERE}", id_params(sid)).fetchone() == (1,)


def test_import_modules_and_file_edge_kinds_are_stored_as_keys_and_read_as_text(tmp_path: Path) -> None:
    # Go's imports of a package are a row per file of it, each repeating the module's path: the snapshot
    # keeps the module once, in `strings`, and a file edge's kind as a small key (store 11).
    files = {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "def helper():\n    return 1\n",
        "app.py": "import os\nfrom pkg import helpers\nfrom pkg.helpers import helper\n\n"
        "def main():\n    helper()\n    return os.getcwd()\n",
    }
    root = make_repo(tmp_path / "app", files)
    IndexWriter(root).build()
    con = _snapshot(root)
    assert {r[0] for r in con.execute("SELECT typeof(module_sid) FROM import_rows")} == {"integer"}
    assert {"os", "pkg", "pkg.helpers"} <= {r[0] for r in con.execute("SELECT module FROM imports")}
    kinds = con.execute("SELECT DISTINCT typeof(kind_key), kind FROM file_edges").fetchall()
    assert ("integer", "import") in kinds and all(t == "integer" for t, _ in kinds)
    con.close()
    ix = CodeIndex(root)
    deps = ix.file_deps("app.py")
    assert ("pkg.helpers", "pkg/helpers.py") in {(i.module, i.target) for i in deps.imports}
    assert ix.file_deps("pkg/helpers.py").imported_by == ["app.py"]
    # An update adds a module whose text is already a reference's name (`helper`), and another file's.
    (root / "app.py").write_text("import helper\nimport json\n" + files["app.py"])
    (root / "helper.py").write_text("import pkg.helpers\n")
    ix.refresh()
    con = _snapshot(root)
    modules = [
        r[0] for r in con.execute("SELECT module FROM imports i JOIN files f ON f.fk = i.fk WHERE f.path = 'app.py'")
    ]
    assert {"helper", "json", "os", "pkg.helpers"} <= set(modules)
    assert con.execute("SELECT count(*) FROM strings WHERE text = 'helper'").fetchone()[0] == 1
    assert ("import",) in con.execute("SELECT kind FROM file_edges").fetchall()
    con.close()
    assert ("helper", "helper.py") in {(i.module, i.target) for i in CodeIndex(root).file_deps("app.py").imports}
