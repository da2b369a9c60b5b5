"""Ranking memories for a task: BM25 (+ vectors when on) x recency x usage x scope boost, then conflicts.

Works on the catalog's plain records (``ctxops_memory_store.catalog``), so the hook never builds ten
thousand structs. Each factor is bounded so none of them alone can bury a relevant entry:

- recency: ``0.3 + 0.7 * 0.5 ** (age / half_life)`` (pinned entries are exempt: 1.0);
- usage: ``1 + 0.1 * ln(1 + uses)``, uses = times injected or recalled (``.meta/.state``);
- scope: x1.5 when the entry's scope, files or ties match a file in play (this session's files, paths named
  in the prompt, and what core passes in from the code map); an entry tied to a file in play is a
  candidate even without a word in common with the prompt (relevance ``TIE_RELEVANCE``);
- review: x0.7 when a file the entry is tied to changed since, x0.4 when it is gone (renamed, deleted) or
  a tied symbol is (``ctxops_memory_store.ties``).

Hybrid relevance mixes the BM25 share with the min-max normalised cosine. With a multilingual embedder
(``cross_language=True``) the mix respects what each signal can see: BM25 matches words, so an entry
written in the other language than the query (Chinese entry, English query) gets no BM25 score however
relevant it is. For such an entry BM25's silence is not a vote against it, and its relevance is the
cosine share alone; same-language entries keep the mix.

With a lexical embedder (the default offline hashing embedder, ``lexical_vectors=True``) it is the other
way round: its vector holds the words BM25 indexes plus their character trigrams, so the prompt's cosine to
an entry repeats BM25 with less precision (no IDF, a prompt of a few words, fragments and hash collisions).
What such vectors do add is the similarity of two *entries*: two long texts that share their identifiers
and rare words (a rule and its Chinese translation naming the same tools, a lesson and the decision it led
to). So the vector channel's query is BM25's best hit, not the prompt (pseudo-relevance feedback): each
entry's cosine to that entry (``neighbours``) is mixed with its BM25 share, as the multilingual fusion
mixes the prompt's cosine, and a neighbour BM25 did not match may enter. The prompt's own cosine only
fills the list after these (an entry with neither a BM25 hit nor a place among the neighbours; it is all
there is when BM25 finds nothing, e.g. a misspelt prompt).
"""

from __future__ import annotations

import math
import time
from datetime import datetime

from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_memory_store import bm25
from ctxops_memory_store.similarity import jaccard
from ctxops_memory_store.terms import subject_of, tokens

# The inject hook imports this module in a fresh process on every prompt: typing, dataclasses (with inspect)
# and fnmatch (with re) are kept off that path, so the two records below are plain classes.
TYPE_CHECKING = False  # type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from ctxops_memory_store.conflicts import Features

Record = dict[str, object]
SCOPE_BOOST = 1.5
TIE_RELEVANCE = 0.7  # an entry tied to a file in play, whatever the prompt's words: x1.5 ranks it with the best match
DAY = 86_400.0
_PATHISH = re_compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")


class RankConfig:
    """Ranking settings (immutable, compared and hashed by value)."""

    __slots__ = ("half_life_days", "keep", "min_relative", "vector_weight")
    half_life_days: float
    min_relative: float
    keep: int
    vector_weight: float

    def __init__(
        self,
        half_life_days: float = 30.0,
        min_relative: float = 0.25,  # a task memory scores at least this share of the best one
        keep: int = 50,  # candidates kept after ranking (a page of them is ever shown); conflicts resolved among these
        vector_weight: float = 0.4,  # hybrid: share of the min-max normalised cosine (bench/memory_quality.py)
    ) -> None:
        object.__setattr__(self, "half_life_days", half_life_days)
        object.__setattr__(self, "min_relative", min_relative)
        object.__setattr__(self, "keep", keep)
        object.__setattr__(self, "vector_weight", vector_weight)

    def _values(self) -> tuple[float, float, int, float]:
        return (self.half_life_days, self.min_relative, self.keep, self.vector_weight)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"RankConfig is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if isinstance(other, RankConfig) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (
            f"RankConfig(half_life_days={self.half_life_days!r}, min_relative={self.min_relative!r}, "
            f"keep={self.keep!r}, vector_weight={self.vector_weight!r})"
        )


_CJK = re_compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LATIN_WORD = re_compile(r"[A-Za-z]{2,}")


def language(text: str) -> str:
    """``cjk`` or ``latin``: the script most of ``text``'s words are in (a Chinese word is ~2 characters)."""
    cjk = len(_CJK.findall(text))
    return "cjk" if cjk and cjk / 2 >= len(_LATIN_WORD.findall(text)) else "latin"


