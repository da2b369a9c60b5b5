"""Line-level machinery every summarizer shares: what looks like an error, a location or a summary line,
and how a kept-line set is printed with the gaps folded into counted markers."""

from __future__ import annotations

from ctxops_contracts.shared import regex

ANSI = regex.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r(?!\n)")
# file:line in the forms runners print: a.py:12, a.go:12:3, a.ts(12,5), File "a.py", line 12, --> a.rs:4:5
LOCATION = regex.compile(
    r"(?:[A-Za-z]:)?[\w./\\@+~-]*[\w-]\.[A-Za-z][\w]{0,9}(?::\d+(?::\d+)?|\(\d+,\d+\))|File \"[^\"]+\", line \d+"
)
FAILURE = regex.compile(
    r"\b(?:FAIL(?:ED|URES?)?|ERRORS?|[Ee]rror(?:s|\[\w+\])?|panic|Traceback|[A-Za-z]*Exception|fatal|FATAL"
    r"|Assertion\w*|[Ee]xpected|[Rr]eceived|Segmentation fault|Killed|Abort(?:ed)?)\b|[✕✗×●✘]|^E\s"
)
_DIGITS = regex.compile(r"\d+")
WARNING = regex.compile(r"\bwarn(?:ing)?s?\b|\bWARN\b|\bdeprecat", regex.IGNORECASE)
SUMMARY = regex.compile(
    r"\b\d+ (?:passed|failed|errors?|warnings?|skipped|xfailed|xpassed|deselected|tests?|problems?|"
    r"files?|suites?|packages?|issues?|fixable)\b|^\s*(?:Tests|Test Suites|Test Files|Snapshots|Time|Duration|"
    r"Ran|test result):|^(?:ok|FAIL|PASS)\s|^Found \d+|^Success:|^All checks passed|^OK\b|^=+ .* =+$",
    regex.IGNORECASE,
)


def clean_lines(text: str) -> list[str]:
    """Lines without terminal colour codes or carriage-return progress redraws."""
    return [ANSI.sub("", line) for line in text.splitlines()]


def is_signal(line: str) -> bool:
    """A line a reader must not lose: a failure, a warning, a location or a summary."""
    return bool(FAILURE.search(line) or WARNING.search(line) or LOCATION.search(line) or SUMMARY.search(line))


def clip(line: str, width: int = 400) -> str:
    """One line at most ``width`` characters (minified or base64 lines are the usual offenders)."""
    return line if len(line) <= width else f"{line[:width]} …[{len(line) - width} chars cut]"


def render(lines: list[str], keep: set[int], *, why: str = "", count_blank: bool = False) -> list[str]:
    """The kept lines in their order; each run of dropped lines becomes one ``… N lines folded`` marker,
    and runs of the same kept line collapse into ``line  (×N)``. A run of only blank lines becomes one
    blank line (a marker would cost more than it says), unless ``count_blank`` (diff hunks count lines)."""
    out: list[str] = []
    gap = 0
    blank_gap = True
    last: str | None = None
    repeat = 0

    def flush_repeat() -> None:
        nonlocal repeat
        if repeat:
            out[-1] = f"{out[-1]}  (×{repeat + 1})"
            repeat = 0

    for i, line in enumerate(lines):
        if i not in keep:
            gap += 1
            blank_gap = blank_gap and not line.strip()
            continue
        if gap:
            flush_repeat()
            out.append("" if blank_gap and not count_blank else _marker(gap, why))
            gap, blank_gap = 0, True
            last = None
        if line == last and line.strip():
            repeat += 1
            continue
        flush_repeat()
        out.append(clip(line))
        last = line
    flush_repeat()
    if gap and not (blank_gap and not count_blank):
        out.append(_marker(gap, why))
    return out


def _marker(gap: int, why: str) -> str:
    return f"  … {gap} line{'s' if gap != 1 else ''}{' ' + why if why else ''}"


def collapse_repeats(lines: list[str]) -> list[str]:
    """Consecutive lines equal once digits are ignored (progress, retries) become the first plus a count."""
    out: list[str] = []
    key_prev: str | None = None
    count = 0
    for line in lines:
        key = _DIGITS.sub("#", line).strip()
        if key == key_prev and key:
            count += 1
            continue
        if count:
            out.append(f"  … same line ×{count} more")
        count = 0
        out.append(line)
        key_prev = key
    if count:
        out.append(f"  … same line ×{count} more")
    return out
