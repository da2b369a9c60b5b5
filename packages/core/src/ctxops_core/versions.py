"""`ctx version`: which ctxops distributions are installed, at which versions."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTIONS = (
    "ctxops",
    "ctxops-contracts",
    "ctxops-hooks-capture",
    "ctxops-memory-store",
    "ctxops-memory-inject",
    "ctxops-code-scan",
    "ctxops-code-graph",
    "ctxops-code-query",
    "ctxops-token-capture",
    "ctxops-ledger-report",
)


def installed_versions() -> dict[str, str | None]:
    """Distribution name -> version, or None when it is not installed."""
    out: dict[str, str | None] = {}
    for dist in DISTRIBUTIONS:
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def print_versions(argv: list[str]) -> int:
    from ctxops_contracts.shared import cli as grammar

    parser = grammar.Parser(prog="ctx version", description="versions of the installed ctxops packages")
    parser.add_argument("--json", action="store_true", help="print one compact JSON document on stdout")
    args = parser.parse_args(argv)
    versions = installed_versions()
    if args.json:
        grammar.emit_json(versions)
        return 0
    for dist, ver in versions.items():
        print(f"{dist:<24} {ver or 'not installed'}")
    return 0