def _entry_language(entry: Record) -> str:
    return language(f"{entry.get('title', '')} {entry.get('body', '')}")


class Ranked:
    """One ranked memory: its score, the relevance and factors it came from."""

    __slots__ = ("covers", "entry", "factors", "relevance", "replaces", "scope_match", "score", "seen_by_bm25")

    def __init__(  # noqa: PLR0917 - the record's fields, positional as the dataclass took them
        self,
        entry: Record,
        score: float,
        relevance: float,
        scope_match: bool,
        factors: dict[str, float] | None = None,
        seen_by_bm25: bool = True,
    ) -> None:
        self.entry = entry
        self.score = score
        self.relevance = relevance
        self.scope_match = scope_match
        self.factors: dict[str, float] = {} if factors is None else factors
        self.seen_by_bm25 = seen_by_bm25
        self.replaces: tuple[str, ...] = ()  # older active entries the conflict check says this one replaces
        self.covers: tuple[str, ...] = ()  # older entries it replaces or must rank above (it keeps their place)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ranked):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"Ranked(entry={self.entry!r}, score={self.score!r}, relevance={self.relevance!r})"


def paths_in(text: str) -> list[str]:
    """File paths named in a prompt (``api/orders.py``, ``README.md``)."""
    return list(dict.fromkeys(m.group(1).lstrip("./") for m in _PATHISH.finditer(text or "")))


