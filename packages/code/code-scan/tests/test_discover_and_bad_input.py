"""What gets scanned, what is skipped and why, and files that would crash a naive scanner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_scan.config import ConfigError, ScanConfig
from ctxops_code_scan.discover import discover, discover_dirs
from ctxops_code_scan.records import ScanResult, Skipped
from ctxops_code_scan.scan import scan_file, scan_files


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def _reasons(root: Path, config: ScanConfig | None = None) -> tuple[set[str], dict[str, str]]:
    d = discover(root, config)
    return {c.path for c in d.files}, {s.path: s.reason for s in d.skipped}


def test_gitignore_nested_negation_and_config(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "build/\n*.gen.py\n",
            "app/main.py": "x = 1\n",
            "app/out.gen.py": "x = 1\n",
            "app/.gitignore": "!keep.gen.py\nlocal_*.py\n",
            "app/keep.gen.py": "x = 1\n",
            "app/local_settings.py": "x = 1\n",
            "build/lib.py": "x = 1\n",
            "scratch/tmp.py": "x = 1\n",
            ".meta/config.toml": '[code]\nignore = ["scratch/"]\n',
            "node_modules/pkg/index.js": "module.exports = 1\n",
            "docs/readme.md": "# hi\n",
        },
    )
    files, skipped = _reasons(tmp_path, ScanConfig.load(tmp_path))
    assert files == {"app/main.py", "app/keep.gen.py"}
    assert skipped == {
        "app/out.gen.py": "ignored",
        "app/local_settings.py": "ignored",
        "build": "ignored",
        "scratch": "ignored",
        "node_modules": "vendored: node_modules is a package manager's directory",
    }


def test_a_vendor_directory_without_module_metadata_is_the_projects_own_code(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/vendor/unpromise/unpromise.ts": "export class Unpromise {}\n",
            "third_party/lib/package.json": "{}\n",
            "third_party/lib/index.js": "export function f() {}\n",
            "go/vendor/modules.txt": "# example.com/m v1\n",
            "go/vendor/example.com/m/m.go": "package m\n",
            "py/_vendor/six.py": "x = 1\n",
            "py/_vendor/vendor.txt": "six==1\n",
            "forced/vendor/pkg/pyproject.toml": "[project]\n",
            "forced/vendor/pkg/mod.py": "x = 1\n",
        },
    )
    files, skipped = _reasons(tmp_path)
    assert files == {"src/vendor/unpromise/unpromise.ts"}
    assert skipped == {
        "third_party": "vendored: has its own lib/package.json",
        "go/vendor": "vendored: has its own modules.txt",
        "py/_vendor": "vendored: has its own vendor.txt",
        "forced/vendor": "vendored: has its own pkg/pyproject.toml",
    }
    (tmp_path / ".meta").mkdir()
    (tmp_path / ".meta" / "config.toml").write_text('[code]\ninclude_vendored = ["forced/vendor/"]\n')
    files, skipped = _reasons(tmp_path, ScanConfig.load(tmp_path))
    assert "forced/vendor/pkg/mod.py" in files and "forced/vendor" not in skipped
    (tmp_path / ".meta" / "config.toml").write_text('[code]\ninclude_vendored = "forced/vendor"\n')
    with pytest.raises(ConfigError, match="include_vendored"):
        ScanConfig.load(tmp_path)


def test_listing_some_directories_applies_the_rules_of_their_ancestors(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "*.gen.py\n",
            "app/.gitignore": "local_*.py\n",
            "app/sub/main.py": "x = 1\n",
            "app/sub/local_x.py": "x = 1\n",
            "app/sub/out.gen.py": "x = 1\n",
            "app/sub/known/a.py": "x = 1\n",
            "app/sub/new/deep/b.py": "x = 1\n",
            "app/sub/node_modules/c.js": "x = 1\n",
            "other/d.py": "x = 1\n",
        },
    )
    full = discover(tmp_path)
    part = discover_dirs(tmp_path, ["app/sub"], known_dirs={"", "app", "app/sub", "app/sub/known", "other"})
    # The listed directory and the new subtree under it, nothing else; the same verdicts as a full walk.
    assert {c.path for c in part.files} == {"app/sub/main.py", "app/sub/new/deep/b.py"}
    assert set(part.dirs) == {"app/sub", "app/sub/new", "app/sub/new/deep"}
    assert {s.path: s.reason for s in part.skipped} == {
        s.path: s.reason for s in full.skipped if s.path.startswith("app/sub/")
    }
    assert {c.path for c in full.files} >= {c.path for c in part.files}


def test_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    _write(tmp_path, {".meta/config.toml": "[code]\nmax_file_bytes = -1\n"})
    with pytest.raises(ConfigError, match="max_file_bytes"):
        ScanConfig.load(tmp_path)
    _write(tmp_path, {".meta/config.toml": "[code\n"})
    with pytest.raises(ConfigError, match=r"config\.toml"):
        ScanConfig.load(tmp_path)


def test_skip_rules_record_their_reason(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "bin.py": b"\x7fELF\x00\x00\x01binary",
            "gen.py": "# Code generated by protoc. DO NOT EDIT.\nx = 1\n",
            "api_pb2.py": "x = 1\n",
            "app.min.js": "var a=1;",
            "packed.js": "var a=" + "1+" * 30000 + "1;\n",
            "huge.py": "x = '" + "a" * (2 * 1024 * 1024) + "'\n",
            "ok.py": "def f():\n    pass\n",
            "dist/bundles/lib.umd.js": "function mergeMap(a) {\n  return a;\n}\n",
            "packages/ui/build/index.js": "export function f() {}\n",
            "build/lib/pkg/mod.py": "def f():\n    pass\n",
            "src/compiled.js": "export function g() {}\n//# sourceMappingURL=compiled.js.map\n",
            "src/app.js": "/******/ var __webpack_require__ = {};\nfunction h() {}\n",
            "src/mergeMap.ts": "export function mergeMap(a: number) {\n  return a;\n}\n",
            # TypeScript written by people that tests for webpack (@microsoft/signalr's HttpConnection.ts):
            # a bundler emits JavaScript, never TypeScript.
            "src/HttpConnection.ts": (
                'const requireFunc = typeof __webpack_require__ === "function" ? __non_webpack_require__ : require;\n'
                "export class HttpConnection {\n  start(): void {}\n}\n"
            ),
            "go/build/build.go": "package build\n\nfunc Import() {}\n",
        },
    )
    d = discover(tmp_path)
    assert {s.path: s.reason for s in d.skipped} == {"huge.py": "too-large"}
    outcomes = {
        o.path if isinstance(o, Skipped) else o.file.path: o
        for o in scan_files(tmp_path, [(c.path, c.lang) for c in d.files])
    }
    reasons = {p: o.reason for p, o in outcomes.items() if isinstance(o, Skipped)}
    assert reasons == {
        "bin.py": "binary",
        "gen.py": "generated",
        "api_pb2.py": "generated",
        "app.min.js": "minified",
        "packed.js": "minified",
        "dist/bundles/lib.umd.js": "build-output",
        "packages/ui/build/index.js": "build-output",
        "build/lib/pkg/mod.py": "build-output",
        "src/compiled.js": "build-output",
        "src/app.js": "build-output",
    }
    # Source keeps its place: a TypeScript source file, and a Go package that happens to be named `build`.
    assert isinstance(outcomes["src/mergeMap.ts"], ScanResult)
    assert isinstance(outcomes["src/HttpConnection.ts"], ScanResult)
    assert isinstance(outcomes["go/build/build.go"], ScanResult)
    ok = outcomes["ok.py"]
    assert isinstance(ok, ScanResult) and ok.file.parse_status == "ok" and ok.symbols[0].name == "f"


def test_ten_megabyte_single_line_is_skipped_not_parsed(tmp_path: Path) -> None:
    _write(tmp_path, {"one_line.js": "var x = '" + "z" * (10 * 1024 * 1024) + "';"})
    out = scan_file(tmp_path, "one_line.js", "javascript")
    assert isinstance(out, Skipped) and out.reason == "too-large"
    # With a cap raised past it, the minified rule still keeps it out of the parser.
    out = scan_file(tmp_path, "one_line.js", "javascript", ScanConfig(max_file_bytes=64 * 1024 * 1024))
    assert isinstance(out, Skipped) and out.reason == "minified"


def test_syntax_errors_keep_what_parses(tmp_path: Path) -> None:
    _write(tmp_path, {"broken.py": "def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Fine:\n    pass\n"})
    out = scan_file(tmp_path, "broken.py", "python")
    assert isinstance(out, ScanResult)
    assert out.file.parse_status == "partial" and "syntax errors" in (out.file.error or "")
    assert {"good", "Fine"} <= {s.name for s in out.symbols}


def test_empty_file(tmp_path: Path) -> None:
    _write(tmp_path, {"empty.py": ""})
    out = scan_file(tmp_path, "empty.py", "python")
    assert isinstance(out, ScanResult) and out.file.parse_status == "ok" and out.symbols == []


def test_non_utf8_is_decoded_with_replacement_and_flagged(tmp_path: Path) -> None:
    _write(
        tmp_path, {"latin.py": "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\ndef f():\n    pass\n".encode("latin-1")}
    )
    out = scan_file(tmp_path, "latin.py", "python")
    assert isinstance(out, ScanResult)
    assert out.file.parse_status == "partial" and "UTF-8" in (out.file.error or "")
    assert [s.name for s in out.symbols] == ["name", "f"]


def test_deleted_while_scanning(tmp_path: Path) -> None:
    _write(tmp_path, {"gone.py": "x = 1\n"})
    d = discover(tmp_path)
    (tmp_path / "gone.py").unlink()
    (out,) = list(scan_files(tmp_path, [(c.path, c.lang) for c in d.files]))
    assert isinstance(out, Skipped) and out.reason == "vanished"


def test_symlinks_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    repo = tmp_path / "repo"
    _write(outside, {"secret.py": "x = 1\n"})
    _write(repo, {"real.py": "y = 2\n"})
    (repo / "inside_link.py").symlink_to(repo / "real.py")
    (repo / "outside_link.py").symlink_to(outside / "secret.py")
    (repo / "dir_link").symlink_to(outside)
    (repo / "loop_a").symlink_to(repo / "loop_b")
    (repo / "loop_b").symlink_to(repo / "loop_a")
    (repo / "self_loop").symlink_to(repo)
    files, skipped = _reasons(repo)
    assert files == {"real.py"}
    assert skipped == {
        "inside_link.py": "symlink",
        "outside_link.py": "symlink-outside",
        "dir_link": "symlink-outside",
        "loop_a": "symlink-loop",
        "loop_b": "symlink-loop",
        "self_loop": "symlink",
    }


def test_permission_denied_is_reported(tmp_path: Path) -> None:
    # Root reads everything, so there the scan runs without the DAC override capabilities: a real EACCES.
    _write(tmp_path, {"ok.py": "x = 1\n", "locked.py": "y = 2\n", "closed/inner.py": "z = 3\n"})
    (tmp_path / "locked.py").chmod(0o000)
    (tmp_path / "closed").chmod(0o000)
    code = (
        "from pathlib import Path\n"
        "from ctxops_code_scan.discover import discover\nfrom ctxops_code_scan.scan import scan_files\n"
        f"root = Path({str(tmp_path)!r})\nd = discover(root)\n"
        "print(sorted((s.path, s.reason) for s in d.skipped))\n"
        "print(sorted(getattr(o, 'reason', 'ok') for o in scan_files(root, [(c.path, c.lang) for c in d.files])))\n"
    )
    argv = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no way to be denied")
        drop = "-dac_override,-dac_read_search"
        argv = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *argv]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()
    finally:
        (tmp_path / "locked.py").chmod(0o644)
        (tmp_path / "closed").chmod(0o755)
    assert out[0] == "[('closed', 'unreadable: Permission denied')]"
    assert out[1] == "['ok', 'unreadable: Permission denied']"


def test_parallel_scan_matches_serial(tmp_path: Path) -> None:
    _write(tmp_path, {f"m{i}.py": f"def f{i}():\n    return g{i}()\n" for i in range(60)})
    items = [(f"m{i}.py", "python") for i in range(60)]
    serial = sorted((o.file.path, len(o.symbols)) for o in scan_files(tmp_path, items, workers=1))  # type: ignore[union-attr]
    parallel = sorted((o.file.path, len(o.symbols)) for o in scan_files(tmp_path, items, workers=2))  # type: ignore[union-attr]
    assert serial == parallel and len(serial) == 60
