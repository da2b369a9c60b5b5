"""`cq index --export/--import`: one archive reused by another clone, then updated to its working tree; a
hostile archive is refused before anything is installed."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import sqlite3
import subprocess
import tarfile
from pathlib import Path

import duckdb
import pytest
from ctxops_code_graph import CodeIndex, portable
from ctxops_code_graph.builder import IndexWriter
from ctxops_code_graph.layout import IndexLayout
from repo_fixtures import ORDERS_PY, git, make_repo

STORE_FILES = "store/files.parquet"  # one table of the build store, as the archive carries it


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """A repository indexed and exported; returns (repository, archive)."""
    root = make_repo(tmp_path / "origin", ORDERS_PY)
    IndexWriter(root).build()
    archive = tmp_path / "index.tgz"
    portable.export_index(root, archive)
    return root, archive


def _clone(src: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(src), str(dest)], check=True)
    return dest


def _members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]


def _write(archive: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> None:
    with tarfile.open(archive, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)


def _info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _repack(archive: Path, dest: Path, **replace: bytes) -> None:
    """The archive with some members replaced, the manifest's digests made to match (a careful attacker)."""
    members = _members(archive)
    members.update(replace)
    manifest = json.loads(members[portable.MANIFEST])
    for name in portable.MEMBERS[1:]:
        manifest["members"][name] = {"sha256": hashlib.sha256(members[name]).hexdigest(), "size": len(members[name])}
    members[portable.MANIFEST] = json.dumps(manifest).encode()
    _write(dest, [_info(n, members[n]) for n in portable.MEMBERS])


def test_export_holds_manifest_keyed_by_commit(built: tuple[Path, Path]) -> None:
    root, archive = built
    members = _members(archive)
    assert list(members) == list(portable.MEMBERS)
    manifest = json.loads(members[portable.MANIFEST])
    assert manifest["commit"] == git(root, "rev-parse", "HEAD")
    assert manifest["dirty"] is False
    recorded = {p: (n, h) for p, n, h in manifest["sources"]}
    assert set(recorded) == {"shop/__init__.py", "shop/orders.py", "shop/service.py", "tests/test_service.py"}
    body = (root / "shop/service.py").read_bytes()
    assert recorded["shop/service.py"][0] == len(body)
    for name in portable.MEMBERS[1:]:
        assert manifest["members"][name]["sha256"] == hashlib.sha256(members[name]).hexdigest()


