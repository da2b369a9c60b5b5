"""Line-level machinery every summarizer shares: what looks like an error, a location or a summary line,
and how a kept-line set is printed with the gaps folded into counted markers.

Linear time on any input (docs/security.md, promise 2): an output is scanned in a bounded window
(``bounded``: its head and tail, the middle counted with ``str.count``), each line is cut to ``MAX_LINE``
characters before any pattern sees it (``clean_lines``), and every pattern here runs in linear time on
any line (tests/security/test_linear_regexes.py feeds each one megabyte strings built to make it
backtrack): a run that a pattern scans is entered at most once, from its start.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex

# Terminal codes: CSI sequences, OSC sequences (ended by BEL or ST; an ESC inside ends the scan, so a run
# of unterminated OSC openers is not rescanned from each one), and carriage-return redraws.
ANSI = regex.compile(r"\x1b\[[0-9;?]*+[ -/]*+[@-~]|\x1b\][^\x07\x1b]*+(?:\x07|\x1b\\)|\r(?!\n)")
# file:line in the forms runners print: a.py:12, a.go:12:3, a.ts(12,5), File "a.py", line 12, --> a.rs:4:5.
# A path starts where a run of path characters starts (the lookbehind): a match inside the run would also
# match from its start, so the leftmost match is the same, and a long run without a dot (a base64 line) is
# scanned once instead of once from each of its characters.
_PATH_CHAR = r"[\w./\\@+~-]"
LOCATION = regex.compile(
    rf"(?:[A-Za-z]:|(?<!{_PATH_CHAR})){_PATH_CHAR}*[\w-]\.[A-Za-z][\w]{{0,9}}(?::\d+(?::\d+)?|\(\d+,\d+\))"
    r"|File \"[^\"]++\", line \d+"
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


# Input caps: what the summarizers scan of one output, and of one line. The full output is saved as it
# came (store.save); the summary says what was not scanned.
MAX_SCAN_HEAD = 600_000
MAX_SCAN_TAIL = 400_000
MAX_SCAN_HEAD_LINES = 12_000
MAX_SCAN_TAIL_LINES = 8_000
MAX_LINE = 4_000
_CUT = " …["
_CUT_END = " chars cut]"


def bounded(
    text: str,
    head: int = MAX_SCAN_HEAD,
    tail: int = MAX_SCAN_TAIL,
    head_lines: int = MAX_SCAN_HEAD_LINES,
    tail_lines: int = MAX_SCAN_TAIL_LINES,
) -> tuple[str, int, int]:
    """``(window, lines, chars)``: ``text`` when it is short, else its head (at most ``head`` characters and
    ``head_lines`` lines) and tail (``tail`` characters, ``tail_lines`` lines), cut at line ends, with how
    many lines and characters of the middle were left out (found and counted in C: no pattern sees them)."""
    if len(text) <= head + tail and text.count("\n", 0, head + tail) <= head_lines + tail_lines:
        return text, 0, 0
    start = len(text)
    end = 0
    if len(text) > head + tail:  # a head that ends at a line end when one is near
        start = text.rfind("\n", head // 2, head) + 1 or head
        cut = text.find("\n", len(text) - tail, len(text) - tail // 2)
        end = len(text) - tail if cut < 0 else cut + 1
    at = -1
    for _ in range(head_lines):  # after the head_lines-th line end: a few thousand finds, each in C
        at = text.find("\n", at + 1, start)
        if at < 0:
            break
    else:
        start = at + 1
    at = len(text) - 1  # a final line end closes the last line; it does not start one
    for _ in range(tail_lines):
        at = text.rfind("\n", end, at)
        if at < 0:
            break
    else:
        end = at + 1
    if start >= end:
        return text, 0, 0
    return text[:start] + text[end:], text.count("\n", start, end), end - start


def cap_line(line: str, width: int = MAX_LINE) -> str:
    """One line cut to ``width`` characters before any pattern sees it, saying how much was cut."""
    return line if len(line) <= width else f"{line[:width]}{_CUT}{len(line) - width}{_CUT_END}"


def clean_lines(text: str) -> list[str]:
    """Lines without terminal colour codes or carriage-return progress redraws, each at most ``MAX_LINE``
    characters (plus the cut marker)."""
    return [cap_line(ANSI.sub("", line)) for line in text.splitlines()]  # ANSI is linear; the window bounds it


def is_signal(line: str) -> bool:
    """A line a reader must not lose: a failure, a warning, a location or a summary."""
    return bool(FAILURE.search(line) or WARNING.search(line) or LOCATION.search(line) or SUMMARY.search(line))


def clip(line: str, width: int = 400) -> str:
    """One line at most ``width`` characters (minified or base64 lines are the usual offenders); a line
    ``cap_line`` cut already counts what it lost there too."""
    if len(line) <= width:
        return line
    earlier = 0
    if line.endswith(_CUT_END):
        kept, cut, count = line.rpartition(_CUT)
        number = count[: -len(_CUT_END)]
        if cut and number.isdigit():
            line, earlier = kept, int(number)
    return f"{line[:width]}{_CUT}{len(line) - width + earlier}{_CUT_END}"


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
