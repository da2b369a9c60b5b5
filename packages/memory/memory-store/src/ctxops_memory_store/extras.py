# ruff: noqa: PTH113, PTH118
"""Which optional embedders are installed, found without importing them (the hook asks on every prompt)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

WORDLLAMA_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
WORDLLAMA_WEIGHTS = "weights/l2_supercat_256.safetensors"


def wordllama_files() -> tuple[str, str] | None:
    """The tokenizer and weights shipped inside the ``wordllama`` wheel (the ``embed`` extra), found without
    importing the package (its ``__init__`` pulls pydantic and would fetch a missing file from a hub); None
    when it is not installed."""
    spec = _find_spec("wordllama")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        tokenizer, weights = os.path.join(folder, WORDLLAMA_TOKENIZER), os.path.join(folder, WORDLLAMA_WEIGHTS)
        if os.path.isfile(tokenizer) and os.path.isfile(weights):
            return tokenizer, weights
    return None


def _find_spec(name: str) -> ModuleSpec | None:
    """``importlib.util.find_spec`` of a top-level module, without importing importlib.util (contextlib,
    collections: ~3 ms of every fresh ``ctx mem`` process and hook): the meta path's finders, in order."""
    import sys

    if name in sys.modules:
        return getattr(sys.modules[name], "__spec__", None)
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, None)
        except (ImportError, ValueError):
            return None
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


def vectors_maybe_on(root: str) -> bool:
    """A cheap first look for the hook: False when vectors are surely off (no model installed and no
    ``[memory.vector]`` table in ``.meta/config.toml``), so a prompt pays for neither the config parser nor
    the store; True means: read the configuration (``config.load_config``) to know."""
    if wordllama_files() is not None:
        return True
    from ctxops_contracts.shared.confine import read_regular

    try:
        text = read_regular(os.path.join(root, ".meta", "config.toml"), 1_000_001)
    except (OSError, ValueError):
        return False
    # a commented line does not count: `ctx init` writes the `[memory.vector]` defaults commented out
    return any(b"vector" in line.split(b"#", 1)[0] for line in text.splitlines())
