"""Likely conflicts between entries with different titles: same kind and scope, a shared subject, and a
newer text that says it replaces something ("switch to", "no longer", "instead", 改用, 不再 ...).

Folding catches rewordings and supersede catches the same title; this catches "Use JWT for auth
sessions" followed by "Switch auth sessions to opaque tokens", which neither would.

Without a cue, one shape is still a replacement: the same subject frame with another value. "Logs are
structured JSON" after "Logs are plain text lines": both titles start with the same words up to a slot word
("are", "use", "in", "with", 使用, 是 ...), then give different short values for that slot. Complementary
facts do not have that shape: "Logs are shipped to Loki" opens a new predicate after the frame (a
participle and its preposition), and "Service A ..." / "Service B ..." differ before any slot. A value is
counted in content words: "next to the code they test" is three of them, a place like "in the tests folder".

A newer text may also name what it drops: "Drop GraphQL in favour of REST", "instead of float", "stop using
Redis", 弃用 Jenkins (a prohibition, "never use float", states a rule, not a replacement). The dropped thing
(the first content word after such a phrase) appearing in an older title of the same kind and scope
("Expose the API through GraphQL") is a conflict, however little else the two texts share.

Those are certain enough to supersede; so is a cue in a newer text about the same subject (``subject_of``:
the title's first content words). Short of that, a pair is a *possible* conflict (``possible_conflict``)
when the titles are about the same subject or share most of their words ("Share links never expire",
then "Share links expire after 30 days"): the writer queues it for review, both stay active, and ranking
puts the newer one first. A translation (one title Chinese) and a refinement (one title's words inside
the other's) are neither.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import compile as re_compile

from .similarity import jaccard
from .terms import STOPWORDS, subject_of, tokens

_CUES = re_compile(
    r"\b(?:switch(?:ed|es|ing)?(?: \w+){0,3} (?:to|from)|instead|no longer|not anymore|any ?more"
    r"|replac(?:e|ed|es|ing)|rather than|now (?:use|uses|we use)|stop(?:ped)? using|don'?t use|do not use"
    r"|never use|migrat(?:e|ed|es|ing) (?:to|from|away)|deprecat\w*|move[ds]? (?:to|away from)|supersed\w*"
    r"|drop(?:ped|s)? \w+ (?:for|in favou?r of)|in favou?r of)\b"
    r"|改用|不再|替换|换成|改为|弃用|废弃|不要用|别用|取代|代替",
    regex.IGNORECASE,
)
# Phrases followed by what the text drops: their first content word is the dropped thing.
_DROPS = re_compile(
    r"\b(?:instead of|rather than|no longer use[sd]?|stop(?:ped)? using"
    r"|drop(?:ped|s)?(?= \S+ (?:for|in favou?r of)\b)|replac(?:e|es|ing)(?! by)|switch(?:ed|es|ing)? (?:away )?from"
    r"|(?:migrat|mov)(?:e|ed|es|ing) away from|deprecat(?:e|ed|es|ing))"
    r"\s+(?:(?:the|a|an|our|any|all)\s+)?([a-z0-9][\w.+-]*)"
    r"|(?:弃用|不再使用|不再用|放弃|停用)\s*([a-z][\w.+-]*|[\u3400-\u9fff]{2})",
    regex.IGNORECASE,
)
TITLE_SIMILARITY = 0.25
TEXT_SIMILARITY = 0.3
NAMED_SHARE = 0.5  # the newer text names at least half of the older title's terms ("instead of RabbitMQ")
KINDS = frozenset({"decision", "constraint", "convention", "preference", "lesson"})


def replacement_cue(text: str) -> bool:
    return bool(_CUES.search(text))


def dropped_terms(text: str) -> frozenset[str]:
    """Index terms of what ``text`` says it drops ("instead of float" -> float; 弃用 Jenkins -> jenkins)."""
    out: set[str] = set()
    for match in _DROPS.finditer(text):
        word = match.group(1) or match.group(2)
        terms = tokens(word)
        if _CJK.match(word):
            out.update(t for t in terms if len(t) == 2)  # a bigram: one character alone says too little
        else:
            out.update(terms[:1])
    return frozenset(out)


_CJK = re_compile("[\u3400-\u9fff]")
# Words after which a title gives its value: the frame ends there ("logs are | JSON", "store timestamps in | UTC").
SLOT_WORDS = frozenset(
    [
        "is",
        "are",
        "be",
        "use",
        "uses",
        "used",
        "in",
        "on",
        "with",
        "as",
        "to",
        "from",
        "via",
        "by",
        "at",
        "every",
        "within",
        "run",
        "runs",
        "live",
        "lives",
        "come",
        "comes",
    ]
)
SLOT_CHARS = frozenset("用是为在于从以成")
PREPOSITIONS = frozenset(["to", "for", "in", "on", "into", "by", "with", "from", "at", "via", "through"])
MAX_VALUE_WORDS = 4  # a value is short; a longer rest is a statement of its own
MAX_VALUE_CHARS = 8
_UNIT = re_compile("[\u3400-\u9fff]|[a-z0-9]+")


class Features:
    """What the conflict check reads of one entry, computed once (a write compares with many entries).

    Immutable. A plain class rather than a frozen dataclass: the inject hook resolves conflicts in a fresh
    process, and dataclasses (with inspect) costs it ~5 ms of imports.
    """

    __slots__ = (
        "cjk_title",
        "cue",
        "dropped",
        "head",
        "latin_title_terms",
        "subject",
        "terms",
        "title_terms",
        "title_units",
    )
    title_terms: frozenset[str]
    terms: frozenset[str]
    latin_title_terms: frozenset[str]
    cjk_title: bool
    cue: bool
    title_units: tuple[str, ...]
    head: tuple[str, ...]  # the first two title units: a frame needs them equal (a cheap first check)
    dropped: frozenset[str]  # what the text says it drops (``dropped_terms``)
    subject: tuple[str, ...]  # what the title is about (``terms.subject_of``)

    def __init__(
        self,
        *,
        title_terms: frozenset[str],
        terms: frozenset[str],
        latin_title_terms: frozenset[str],
        cjk_title: bool,
        cue: bool,
        title_units: tuple[str, ...] = (),
        head: tuple[str, ...] = (),
        dropped: frozenset[str] = frozenset(),
        subject: tuple[str, ...] = (),
    ) -> None:
        values = (title_terms, terms, latin_title_terms, cjk_title, cue, title_units, head, dropped, subject)
        for name, value in zip(_FEATURE_FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Features is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Features):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _FEATURE_FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _FEATURE_FIELDS))

    def __repr__(self) -> str:
        return "Features(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _FEATURE_FIELDS) + ")"


_FEATURE_FIELDS = (
    "title_terms",
    "terms",
    "latin_title_terms",
    "cjk_title",
    "cue",
    "title_units",
    "head",
    "dropped",
    "subject",
)


def features(title: str, body: str) -> Features:
    title_terms = frozenset(tokens(title))
    return Features(
        title_terms=title_terms,
        terms=frozenset(tokens(f"{title} {body}")),
        latin_title_terms=frozenset(t for t in title_terms if t.isascii()),
        cjk_title=bool(_CJK.search(title)),
        cue=replacement_cue(f"{title}\n{body}"),
        title_units=(units := tuple(_UNIT.findall(title.lower()))),
        head=units[:2],
        dropped=dropped_terms(f"{title}\n{body}"),
        subject=subject_of(title),
    )


def frame_prefix(f: Features) -> str | None:
    """How a title sharing ``f``'s first two units starts (lower case): a string test that spares a write
    the features of every other entry of its kind and scope (``other_value`` needs those two units equal)."""
    if len(f.head) < 2:
        return None
    joiner = "" if all(_CJK.match(u) for u in f.head) else " "
    return joiner.join(f.head)


def _is_value(rest: tuple[str, ...]) -> bool:
    """Whether what follows the frame is a short value, not a new predicate ("shipped to Loki")."""
    cjk = bool(_CJK.match(rest[0]))
    size = len(rest) if cjk else sum(1 for unit in rest if unit not in STOPWORDS)
    if size > (MAX_VALUE_CHARS if cjk else MAX_VALUE_WORDS):
        return False
    participle = rest[0].endswith(("ed", "en", "ing"))
    return not (participle and len(rest) > 1 and rest[1] in PREPOSITIONS)


def other_value(new: Features, old: Features) -> bool:
    """The same subject frame with a different value (see the module docstring)."""
    if new.head != old.head:
        return False  # a write compares with every entry of its kind and scope: most differ at once
    a, b = new.title_units, old.title_units
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    if shared < 2 or shared >= len(a) or shared >= len(b):
        return False  # no common frame, or one title is the other with words added (folding's business)
    slot = a[shared - 1]
    if slot not in SLOT_WORDS and slot not in SLOT_CHARS:
        return False
    rest_a, rest_b = a[shared:], b[shared:]
    if set(rest_a) <= set(rest_b) or set(rest_b) <= set(rest_a):
        return False
    return _is_value(rest_a) and _is_value(rest_b)


def conflicts(new: Features, old: Features) -> bool:
    """Whether the newer entry probably replaces the older one (callers check kind and scope first).

    With a replacement cue in the newer text: the titles overlap, the texts overlap, or the newer text
    names most of the older title. Without a cue nothing is a conflict: "Service A must answer within
    100 ms" and "Service B must answer within 200 ms" share most words and are both true. One title in
    Chinese and the other not, naming the same things, is the same rule in two languages: no conflict.
    Without a cue, only the same subject frame with another value (``other_value``) is a conflict. A newer
    text that names a term of the older title as what it drops (``dropped_terms``) conflicts with it.
    """
    if new.cjk_title != old.cjk_title:
        a, b = new.latin_title_terms, old.latin_title_terms
        if a and b and (a <= b or b <= a):
            return False
    if new.dropped & old.title_terms:
        return True
    if not new.cue:
        return other_value(new, old)
    if new.subject and new.subject == old.subject and not _translation_or_refinement(new, old):
        return True
    if jaccard(set(new.title_terms), set(old.title_terms)) >= TITLE_SIMILARITY:
        return True
    if old.title_terms and len(old.title_terms & new.terms) / len(old.title_terms) >= NAMED_SHARE:
        return True
    return jaccard(set(new.terms), set(old.terms)) >= TEXT_SIMILARITY


SHARED_TITLE = 0.5  # a possible conflict: the titles share at least this share of the shorter one's terms


def _translation_or_refinement(new: Features, old: Features) -> bool:
    if new.cjk_title != old.cjk_title:
        return True  # one title Chinese, the other not: the same rule in two languages, as a rule
    a, b = new.title_terms, old.title_terms
    return a <= b or b <= a  # one title is the other with words added: folding's business


def possible_conflict(new: Features, old: Features) -> bool:
    """Whether the newer entry may replace the older one, short of ``conflicts`` (callers check kind and
    scope, and ``conflicts`` first): the titles are about the same subject (``subject_of``), or share at least
    two terms and half of the shorter title's; not a translation, not a refinement. Worth a review, not
    certain: "Logs are shipped to Loki" and "Logs are kept for 30 days" are both true."""
    if _translation_or_refinement(new, old):
        return False
    if new.subject and new.subject == old.subject:
        return True
    shared = len(new.title_terms & old.title_terms)
    return shared >= 2 and shared >= SHARED_TITLE * min(len(new.title_terms), len(old.title_terms))


def likely_conflict(new_title: str, new_body: str, old_title: str, old_body: str) -> bool:
    """``conflicts`` of two texts."""
    return conflicts(features(new_title, new_body), features(old_title, old_body))
