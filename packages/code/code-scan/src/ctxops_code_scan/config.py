"""Scanner settings: defaults, overridable in `.meta/config.toml` under `[code]`."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ctxops_contracts.shared.confine import read_config_text

DEFAULT_MAX_FILE_BYTES = 1024 * 1024
VENDORED_DIRS = frozenset(
    {"node_modules", "vendor", "third_party", "third-party", "bower_components", "site-packages", "Pods", "_vendor"}
)
# Of those, the names a project also gives its own copied-in code: indexed when the directory has no module
# metadata of its own (`first_party_vendor`). Package managers' directories (node_modules, ...) never are.
FIRST_PARTY_VENDOR_NAMES = frozenset({"vendor", "third_party", "third-party", "_vendor"})
# A file in a vendored directory (or a directory one or two levels below) that makes it another module.
MODULE_METADATA = frozenset(
    {"package.json", "go.mod", "modules.txt", "setup.py", "setup.cfg", "pyproject.toml", "vendor.txt", "Cargo.toml",
     "composer.json", "Gemfile", "pom.xml", "build.gradle", "CMakeLists.txt", "meson.build", "BUILD.bazel"}
)  # fmt: skip
ALWAYS_IGNORED_DIRS = frozenset({".git", ".hg", ".svn", ".meta", "__pycache__", ".venv", ".tox", ".mypy_cache"})


class ConfigError(ValueError):
    """`.meta/config.toml` exists but cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class ScanConfig:
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    ignore: tuple[str, ...] = ()  # gitignore-style patterns, relative to the repository root
    vendored_dirs: frozenset[str] = field(default=VENDORED_DIRS)
    # Vendored directories indexed anyway (`code.include_vendored`, repository-relative paths).
    include_vendored: tuple[str, ...] = ()

    @classmethod
    def load(cls, root: Path) -> ScanConfig:
        path = root / ".meta" / "config.toml"
        try:
            data = tomllib.loads(read_config_text(str(path)))
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}; fix or remove the file") from exc
        code = data.get("code", {})
        if not isinstance(code, dict):
            raise ConfigError(f"{path}: [code] must be a table")
        max_bytes = code.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
        ignore = code.get("ignore", [])
        if not isinstance(max_bytes, int) or max_bytes <= 0:
            raise ConfigError(f"{path}: code.max_file_bytes must be a positive integer, got {max_bytes!r}")
        if not isinstance(ignore, list) or not all(isinstance(p, str) for p in ignore):
            raise ConfigError(f"{path}: code.ignore must be a list of gitignore-style patterns")
        include = code.get("include_vendored", [])
        if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
            raise ConfigError(f"{path}: code.include_vendored must be a list of repository-relative directories")
        return cls(
            max_file_bytes=max_bytes, ignore=tuple(ignore), include_vendored=tuple(p.strip("/") for p in include)
        )