def test_import_into_a_clone_then_update_what_differs(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, archive = built
    clone = _clone(root, tmp_path / "clone")
    # The clone's working tree differs: one file edited, one added, one renamed.
    service = clone / "shop" / "service.py"
    service.write_text(service.read_text() + "\n\ndef refund(order):\n    return ship(order)\n")
    (clone / "shop" / "audit.py").write_text("from shop.service import ship\n\ndef audit(o):\n    return ship(o)\n")
    git(clone, "mv", "shop/orders.py", "shop/entities.py")
    report = portable.import_index(clone, archive)
    assert report.commit_matches and report.warnings == []
    # The imported store is written in the published store's blocks (64 KiB), not DuckDB's default.
    store = duckdb.connect(str(IndexLayout(clone.resolve()).duckdb_path), read_only=True)
    assert store.execute("SELECT block_size FROM pragma_database_size()").fetchone() == (65536,)
    store.close()
    writer = IndexWriter(clone)
    update = writer.build()
    assert update.mode == "incremental"
    assert sorted(update.changed) == ["shop/audit.py", "shop/entities.py", "shop/service.py"]
    assert update.deleted == ["shop/orders.py"]
    ix = CodeIndex(clone, auto_update=False)
    try:
        callers = {h.edge.src for h in ix.callers("python shop/service.py ship().")}
        assert "python shop/audit.py audit()." in callers
        assert "python shop/service.py refund()." in callers
        assert not ix.symbols_in_file("shop/orders.py")
    finally:
        ix.close()
    # Nothing left to do: every unchanged file's stat was refreshed, by hash, not rescanned.
    assert IndexWriter(clone).build().mode == "noop"


def test_import_says_when_the_commit_differs(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, archive = built
    clone = _clone(root, tmp_path / "clone")
    (clone / "shop" / "extra.py").write_text("def extra():\n    return 1\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "more")
    report = portable.import_index(clone, archive)
    assert not report.commit_matches
    assert any("reused, then updated" in w for w in report.warnings)
    assert IndexWriter(clone).build().changed == ["shop/extra.py"]


def test_a_refused_archive_installs_nothing(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, archive = built
    clone = _clone(root, tmp_path / "clone")
    IndexWriter(clone).build()
    layout = IndexLayout(clone)
    before = (layout.current_lookup(), layout.duckdb_path.read_bytes())
    bad = tmp_path / "bad.tgz"
    members = _members(archive)
    manifest = members[portable.MANIFEST]
    cases: dict[str, list[tuple[tarfile.TarInfo, bytes | None]]] = {
        "traversal": [_info(portable.MANIFEST, manifest), _info("../../evil.py", b"x")],
        "nested name": [_info(portable.MANIFEST, manifest), _info(".meta/index/code.duckdb", b"x")],
        "a database file": [_info(portable.MANIFEST, manifest), _info("code.duckdb", b"DUCK")],
        "absolute": [_info("/tmp/evil", b"x")],
    }
    link = tarfile.TarInfo(STORE_FILES)
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    cases["symlink"] = [_info(portable.MANIFEST, manifest), (link, None)]
    hard = tarfile.TarInfo(portable.SNAPSHOT)
    hard.type = tarfile.LNKTYPE
    hard.linkname = portable.MANIFEST
    cases["hardlink"] = [_info(portable.MANIFEST, manifest), (hard, None)]
    cases["store first"] = [_info(STORE_FILES, members[STORE_FILES])]
    cases["tampered store"] = [
        _info(portable.MANIFEST, manifest),
        _info(portable.SNAPSHOT, members[portable.SNAPSHOT]),
        _info(STORE_FILES, members[STORE_FILES][:-2] + b"x\0"),
    ]
    foreign = json.loads(manifest)
    foreign["index_format"] = "store0-extractor0"
    cases["other format"] = [_info(portable.MANIFEST, json.dumps(foreign).encode())]
    cases["not json"] = [_info(portable.MANIFEST, b"{nope")]
    for why, content in cases.items():
        _write(bad, content)
        with pytest.raises(portable.ArchiveError):
            portable.import_index(clone, bad)
        assert (layout.current_lookup(), layout.duckdb_path.read_bytes()) == before, why
        assert not (tmp_path / "evil.py").exists() and not (clone / "evil.py").exists()
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(portable.ArchiveError):
        portable.import_index(clone, bad)
    assert not list(layout.index_dir.glob("code-importing*"))


def test_a_decompression_bomb_stops_at_the_cap(
    built: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, archive = built
    members = _members(archive)
    bomb = tmp_path / "bomb.tgz"
    zeros = b"\0" * (8 << 20)  # 8 MiB of zeros compress to a few KiB: past 200x the archive's size
    manifest = json.loads(members[portable.MANIFEST])
    manifest["members"][STORE_FILES] = {"sha256": hashlib.sha256(zeros).hexdigest(), "size": len(zeros)}
    _write(bomb, [_info(portable.MANIFEST, json.dumps(manifest).encode()), _info(STORE_FILES, zeros)])
    monkeypatch.setattr(portable, "COMPRESSED_RATIO_LIMIT", 2)  # the cap's rule, on a small bomb
    with pytest.raises(portable.ArchiveError, match="decompresses past"):
        portable.import_index(root, bomb)


def test_a_snapshot_with_a_trigger_or_an_escaping_path_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, archive = built
    snap = tmp_path / "snap.sqlite"
    snap.write_bytes(_members(archive)[portable.SNAPSHOT])
    con = sqlite3.connect(snap)
    con.execute("CREATE TRIGGER t AFTER INSERT ON files BEGIN DELETE FROM symbols; END")
    con.commit()
    con.close()
    bad = tmp_path / "trigger.tgz"
    _repack(archive, bad, **{portable.SNAPSHOT: snap.read_bytes()})
    with pytest.raises(portable.ArchiveError, match="schema"):
        portable.import_index(root, bad)

    # A view is allowed only as ours: one that reads other rows under our name is refused.
    snap.write_bytes(_members(archive)[portable.SNAPSHOT])
    con = sqlite3.connect(snap)
    con.execute("DROP VIEW edges")
    con.execute("CREATE VIEW edges AS SELECT * FROM edge_rows WHERE 0")
    con.commit()
    con.close()
    _repack(archive, bad, **{portable.SNAPSHOT: snap.read_bytes()})
    with pytest.raises(portable.ArchiveError, match="schema"):
        portable.import_index(root, bad)

    snap.write_bytes(_members(archive)[portable.SNAPSHOT])
    con = sqlite3.connect(snap)
    con.execute("UPDATE files SET path = '../../../etc/passwd' WHERE path = 'shop/service.py'")
    con.commit()
    con.close()
    _repack(archive, bad, **{portable.SNAPSHOT: snap.read_bytes()})
    with pytest.raises(portable.ArchiveError, match="outside the repository"):
        portable.import_index(root, bad)


def test_store_tables_malformed_or_escaping_are_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    """The build store arrives as Parquet files read with our columns: a file that is not one of our tables
    fails the import, and so does a recorded path outside the repository."""
    import duckdb

    root, archive = built
    bad = tmp_path / "bad.tgz"
    _repack(archive, bad, **{STORE_FILES: b"PAR1 not parquet PAR1"})
    with pytest.raises(portable.ArchiveError, match="do not load"):
        portable.import_index(root, bad)
    made = tmp_path / "files.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 1 AS path) TO '{made}' (FORMAT parquet)")
    _repack(archive, bad, **{STORE_FILES: made.read_bytes()})
    with pytest.raises(portable.ArchiveError, match="other columns"):
        portable.import_index(root, bad)
    made.unlink()
    con.execute(
        "COPY (SELECT '../../outside.py' AS path, 'python' AS lang, 1::BIGINT AS size, 1::BIGINT AS mtime_ns,"
        f" 'h' AS content_hash, 'ok' AS parse_status, NULL::VARCHAR AS error) TO '{made}' (FORMAT parquet)"
    )
    con.close()
    _repack(archive, bad, **{STORE_FILES: made.read_bytes()})
    with pytest.raises(portable.ArchiveError, match="outside the repository"):
        portable.import_index(root, bad)


def test_round_trip_answers_like_the_origin(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, archive = built
    clone = _clone(root, tmp_path / "clone")
    shutil.rmtree(clone / ".meta", ignore_errors=True)
    portable.import_index(clone, archive)
    assert IndexWriter(clone).build().changed == []
    a, b = CodeIndex(root, auto_update=False), CodeIndex(clone, auto_update=False)
    try:
        sym = "python shop/service.py ship()."
        assert sorted(h.edge.src for h in a.callers(sym)) == sorted(h.edge.src for h in b.callers(sym))
    finally:
        a.close()
        b.close()
    with gzip.open(archive) as fh:  # a plain gzip'd tar any tool lists
        assert fh.read(512)


def test_a_non_utf8_file_is_not_rescanned_after_an_import(tmp_path: Path) -> None:
    """Its recorded hash is of the bytes on disk, as the update's check hashes them (it was the hash of the
    text decoded with replacement: such a file was rescanned on every import)."""
    files: dict[str, str | bytes] = {"latin.py": "# caf\xe9\ndef caf():\n    return 1\n".encode("latin-1")}
    root = make_repo(tmp_path / "origin", {**ORDERS_PY, **files})
    IndexWriter(root).build()
    archive = tmp_path / "index.tgz"
    portable.export_index(root, archive)
    clone = _clone(root, tmp_path / "clone")
    portable.import_index(clone, archive)
    report = IndexWriter(clone).build()
    assert report.mode == "incremental" and report.changed == []


def test_a_file_skipped_again_does_not_reresolve_every_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated file is listed by every walk of its directory and skipped by every scan. After an import (every
    directory looks changed) it was counted as a change of the indexed file set, so the update re-resolved
    every import and re-ranked every file: ~1.7 of the stdlib import's 2.6 update CPU-s."""
    from ctxops_code_graph import builder

    files: dict[str, str | bytes] = {"shop/tables.py": "# This file is generated by mktables.py. DO NOT EDIT.\nX = 1\n"}
    root = make_repo(tmp_path / "origin", {**ORDERS_PY, **files})
    IndexWriter(root).build()
    archive = tmp_path / "index.tgz"
    portable.export_index(root, archive)
    clone = _clone(root, tmp_path / "clone")
    portable.import_index(clone, archive)
    resolved: list[int] = []
    real = builder._import_rows
    monkeypatch.setattr(
        builder, "_import_rows", lambda imports, modules: resolved.append(len(imports)) or real(imports, modules)
    )
    report = IndexWriter(clone).build()
    assert report.mode == "incremental" and report.deleted == []
    assert resolved == [0]  # only the (no) imports of rescanned files, not all of them again
    ix = CodeIndex(clone, auto_update=False)
    try:
        assert "python shop/service.py ship()." in {s.id for s in ix.symbols_in_file("shop/service.py")}
    finally:
        ix.close()
    # Adding a file still re-resolves every import (it may be what one of them names).
    (clone / "shop" / "extra.py").write_text("from shop.service import ship\n")
    resolved.clear()
    IndexWriter(clone).build()
    assert resolved and resolved[0] > 1
