"""Text hygiene for captured events: binary stripped, progress noise dropped, length capped."""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_contracts.shared.regex import lazy

# Control characters other than tab and newline; NUL and friends mark binary data.
_CONTROL = re_compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# CSI and OSC sequences (an OSC ends at BEL or ST; an ESC inside ends the scan, so a run of unterminated
# openers is not rescanned from each one: linear time, docs/security.md promise 2).
_ANSI = re_compile(r"\x1b\[[0-9;?]*+[ -/]*+[@-~]|\x1b\][^\x07\x1b]*+(?:\x07|\x1b\\)")
# A progress line. Linear on any line, and the same lines as `\s*[\[(|]?BAR{6,}[\])|]?\s*NN%` where BAR
# includes the space: a bar after an opener; a bar from the first of the spaces that end the indent (the
# indent up to its last other blank taken first); a bar of spaces only (looked for ahead, lazily, from
# the start only). Each part is possessive: nothing after a bar or a number could use what it gave back.
_BAR = r"[=#>\-.\u2588-\u258f\u2591-\u2593 ]{6,}+"
_PERCENT = r"\s*+\d{1,3}(?:\.\d+)?%.*"
_PROGRESS = lazy(
    r"^(?:"
    rf"(?:\s*+[\[(|]{_BAR}|(?:[ ]*+[^\S ])*+{_BAR})[\])|]?+{_PERCENT}"  # [=====>   ] 45%
    rf"|(?=\s*?[ ]{{6}}){_PERCENT}|(?=\s*?[ ]{{6}}[\])|])\s*+[\])|]{_PERCENT}"  # a bar of spaces
    r"|\s*+\d{1,3}(?:\.\d+)?%\s*+\|[^|]*+\|.*"  # 45%|█████     | 12/30 (tqdm)
    r"|\s*+[⠁-⣿◐◓◑◒|/\\-]\s.{0,80}\.\.\.\s*"  # spinners
    r")$"
)
_BINARY_RATIO = 0.1


def is_binary(text: str) -> bool:
    """True when more than a tenth of a sample is control characters or replacement marks."""
    sample = text[:4096]
    if not sample:
        return False
    bad = len(_CONTROL.findall(sample)) + sample.count("\ufffd")
    return bad / len(sample) > _BINARY_RATIO


def clean(text: str) -> str:
    """Drop ANSI codes, carriage-return redraws, progress bars and repeated lines; mark binary data."""
    if not text:
        return text
    if is_binary(text):
        return f"[binary data, {len(text)} characters omitted]"
    text = _ANSI.sub("", text)
    out: list[str] = []
    repeats = 0
    for raw_line in text.split("\n"):
        line = raw_line.rsplit("\r", 1)[-1] if "\r" in raw_line else raw_line
        if ("%" in line or "..." in line) and _PROGRESS.match(line):  # the pattern only matches such lines
            continue
        line = _CONTROL.sub("", line)
        if out and line == out[-1] and line.strip():
            repeats += 1
            continue
        if repeats:
            out.append(f"[previous line repeated {repeats} more times]")
            repeats = 0
        out.append(line)
    if repeats:
        out.append(f"[previous line repeated {repeats} more times]")
    return "\n".join(out).strip("\n")


def cap_head(text: str, limit: int) -> str:
    """The first ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters]"


def cap_tail(text: str, limit: int) -> str:
    """The last ``limit`` characters (the end of command output is where the verdict is)."""
    if len(text) <= limit:
        return text
    return f"[{len(text) - limit} earlier characters ...]\n" + text[-limit:]


def window(text: str, limit: int, *, tail: bool = False) -> str:
    """A slice a little larger than ``limit`` taken before the costly steps (cleaning, redaction) on huge text."""
    margin = limit * 2 + 1024
    if len(text) <= margin:
        return text
    return text[-margin:] if tail else text[:margin]
