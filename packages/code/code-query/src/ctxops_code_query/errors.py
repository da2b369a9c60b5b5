"""Exit codes and the errors that map to them (DESIGN.md section 4, output discipline)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_NO_RESULTS = 1
EXIT_USAGE = 2
EXIT_DEADLINE = 3


class CqError(Exception):
    """An error shown to the user as one line; ``exit_code`` is what `cq` returns."""

    exit_code = EXIT_USAGE
    kind = "error"

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.fix})" if self.fix else self.message


class UsageError(CqError):
    """The command line or the query is wrong: the message names the fix."""

    kind = "usage"


class EnvironmentProblem(CqError):
    """Something around the query is missing or broken (no index, no ripgrep, unreadable repository)."""

    kind = "environment"


class PathRefused(UsageError):
    """A path points outside the repository (``..``, absolute, or a symlink escaping it)."""

    kind = "path-refused"
