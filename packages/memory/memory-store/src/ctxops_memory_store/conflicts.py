"""Likely conflicts between entries with different titles: same kind and scope, a shared subject, and a
newer text that says it replaces something ("switch to", "no longer", "instead", 改用, 不再 ...).

Folding catches rewordings and supersede catches the same title; this catches "Use JWT for auth
sessions" followed by "Switch auth sessions to opaque tokens", which neither would.
"""

from __future__ import annotations

import re

from .similarity import jaccard
from .terms import tokens

_CUES = re.compile(
    r"\b(?:switch(?:ed|es|ing)?(?: \w+){0,3} (?:to|from)|instead|no longer|not anymore|any ?more"
    r"|replac(?:e|ed|es|ing)|rather than|now (?:use|uses|we use)|stop(?:ped)? using|don'?t use|do not use"
    r"|never use|migrat(?:e|ed|es|ing) (?:to|from|away)|deprecat\w*|move[ds]? (?:to|away from)|supersed\w*"
    r"|drop(?:ped|s)? \w+ (?:for|in favou?r of)|in favou?r of)\b"
    r"|改用|不再|替换|换成|改为|弃用|废弃|不要用|别用|取代|代替",
    re.IGNORECASE,
)
TITLE_SIMILARITY = 0.25
TEXT_SIMILARITY = 0.3
NAMED_SHARE = 0.5  # the newer text names at least half of the older title's terms ("instead of RabbitMQ")
KINDS = frozenset({"decision", "constraint", "convention", "preference", "lesson"})


def replacement_cue(text: str) -> bool:
    return bool(_CUES.search(text))


def _has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def _translation(new_title: str, old_title: str, new_terms: set[str], old_terms: set[str]) -> bool:
    """One title in Chinese, the other not, naming the same things: the same rule in two languages agrees."""
    if _has_cjk(new_title) == _has_cjk(old_title):
        return False
    new_latin = {t for t in new_terms if t.isascii()}
    old_latin = {t for t in old_terms if t.isascii()}
    return bool(new_latin) and bool(old_latin) and (new_latin <= old_latin or old_latin <= new_latin)


def likely_conflict(new_title: str, new_body: str, old_title: str, old_body: str) -> bool:
    """Whether the newer text probably replaces the older one (callers check kind and scope first).

    With a replacement cue: the titles overlap, the texts overlap, or the newer text names most of the
    older title. Without a cue nothing is a conflict: "Service A must answer within 100 ms" and "Service B
    must answer within 200 ms" share most words and are both true.
    """
    new_title_terms, old_title_terms = set(tokens(new_title)), set(tokens(old_title))
    if _translation(new_title, old_title, new_title_terms, old_title_terms):
        return False
    title_similarity = jaccard(new_title_terms, old_title_terms)
    if not replacement_cue(f"{new_title}\n{new_body}"):
        return False
    if title_similarity >= TITLE_SIMILARITY:
        return True
    new_terms = set(tokens(f"{new_title} {new_body}"))
    if old_title_terms and len(old_title_terms & new_terms) / len(old_title_terms) >= NAMED_SHARE:
        return True
    return jaccard(new_terms, set(tokens(f"{old_title} {old_body}"))) >= TEXT_SIMILARITY
