"""Regular expressions compiled on first use.

Python compiles a pattern in Python code (``re._compiler``): the redaction and correction rules cost tens of
milliseconds to compile, more than the rest of a hook's work, and most events need only a few of them
(provider formats run only when their prefix is present). ``lazy`` defers each compile to its first use.
"""

from __future__ import annotations

import re


class _Lazy:
    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> object:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return getattr(compiled, name)


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern that compiles itself the first time one of its methods is used."""
    return _Lazy(source, flags)  # type: ignore[return-value]  # duck-types re.Pattern
