"""Regular expressions compiled on first use, through the per-machine compile cache.

Python compiles a pattern in Python code (``re._compiler``): the redaction and correction rules cost tens of
milliseconds to compile, more than the rest of a hook's work, and most events need only a few of them
(provider formats run only when their prefix is present). ``lazy`` defers each compile to its first use, and
``ctxops_contracts.shared.regex`` makes that compile a cache read after the first process on a machine.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile, lazy

__all__ = ["compile", "lazy"]
