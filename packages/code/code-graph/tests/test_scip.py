"""`cq export --scip`: the output parses with SCIP's own schema (scip.desc: the descriptor set protoc made
from sourcegraph/scip's scip.proto at e1e47bf, 2026-05-01), and its occurrences sit on the names."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctxops_code_graph import scip
from ctxops_code_graph.builder import IndexWriter
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from repo_fixtures import ORDERS_PY, make_repo

HERE = Path(__file__).parent


def _index_class() -> type:
    files = descriptor_pb2.FileDescriptorSet.FromString((HERE / "scip.desc").read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("scip.Index"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = make_repo(tmp_path_factory.mktemp("scip") / "shop", ORDERS_PY)
    IndexWriter(root).build()
    dest = root.parent / "index.scip"
    report = scip.export_scip(root, dest, version="test")
    assert report.documents == 4 and report.references > 0
    index = _index_class()()
    index.ParseFromString(dest.read_bytes())
    return root, index


def test_parses_with_the_scip_schema(exported: tuple[Path, object]) -> None:
    root, index = exported
    assert index.metadata.tool_info.name == "ctxops-cq"  # type: ignore[attr-defined]
    assert index.metadata.project_root == root.as_uri()  # type: ignore[attr-defined]
    paths = [d.relative_path for d in index.documents]  # type: ignore[attr-defined]
    assert paths == sorted(paths) and "shop/service.py" in paths
    for doc in index.documents:  # type: ignore[attr-defined]
        assert doc.position_encoding == 1 and doc.language == "Python"
        defined = {s.symbol for s in doc.symbols}
        for occ in doc.occurrences:
            assert len(occ.range) == 3 and occ.range[1] < occ.range[2]
            if occ.symbol_roles & 1:
                assert occ.symbol in defined


def test_occurrences_sit_on_the_names(exported: tuple[Path, object]) -> None:
    root, index = exported
    seen_method = seen_ref = False
    for doc in index.documents:  # type: ignore[attr-defined]
        lines = (root / doc.relative_path).read_text().split("\n")
        for occ in doc.occurrences:
            line, start, end = occ.range
            text = lines[line][start:end]
            last = occ.symbol.rstrip("().#/").rsplit("/", 1)[-1].rsplit("#", 1)[-1].rsplit(".", 1)[-1]
            assert text == last, (doc.relative_path, occ)
            seen_method |= "#" in occ.symbol and occ.symbol.endswith(").")
            seen_ref |= not occ.symbol_roles & 1
    assert seen_method and seen_ref
    service = next(d for d in index.documents if d.relative_path == "shop/service.py")  # type: ignore[attr-defined]
    assert any(
        o.symbol.endswith("`shop/orders.py`/OrderStateMachine#") and not o.symbol_roles & 1 for o in service.occurrences
    )


def test_wire_format_helpers() -> None:
    assert scip._varint(300) == b"\xac\x02"
    assert scip.escape_name("a b") == "`a b`" and scip.escape_name("ok_1") == "ok_1"
    assert scip.escape_name("x`y") == "`x``y`"
    assert scip.descriptor("C", "class") == "C#" and scip.descriptor("f", "function") == "f()."
    assert scip.descriptor("f", "method", "+1") == "f(+1)." and scip.descriptor("x", "variable", "+1") == "x."


def _parse_symbol(symbol: str) -> list[str]:
    """The descriptors of a global symbol, by scip.proto's grammar (fails on anything else)."""
    rest = symbol
    for _ in range(4):  # scheme, manager, package name, version: spaces escaped as double spaces
        i = 0
        while True:
            i = rest.index(" ", i)
            if rest[i : i + 2] == "  ":
                i += 2
                continue
            break
        assert rest[:i], symbol
        rest = rest[i + 1 :]
    out = []
    while rest:
        if rest[0] == "`":
            end = 1
            while True:
                end = rest.index("`", end)
                if rest[end : end + 2] == "``":
                    end += 2
                    continue
                break
            name, rest = rest[: end + 1], rest[end + 1 :]
        else:
            n = 0
            while n < len(rest) and (rest[n].isalnum() or rest[n] in "_+-$"):
                n += 1
            name, rest = rest[:n], rest[n:]
        assert name, symbol
        if rest.startswith("(+") and ")." in rest:  # a method's disambiguator
            n = rest.index(").") + 2
            out.append(name + rest[:n])
            rest = rest[n:]
            continue
        for suffix in ("().", "/", "#", ".", ":", "!"):
            if rest.startswith(suffix):
                out.append(name + suffix)
                rest = rest[len(suffix) :]
                break
        else:
            raise AssertionError(f"bad descriptor suffix in {symbol!r} at {rest!r}")
    return out


def test_lint_rules_scip_would_check(exported: tuple[Path, object]) -> None:
    """What `scip lint` checks, here (its CLI needs Go 1.25 and module downloads this machine cannot make):
    symbols parse by the grammar, each defined once with its information, references to defined symbols."""
    _root, index = exported
    informed: dict[str, str] = {}
    defined: set[str] = set()
    referenced: set[str] = set()
    for doc in index.documents:  # type: ignore[attr-defined]
        for info in doc.symbols:
            assert info.symbol not in informed, info.symbol
            informed[info.symbol] = doc.relative_path
            assert _parse_symbol(info.symbol)[0].startswith("`") and info.kind != 0
        ranges = [tuple(o.range) for o in doc.occurrences]
        assert ranges == sorted(ranges)
        for occ in doc.occurrences:
            assert _parse_symbol(occ.symbol)
            if occ.symbol_roles & 1:
                assert informed.get(occ.symbol) == doc.relative_path
                defined.add(occ.symbol)
            else:
                referenced.add(occ.symbol)
    assert referenced and referenced <= set(informed)
    assert _parse_symbol("cq . a  b . `x.py`/C#m().") == ["`x.py`/", "C#", "m()."]
