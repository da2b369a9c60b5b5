"""`python -m ctxops_code_scan`: look at what the scanner sees, without building an index.

    python -m ctxops_code_scan outline FILE...        symbols of files (line, kind, qualified name, signature)
    python -m ctxops_code_scan refs FILE...           references with role, qualifier and enclosing symbol
    python -m ctxops_code_scan discover [ROOT]        what a build would scan, and what it skips and why
Add --json for records.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import msgspec

from .config import ScanConfig
from .discover import discover
from .languages import language_for_path
from .records import ScanResult, Skipped
from .scan import scan_file


def main(argv: list[str] | None = None) -> int:
    from ctxops_contracts.shared.cli import Parser, typed_prog

    parser = Parser(
        prog=typed_prog("python -m ctxops_code_scan"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=["outline", "refs", "discover"], help="what to show")
    parser.add_argument("paths", nargs="*", default=[], help="files (outline, refs) or the root (discover)")
    parser.add_argument("--json", action="store_true", help="print records as compact JSON, one per line")
    args = parser.parse_intermixed_args(argv)
    if args.command == "discover":
        root = Path(args.paths[0] if args.paths else ".")
        if not root.is_dir():
            print(f"error: {root} is not a directory", file=sys.stderr)
            return 2
        found = discover(root, ScanConfig.load(root.resolve()))
        if args.json:
            print(msgspec.json.encode({"files": [c.__dict__ for c in found.files], "skipped": found.skipped}).decode())
            return 0
        langs = Counter(c.lang for c in found.files)
        reasons = Counter(s.reason.split(":")[0] for s in found.skipped)
        print(f"{len(found.files)} files to scan: " + ", ".join(f"{lang} {n}" for lang, n in langs.most_common()))
        print("skipped: " + (", ".join(f"{r} {n}" for r, n in reasons.most_common()) or "none"))
        print(f"{found.other_files} other files (no language mapped)")
        return 0
    if not args.paths:
        print("error: name at least one file", file=sys.stderr)
        return 2
    status = 0
    for raw in args.paths:
        path = Path(raw)
        spec = language_for_path(path.name)
        if spec is None or not path.is_file():
            print(f"error: {raw}: not a source file in a known language", file=sys.stderr)
            status = 2
            continue
        out = scan_file(path.parent, path.name, spec.name)
        if isinstance(out, Skipped):
            print(f"{raw}: skipped ({out.reason})")
            continue
        _show(raw, out, args.command, args.json)
    return status


def _show(raw: str, out: ScanResult, command: str, as_json: bool) -> None:
    if as_json:
        print(msgspec.json.encode(out).decode())
        return
    note = f" [{out.file.parse_status}: {out.file.error}]" if out.file.error else ""
    print(f"{raw} ({out.file.lang}, {len(out.symbols)} symbols, {len(out.references)} references){note}")
    if command == "outline":
        for s in out.symbols:
            depth = s.qualname.count(".")
            print(f"  {s.line:5}  {'  ' * depth}{s.kind:9} {s.name}{s.signature or ''}")
    else:
        for r in out.references:
            via = f"{r.qualifier}." if r.qualifier else ""
            where = r.enclosing.split(" ", 2)[-1] if r.enclosing else "(module)"
            print(f"  {r.line:5}:{r.col:<3} {r.role:7} {via}{r.symbol_name}  in {where}")