def _stamp(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def born(entry: Record) -> float:
    """When the entry became valid (``valid_from``, else ``created_at``) as a UNIX time."""
    return _stamp(entry.get("valid_from")) or _stamp(entry.get("created_at")) or 0.0


def _strings(entry: Record, key: str) -> list[str]:
    value = entry.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def _glob_matches(path: str, pattern: str) -> bool:
    """``fnmatchcase(path, pattern)``; the usual scopes (``dir/**``, ``name*``, a plain path) are settled
    without importing fnmatch (and re) on the hook path."""
    stem = pattern.rstrip("*")
    if not any(c in stem for c in "*?["):
        return path.startswith(stem) if stem != pattern else path == pattern
    from fnmatch import fnmatchcase

    return fnmatchcase(path, pattern)


def tied_paths(entry: Record) -> set[str]:
    """The repository paths an entry is tied to (``ctxops_memory_store.ties``): files, and directories."""
    value = entry.get("ties")
    if not isinstance(value, list):
        return set()
    return {str(t.get("path")) for t in value[:16] if isinstance(t, dict) and isinstance(t.get("path"), str)}


def tie_match(entry: Record, files: Sequence[str]) -> bool:
    """Whether a file in play is one the entry is tied to (or lies under a directory it is tied to)."""
    tied = tied_paths(entry) | set(_strings(entry, "files"))
    if not files or not tied:
        return False
    return any(path in tied or any(path.startswith(t.rstrip("/") + "/") for t in tied) for path in files)


def scope_match(entry: Record, files: Sequence[str]) -> bool:
    """Whether a file in play falls under the entry's scope globs, is one of its files or one it is tied to."""
    if not files:
        return False
    if tie_match(entry, files):
        return True
    scope = _strings(entry, "scope")
    for path in files:
        for pattern in scope:
            prefix = pattern.rstrip("*").rstrip("/")
            if prefix and (path == prefix or path.startswith(prefix + "/")):
                return True
            if _glob_matches(path, pattern):
                return True
    return False


def recency(entry: Record, now: float, half_life_days: float) -> float:
    if entry.get("pinned") or half_life_days <= 0:
        return 1.0
    age_days = max(0.0, now - born(entry)) / DAY
    return 0.3 + 0.7 * float(0.5 ** (age_days / half_life_days))


def usage_factor(uses: float) -> float:
    return 1.0 + 0.1 * math.log1p(max(0.0, uses))


def rank(
    records: Iterable[Record],
    query: str,
    *,
    files_in_play: Sequence[str] = (),
    usage: dict[str, list[float]] | None = None,
    vector_scores: dict[str, float] | None = None,
    config: RankConfig | None = None,
    now: float | None = None,
    corpus: tuple[int, float] | None = None,
    doc_freq: dict[str, int] | None = None,
    cross_language: bool = False,
    lexical_vectors: bool = False,
    neighbours: Callable[[Record], dict[str, float]] | None = None,
    review: dict[str, float] | None = None,
) -> list[Ranked]:
    """Active entries relevant to ``query``, best first, one per subject (see ``resolve_conflicts``).

    ``records`` are catalog records (``entry``, ``terms``, ``length``); ``corpus`` (count, average length)
    when they are only the candidates of a larger set (the hook's snapshot). ``cross_language``: the
    ``vector_scores`` come from a multilingual embedder; ``lexical_vectors``: from a lexical one, whose
    ``neighbours(entry)`` gives the cosines of the entries nearest to an entry (see the module docstring).
    ``review``: a factor (< 1) per entry whose tied code changed or vanished (``ctxops_memory_store.ties``).
    An entry tied to a file in play is a candidate even when the prompt shares no word with it
    (relevance ``TIE_RELEVANCE``).
    """
    cfg = config or RankConfig()
    stamp = now or time.time()
    usage = usage or {}
    documents: dict[str, tuple[dict[str, float], float]] = {}
    entries: dict[str, Record] = {}
    for record in records:
        entry = record.get("entry")
        terms, length = record.get("terms"), record.get("length")
        if not isinstance(entry, dict) or entry.get("status") != "active":
            continue
        if isinstance(terms, dict) and isinstance(length, (int, float)):
            entry_id = str(entry.get("id"))
            documents[entry_id] = (terms, float(length))
            entries[entry_id] = entry
    lexical = dict(bm25.rank(documents, tokens(query), corpus=corpus, doc_freq=doc_freq))
    led: set[str] | None = None  # with a lexical embedder: entries found on lexical evidence (the rest follow)
    if lexical_vectors:
        relevance, led = _lexical_fusion(lexical, vector_scores or {}, entries, cfg, neighbours)
    else:
        query_language = language(query) if cross_language else None
        relevance = fuse(lexical, vector_scores or {}, entries, cfg, query_language)
    if files_in_play:
        for entry_id, entry in entries.items():
            if relevance.get(entry_id, 0.0) < TIE_RELEVANCE and tie_match(entry, files_in_play):
                relevance[entry_id] = TIE_RELEVANCE  # the memory speaks of a file the session is working on
    review = review or {}
    ranked = []
    for entry_id, rel in relevance.items():
        if rel <= 0:
            continue
        entry = entries[entry_id]
        matched = scope_match(entry, files_in_play)
        factors = {
            "relevance": rel,
            "recency": recency(entry, stamp, cfg.half_life_days),
            "usage": usage_factor(usage.get(entry_id, [0, 0])[0]),
            "scope": SCOPE_BOOST if matched else 1.0,
            "review": review.get(entry_id, 1.0),
        }
        score = math.prod(factors.values())
        ranked.append(Ranked(entry, score, rel, matched, factors, seen_by_bm25=entry_id in lexical))
    # A lexical embedder's cosine to the prompt alone is weak evidence: such entries follow the others.
    ranked.sort(key=lambda r: (led is not None and str(r.entry.get("id")) not in led, -r.score, str(r.entry.get("id"))))
    if ranked:
        # Conflicts are resolved before the floor: a newer entry below it that replaces (or must rank above)
        # one over it takes that place instead of leaving the stale one alone in the list.
        floor = ranked[0].score * cfg.min_relative
        scores = {str(r.entry.get("id")): r.score for r in ranked[: cfg.keep]}
        resolved = resolve_conflicts(ranked[: cfg.keep])
        return [r for r in resolved if r.score >= floor or any(scores.get(i, 0.0) >= floor for i in r.covers)]
    return ranked


def fuse(
    lexical: dict[str, float],
    vector_scores: dict[str, float],
    entries: dict[str, Record],
    cfg: RankConfig,
    query_language: str | None,
) -> dict[str, float]:
    """Relevance on [0, 1] per entry from its BM25 score and its cosine (when vectors are on)."""
    top = max(lexical.values(), default=0.0)
    relevance = {entry_id: (score / top if top else 0.0) for entry_id, score in lexical.items()}
    if not vector_scores:
        return relevance
    # Both signals on [0, 1] before they are mixed: BM25 over the best hit, cosine min-max over the
    # active entries (embedders differ in range: e5's cosines sit between 0.7 and 0.9, hashing's near 0).
    weight = cfg.vector_weight
    known = {i: s for i, s in vector_scores.items() if i in entries}
    low, high = min(known.values(), default=0.0), max(known.values(), default=0.0)
    spread = (high - low) or 1.0
    for entry_id, cosine in known.items():
        semantic = (cosine - low) / spread
        if query_language and _entry_language(entries[entry_id]) != query_language:
            relevance[entry_id] = semantic  # BM25 cannot see across languages: only the cosine speaks
        else:
            relevance[entry_id] = (1 - weight) * relevance.get(entry_id, 0.0) + weight * semantic
    return relevance


def _lexical_fusion(
    lexical: dict[str, float],
    vector_scores: dict[str, float],
    entries: dict[str, Record],
    cfg: RankConfig,
    neighbours: Callable[[Record], dict[str, float]] | None,
) -> tuple[dict[str, float], set[str]]:
    """Relevance with a lexical embedder (see the module docstring), and the entries it found on lexical
    evidence: BM25's hits and the neighbours of its best hit. The rest get the prompt's cosine share, only
    to fill the list after those."""
    top = max(lexical.values(), default=0.0)
    relevance = {entry_id: (score / top if top else 0.0) for entry_id, score in lexical.items()}
    near: dict[str, float] = {}
    if lexical and neighbours is not None:
        best = min(lexical, key=lambda i: (-lexical[i], i))
        near = {i: s for i, s in neighbours(entries[best]).items() if i in entries}
    weight = cfg.vector_weight
    if near:
        low, high = min(near.values()), max(near.values())
        spread = (high - low) or 1.0
        for entry_id in relevance.keys() | near.keys():
            semantic = (near[entry_id] - low) / spread if entry_id in near else 0.0
            relevance[entry_id] = (1 - weight) * relevance.get(entry_id, 0.0) + weight * semantic
    led = set(relevance)
    known = {i: s for i, s in vector_scores.items() if i in entries}
    if known:
        low, high = min(known.values()), max(known.values())
        spread = (high - low) or 1.0
        for entry_id, cosine in known.items():
            if entry_id not in led:
                relevance[entry_id] = weight * (cosine - low) / spread
    return relevance, led


def _subject(entry: Record) -> tuple[object, list[str], set[str], str]:
    title_terms = set(tokens(str(entry.get("title", ""))))
    who = _speaker(entry)
    if entry.get("kind") == "fact":
        # Facts are observations: two with other names or numbers ("adopted a dog named Pepper", "adopted a
        # cat named Olive") are both true, never one subject. (A decision's new value replaces the old one.)
        from ctxops_memory_store.similarity import anchors

        who += "\x1f" + "\x1f".join(sorted(anchors(f"{entry.get('title', '')} {entry.get('body', '')}")))
    return entry.get("kind"), sorted(_strings(entry, "scope")), title_terms, who


def same_subject(a: Record, b: Record) -> bool:
    """Two active entries of one kind and scope whose titles say nearly the same thing."""
    return _same(_subject(a), _subject(b))


def _same(a: tuple[object, list[str], set[str], str], b: tuple[object, list[str], set[str], str]) -> bool:
    return a[0] == b[0] and a[1] == b[1] and a[3] == b[3] and jaccard(a[2], b[2]) >= 0.5


def resolve_conflicts(ranked: list[Ranked]) -> list[Ranked]:
    """One entry per subject: the one whose scope matches the files in play, then the latest ``valid_from``.

    Then no stale entry outranks its replacement: two active entries the write-time check would call a
    conflict (``ctxops_memory_store.conflicts``: same kind and scope, a cue or the same subject frame with
    another value) both stay active when they arrived out of order (a merge of two branches, a hand-edited
    file, a store older than the rule). The newer one takes the older one's place; the older one goes.

    Last, an older entry on the same subject as a newer one (same kind and scope, the same ``subject_of``
    title: "Share links never expire", then "Share links expire after 30 days"; or named by the newer one
    as a possible replacement queued for review) is never placed above it. The write-time check must not
    supersede on so little (complementary facts share subjects too), but an order costs little to get
    wrong: both entries stay, the newer first.
    """
    kept: list[Ranked] = []
    subjects: dict[int, tuple[object, list[str], set[str], str]] = {}
    for candidate in ranked:
        subjects[id(candidate)] = subject = _subject(candidate.entry)
        rival = next((k for k in kept if _same(subjects[id(k)], subject)), None)
        if rival is None:
            kept.append(candidate)
            continue
        better = (candidate.scope_match, born(candidate.entry)) > (rival.scope_match, born(rival.entry))
        if better:
            candidate.covers = (*candidate.covers, str(rival.entry.get("id")), *rival.covers)
            kept[kept.index(rival)] = candidate
    return _newer_first(_replaced_by_newer(kept))


MAY_REPLACE = "may-replace:"  # memory-store's tag of a possible replacement queued for review


def _speaker(entry: Record) -> str:
    """Whose words a memory holds (its ``speaker:`` tag): one person's newer fact never replaces another's."""
    return next((t for t in _strings(entry, "tags") if t.startswith("speaker:")), "")


def _newer_first(kept: list[Ranked]) -> list[Ranked]:
    """Sink an older entry below a newer one on the same subject: same kind and scope and the same
    ``subject_of`` title ("Share links never expire", then "Share links expire after 30 days"), or named by
    the newer one as a possible replacement (``may-replace:ID``: queued for review at write time)."""
    groups: dict[object, list[int]] = {}
    by_id: dict[str, int] = {}
    for n, candidate in enumerate(kept):
        entry = candidate.entry
        by_id[str(entry.get("id"))] = n
        subject = subject_of(str(entry.get("title", "")))
        if subject:
            key = (entry.get("kind"), tuple(sorted(_strings(entry, "scope"))), _speaker(entry), subject)
            groups.setdefault(key, []).append(n)
    group_of = list(range(len(kept)))  # union-find over positions: a group is a set of entries on one subject

    def find(n: int) -> int:
        while group_of[n] != n:
            group_of[n] = group_of[group_of[n]]
            n = group_of[n]
        return n

    linked = False
    for members in groups.values():
        for n in members[1:]:
            group_of[find(n)] = find(members[0])
            linked = True
    for n, candidate in enumerate(kept):
        for tag in _strings(candidate.entry, "tags"):
            other = by_id.get(tag[len(MAY_REPLACE) :]) if tag.startswith(MAY_REPLACE) else None
            if other is not None and kept[other].entry.get("kind") == candidate.entry.get("kind"):
                group_of[find(other)] = find(n)
                linked = True
    if not linked:
        return kept
    from ctxops_memory_store.conflicts import KINDS

    merged: dict[int, list[Ranked]] = {}
    for n, candidate in enumerate(kept):
        merged.setdefault(find(n), []).append(candidate)
    out = list(kept)
    for group in merged.values():
        if len(group) < 2 or group[0].entry.get("kind") not in KINDS:
            continue
        by_age = sorted(group, key=lambda r: -born(r.entry))
        for n, newer in enumerate(by_age):
            newer.covers = (*newer.covers, *(str(r.entry.get("id")) for r in by_age[n + 1 :]))
        floor = -1  # the lowest position of the newer members handled so far
        for member in by_age:  # newest first: it keeps its place
            position = next(n for n, r in enumerate(out) if r is member)
            if position < floor:
                out.insert(floor, out.pop(position))  # just below the lowest newer one
                position = floor
            floor = max(floor, position)
    return out


def _replaced_by_newer(kept: list[Ranked]) -> list[Ranked]:
    groups: dict[tuple[object, tuple[str, ...], str], list[int]] = {}
    for n, candidate in enumerate(kept):
        entry = candidate.entry
        key = (entry.get("kind"), tuple(sorted(_strings(entry, "scope"))), _speaker(entry))
        groups.setdefault(key, []).append(n)
    groups = {key: members for key, members in groups.items() if len(members) > 1}
    if not groups:
        return kept
    from ctxops_memory_store.conflicts import KINDS, conflicts, features

    computed: dict[int, Features] = {}

    def feats(n: int) -> Features:
        if n not in computed:
            entry = kept[n].entry
            computed[n] = features(str(entry.get("title", "")), str(entry.get("body", "")))
        return computed[n]

    newer_of: dict[int, int] = {}  # stale position -> the position of the newest entry replacing it
    for (kind, _, _), members in groups.items():
        if kind not in KINDS:
            continue
        newest_first = sorted(members, key=lambda n: -born(kept[n].entry))
        for old in members:
            stamp = born(kept[old].entry)
            newer = (n for n in newest_first if born(kept[n].entry) > stamp and conflicts(feats(n), feats(old)))
            replacement = next(newer, None)
            if replacement is not None:
                newer_of[old] = replacement
    out: list[Ranked] = []
    placed: set[int] = set()
    for position in range(len(kept)):
        current, seen = position, {position}
        while current in newer_of and newer_of[current] not in seen:  # a chain of replacements: its newest
            current = newer_of[current]
            seen.add(current)
        if current != position:
            winner, stale = kept[current], kept[position]
            winner.replaces = (*winner.replaces, str(stale.entry.get("id")), *stale.replaces)
            winner.covers = (*winner.covers, str(stale.entry.get("id")), *stale.covers)
        if current not in placed:
            placed.add(current)
            out.append(kept[current])
    return out
