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
KINDS = frozenset({"decision", "constraint", "convention", "preference", "lesson"})


def replacement_cue(text: str) -> bool:
    return bool(_CUES.search(text))


def likely_conflict(new_title: str, new_body: str, old_title: str, old_body: str) -> bool:
    """Whether the newer text probably replaces the older one (callers check kind and scope first)."""
    if not replacement_cue(f"{new_title}\n{new_body}"):
        return False
    if jaccard(set(tokens(new_title)), set(tokens(old_title))) >= TITLE_SIMILARITY:
        return True
    return jaccard(set(tokens(f"{new_title} {new_body}")), set(tokens(f"{old_title} {old_body}"))) >= TEXT_SIMILARITY
