"""A module's logger that imports ``logging`` when it is first used, not when the module is imported.

``logging`` (with threading, traceback, string and weakref) costs ~10 ms of a fresh process; modules on
the hook paths log only when something goes wrong, so ``log = get_logger(__name__)`` keeps that cost
off the common path. The object behaves as ``logging.getLogger(name)``: every attribute is the real
logger's, fetched on first use (so handlers and levels configured by then apply as usual).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing and logging are not imported here; type checkers treat this name as True
if TYPE_CHECKING:
    import logging


class _LazyLogger:
    __slots__ = ("_logger", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: logging.Logger | None = None

    def __getattr__(self, attribute: str) -> object:
        logger = self._logger
        if logger is None:
            import logging

            logger = self._logger = logging.getLogger(self.name)
        return getattr(logger, attribute)

    def __repr__(self) -> str:
        return f"<lazy logger {self.name}>"


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)``, with ``logging`` imported on the first call of one of its methods."""
    return _LazyLogger(name)  # type: ignore[return-value]  # duck-types logging.Logger
