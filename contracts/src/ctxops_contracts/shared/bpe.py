"""The bundled offline cl100k/o200k tokenizer of ``bpe-openai``, loaded without its package ``__init__``.

``import bpe_openai`` spends ~0.6 s building a model registry nobody here needs; the compiled module alone
loads an encoding in ~25 ms. Stdlib only: this module finds the compiled bindings by path and never imports
``bpe_openai`` itself, so a line that counts tokens declares ``bpe-openai`` and calls ``tokenizer()``.
A missing or broken install raises ``TokenizerUnavailable`` naming the fix; nothing falls back silently.
"""

from __future__ import annotations

import os
import sys
from functools import cache

TYPE_CHECKING = False  # on hook and lookup fast paths: no typing import at run time
if TYPE_CHECKING:
    from typing import Any


class TokenizerUnavailable(RuntimeError):
    """``bpe-openai`` is not installed, or installed without its compiled bindings."""


@cache
def bindings() -> Any:
    """The compiled ``bpe_openai._bindings`` module (loaded once per process)."""
    module = sys.modules.get("bpe_openai._bindings")
    if module is not None:
        return module
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerUnavailable("bpe-openai is not installed (pip install bpe-openai)")
    for location in spec.submodule_search_locations:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            candidate = os.path.join(location, f"_bindings{suffix}")
            ext = importlib.util.spec_from_file_location("bpe_openai._bindings", candidate)
            if os.path.isfile(candidate) and ext is not None and ext.loader is not None:
                module = importlib.util.module_from_spec(ext)
                ext.loader.exec_module(module)
                return module
    raise TokenizerUnavailable("bpe-openai is installed without its compiled bindings; reinstall it")


@cache
def tokenizer(encoding: str = "cl100k_base") -> Any:
    """The tokenizer of an OpenAI encoding (``cl100k_base``, ``o200k_base``), with ``count`` and ``encode``."""
    return bindings().tokenizer_for_encoding(encoding)
