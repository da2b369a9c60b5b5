"""How a new memory relates to an older one of its kind and scope: the rules a write settles by.

``MemoryStore._settle`` folds, supersedes or queues by these rules; the fast ``ctx mem add`` (``fastadd``)
asks the same rules whether any older entry relates to the new one at all, and hands over to the full write
when one does. One definition, so the two paths cannot drift apart. Entries are anything with the fields
as attributes (``MemoryEntry``, or a plain view of a catalog entry): no msgspec here.
"""

from __future__ import annotations

from .conflicts import KINDS as CONFLICT_KINDS
from .conflicts import conflicts, frame_prefix, possible_conflict
from .similarity import anchors, near_duplicate, normalize, polarity

TYPE_CHECKING = False  # typing is not imported on the fast add's path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .conflicts import Features

FOLD_THRESHOLD = 0.6  # shingle similarity at which a near-duplicate folds (``[memory] fold_threshold``)
QUICK_BUCKET = 1000  # a quick write compares with every active entry of its kind and scope up to this many
QUICK_TOP = 300  # past that: those with its title, and this many sharing its rarest terms best

NEAR = "near"  # a near-duplicate: folded (or folded into a pinned one)
SAME_SUBJECT = "same-subject"  # the same normalised title, kind and scope: superseded
CONFLICT = "conflict"  # a likely conflict: superseded, or the new one queued for review
POSSIBLE = "possible"  # a possible conflict: both stay, the new one names it for review


def speaker(entry: Any) -> str:
    """Whose words an entry holds (its ``speaker:`` tag), or ""."""
    return next((t for t in entry.tags if t.startswith("speaker:")), "")


def comparable(new: Any, old: Any) -> bool:
    """Whether ``old`` is compared with ``new`` at all: another active entry of its kind and scope, in the
    same person's words (entries about different code, or one person's words and another's, never settle)."""
    if old.id == new.id or old.status != "active" or old.kind != new.kind:
        return False
    if sorted(old.scope) != sorted(new.scope):
        return False
    return speaker(old) == speaker(new)


class Rules:
    """The new entry's side of the comparison, computed once; ``relation`` for each older entry."""

    def __init__(
        self,
        new: Any,
        *,
        fold_threshold: float,
        shingles_of: Callable[[Any], set[str]],
        features_of: Callable[[Any], Features],
        title_key: Callable[[str], tuple[tuple[str, ...], frozenset[str]]],
        normal_title: Callable[[str], str] = normalize,
        vector_near: Callable[[Any], bool] | None = None,
    ) -> None:
        self.new = new
        self.fold_threshold = fold_threshold
        self.shingles_of, self.features_of, self.title_key = shingles_of, features_of, title_key
        self.normal_title = normal_title
        self.vector_near = vector_near
        self.new_shingles = shingles_of(new)
        self.new_features = features_of(new)
        self.prefix = frame_prefix(self.new_features)  # a cue-less conflict needs a title that starts alike
        self.mine = title_key(new.title)
        self.subject = (new.kind, normalize(new.title), tuple(sorted(new.scope)))
        self.text = f"{new.title} {new.body}"

    def relation(self, old: Any) -> str | None:
        """``NEAR``, ``SAME_SUBJECT``, ``CONFLICT``, ``POSSIBLE`` or None, for a ``comparable`` older entry."""
        new = self.new
        near = near_duplicate(self.new_shingles, self.shingles_of(old), self.fold_threshold)
        near = near or (self.vector_near is not None and self.vector_near(old))
        old_text = f"{old.title} {old.body}"
        if near and anchors(self.text) != anchors(old_text):
            near = False  # other numbers, names or paths: a look-alike fact, never folded (issue 23)
        if near and polarity(self.text) != polarity(old_text):
            near = False  # one says "never": the same words with the opposite meaning
        if near:
            return NEAR
        if (old.kind, self.normal_title(old.title), tuple(sorted(old.scope))) == self.subject:
            return SAME_SUBJECT
        if new.kind not in CONFLICT_KINDS:
            return None
        cued = self.new_features.cue or self.new_features.dropped
        if (cued or (self.prefix is not None and old.title.lower().startswith(self.prefix))) and conflicts(
            self.new_features, self.features_of(old)
        ):
            return CONFLICT
        if self._maybe_same_subject(old.title) and possible_conflict(self.new_features, self.features_of(old)):
            return POSSIBLE
        return None

    def _maybe_same_subject(self, title: str) -> bool:
        """A string-level first look for ``possible_conflict``: the same subject, or two shared title terms
        (spares a write the features of every other entry of its kind and scope)."""
        subject, terms = self.title_key(title)
        return bool(self.mine[0] and self.mine[0] == subject) or len(self.mine[1] & terms) >= 2
