"""One retry loop: call again with exponential backoff until it succeeds or the deadline passes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retry(
    call: Callable[[], T],
    *,
    on: type[BaseException] | tuple[type[BaseException], ...],
    timeout: float,
    first_delay: float = 0.01,
    max_delay: float = 0.25,
    give_up: Callable[[BaseException], bool] | None = None,
) -> T:
    """Return ``call()``, retrying on exceptions of type ``on`` for up to ``timeout`` seconds.

    ``give_up(exc)`` may stop early for an error that retrying cannot fix. The last error is re-raised.
    """
    deadline = time.monotonic() + timeout
    delay = first_delay
    while True:
        try:
            return call()
        except on as exc:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (give_up is not None and give_up(exc)):
                raise
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, max_delay)
