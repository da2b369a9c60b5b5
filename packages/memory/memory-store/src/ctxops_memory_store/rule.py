# Full-width Chinese punctuation is the data here.
"""The rule a user's correction states, in the user's own words, and sentence-boundary cuts.

A correction ("No, that's wrong: never edit files under gen/ by hand, they are generated. Change
api/schema.yaml and run make gen instead.") becomes a lesson whose text is the rule and what to do instead:
the user's sentences, less the openers that only say "no" ("No,", "that's wrong:", "不对，"), less questions
and thanks, never cut inside a sentence. Deterministic: no model call.

Also used on the hook path (``ctxops_memory_inject.build``): no ``re`` import at module top, patterns come
from ``ctxops_contracts.shared.regex`` (compiled once per machine), every pattern anchored and linear.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import lazy

RULE_CHARS = 600  # a lesson's rule: whole sentences up to this many characters (the first one always whole)
_ASCII_END = ".!?"
_WIDE_END = "。！？；"
_CLOSERS = "\"')]}»”’」』）"

# An opener that only negates ("No,", "Nope.", "That's wrong:", "Wait -", "不对，", "错了。"): stripped from the
# start of a sentence, repeatedly. An English opener needs punctuation after it ("No tabs in Makefiles" keeps
# its "No"); the sentence it leaves must carry words.
_EN_OPENER = lazy(
    r"^(?:no(?:pe)?|nah|wrong|incorrect|stop|wait|hold on|hmm+|ugh|oops|sorry|actually|careful"
    r"|nein|non|falsch|das ist (?:falsch|nicht richtig)|c'est faux|ce n'est pas (?:ça|ca|correct)|incorrecto|eso no"
    r"|not (?:like )?(?:that|this|quite)(?: way)?"
    r"|(?:that|this|it)(?:'s| is| was) (?:not (?:right|correct|it|ok(?:ay)?|what i (?:asked|wanted|meant)(?: for)?)"
    r"|wrong|incorrect|a mistake|broken)"
    r"|you (?:got it wrong|misunderstood(?: me)?))"
    r"\s*(?:[,.!;:]|--?|—|–)+\s*",
    regex.IGNORECASE,
)
_ZH_OPENER = lazy(
    r"^(?:不对|不是这样(?:的)?|不是这个|错了|搞错了|弄错了|你错了|你理解错了|不行|停|停下|等一下|等等|其实|不)"
    r"(?:啊|呀|吧|的)?\s*[，,。.！!：:；;、\s]+"
)
# Sentences that carry no rule: thanks, a bare complaint ("Wrong file."); questions are dropped in rule_of.
_NOISE = lazy(
    r"^(?:thanks?(?: you)?|thx|please|ok(?:ay)?|谢谢|好的|麻烦了"
    r"|(?:wrong|not the right|the wrong) (?:file|approach|function|place|module|directory|folder|command|branch|one)"
    r"|(?:you|this) (?:broke|breaks) (?:it|the build|everything))\W*$",
    regex.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """``text`` split into sentences: after ``.!?`` followed by a space or the end (so ``api/schema.yaml``
    and ``e.g.x`` stay whole), after a full-width ``。！？；``, and at line breaks; whitespace folded."""
    out: list[str] = []
    for raw_line in text.splitlines():
        line = " ".join(raw_line.split())
        start, n = 0, len(line)
        i = 0
        while i < n:
            ch = line[i]
            end = -1
            if ch in _WIDE_END:
                end = i + 1
                while end < n and (line[end] in _WIDE_END or line[end] in _CLOSERS):
                    end += 1
            elif ch in _ASCII_END:
                j = i + 1
                while j < n and (line[j] in _ASCII_END or line[j] in _CLOSERS):
                    j += 1
                if j == n or line[j] == " ":
                    end = j
            if end == -1:
                i += 1
                continue
            piece = line[start:end].strip()
            if piece:
                out.append(piece)
            start = i = end
        tail = line[start:].strip()
        if tail:
            out.append(tail)
    return out


def strip_opener(sentence: str) -> str:
    """``sentence`` without the negating openers at its start ("No, that's wrong: x" -> "x")."""
    text = sentence.lstrip("\"'`*>- ").strip()
    for _ in range(4):  # "No, no, that's wrong: ..." - bounded
        match = _EN_OPENER.match(text) or _ZH_OPENER.match(text)
        if match is None or match.end() >= len(text):
            break
        text = text[match.end() :].lstrip()
    if text and text[0].isascii() and text[0].islower() and text != sentence:
        text = text[0].upper() + text[1:]
    return text


def _is_opener_only(sentence: str) -> bool:
    """A sentence that is nothing but an opener ("No.", "That's wrong!", "不对。")."""
    probe = sentence.strip() + " "
    match = _EN_OPENER.match(probe) or _ZH_OPENER.match(probe)
    return match is not None and not probe[match.end() :].strip()


def rule_of(text: str, limit: int = RULE_CHARS) -> str:
    """The rule a correction states: its sentences less openers, questions and thanks, whole sentences up to
    ``limit`` characters (the first kept sentence always whole). Falls back to the text itself, folded."""
    kept: list[str] = []
    size = 0
    for sentence in sentences(text):
        if _is_opener_only(sentence):
            continue
        stripped = strip_opener(sentence)
        if not stripped or _NOISE.match(stripped):
            continue
        if stripped.endswith(("?", "？")) and kept:
            continue  # "Why did you ...?" after the rule: a complaint, not the fix
        if kept and size + 1 + len(stripped) > limit:
            break
        kept.append(stripped)
        size += len(stripped) + (1 if size else 0)
    if not kept:
        return " ".join(text.split())
    return _join(kept)


def _join(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        wide = out[-1:] in _WIDE_END or "\u3000" <= out[-1:] <= "\u9fff"
        out += part if wide else " " + part
    return out


def cut_at_sentence(text: str, limit: int) -> tuple[str, bool]:
    """``text`` folded to one line and cut to whole sentences of at most ``limit`` characters; whether it was
    cut. When even the first sentence is longer, it is cut at the last word boundary before ``limit``."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat, False
    kept: list[str] = []
    size = 0
    for sentence in sentences(flat):
        extra = len(sentence) + (1 if kept else 0)
        if size + extra > limit:
            break
        kept.append(sentence)
        size += extra
    if kept:
        return _join(kept), True
    head = flat[:limit]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "…", True
