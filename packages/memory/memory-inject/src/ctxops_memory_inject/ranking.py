"""Ranking memories for a task: BM25 (+ vectors when on) x recency x usage x scope boost, then conflicts.

Works on the catalog's plain records (``ctxops_memory_store.catalog``), so the hook never builds ten
thousand structs. Each factor is bounded so none of them alone can bury a relevant entry:

- recency: ``0.3 + 0.7 * 0.5 ** (age / half_life)`` (pinned entries are exempt: 1.0);
- usage: ``1 + 0.1 * ln(1 + uses)``, uses = times injected or recalled (``.meta/.state``);
- scope: x1.5 when the entry's scope or files match a file in play (this session's files, paths named in
  the prompt, and what core passes in from the code map).

Hybrid relevance mixes the BM25 share with the min-max normalised cosine. With a multilingual embedder
(``cross_language=True``) the mix respects what each signal can see: BM25 matches words, so an entry
written in the other language than the query (Chinese entry, English query) gets no BM25 score however
relevant it is. For such an entry BM25's silence is not a vote against it, and its relevance is the
cosine share alone; same-language entries keep the mix.

With a lexical embedder (the default offline hashing embedder, ``lexical_vectors=True``) it is the other
way round: its vector holds the words BM25 indexes plus their character trigrams, so it sees nothing BM25
cannot see except shared word fragments. Where BM25 found no word of the query in an entry, the entry's
cosine comes from fragments and hash collisions; such an entry ranks after every BM25 hit (ordered by its
cosine, filling a short list), while the mix still reorders the BM25 hits among themselves.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxops_contracts.shared.regex import compile as re_compile
from ctxops_memory_store import bm25
from ctxops_memory_store.similarity import jaccard
from ctxops_memory_store.terms import tokens

if TYPE_CHECKING:
    from ctxops_memory_store.conflicts import Features

Record = dict[str, object]
SCOPE_BOOST = 1.5
DAY = 86_400.0
_PATHISH = re_compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")


@dataclass(frozen=True)
class RankConfig:
    half_life_days: float = 30.0
    min_relative: float = 0.25  # a task memory scores at least this share of the best one
    keep: int = 50  # candidates kept after ranking (a page of them is ever shown); conflicts are resolved among these
    vector_weight: float = 0.4  # hybrid: share of the min-max normalised cosine (bench/memory_quality.py)


_CJK = re_compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LATIN_WORD = re_compile(r"[A-Za-z]{2,}")


def language(text: str) -> str:
    """``cjk`` or ``latin``: the script most of ``text``'s words are in (a Chinese word is ~2 characters)."""
    cjk = len(_CJK.findall(text))
    return "cjk" if cjk and cjk / 2 >= len(_LATIN_WORD.findall(text)) else "latin"


def _entry_language(entry: Record) -> str:
    return language(f"{entry.get('title', '')} {entry.get('body', '')}")


@dataclass
class Ranked:
    entry: Record
    score: float
    relevance: float
    scope_match: bool
    factors: dict[str, float] = field(default_factory=dict)
    seen_by_bm25: bool = True


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


def scope_match(entry: Record, files: Sequence[str]) -> bool:
    """Whether a file in play falls under the entry's scope globs or is one of its files."""
    if not files:
        return False
    scope, own = _strings(entry, "scope"), set(_strings(entry, "files"))
    for path in files:
        if path in own:
            return True
        for pattern in scope:
            prefix = pattern.rstrip("*").rstrip("/")
            if fnmatchcase(path, pattern) or (prefix and (path == prefix or path.startswith(prefix + "/"))):
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
) -> list[Ranked]:
    """Active entries relevant to ``query``, best first, one per subject (see ``resolve_conflicts``).

    ``records`` are catalog records (``entry``, ``terms``, ``length``); ``corpus`` (count, average length)
    when they are only the candidates of a larger set (the hook's snapshot). ``cross_language``: the
    ``vector_scores`` come from a multilingual embedder; ``lexical_vectors``: from a lexical one (see the
    module docstring).
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
    query_language = language(query) if cross_language else None
    relevance = fuse(lexical, vector_scores or {}, entries, cfg, query_language)
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
        }
        score = math.prod(factors.values())
        ranked.append(Ranked(entry, score, rel, matched, factors, seen_by_bm25=entry_id in lexical))
    # A lexical embedder's cosine alone (no BM25 hit) is weak evidence: such entries follow every BM25 hit.
    ranked.sort(key=lambda r: (lexical_vectors and not r.seen_by_bm25, -r.score, str(r.entry.get("id"))))
    if ranked:
        floor = ranked[0].score * cfg.min_relative
        ranked = [r for r in ranked if r.score >= floor][: cfg.keep]
    return resolve_conflicts(ranked)


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


def _subject(entry: Record) -> tuple[object, list[str], set[str]]:
    return entry.get("kind"), sorted(_strings(entry, "scope")), set(tokens(str(entry.get("title", ""))))


def same_subject(a: Record, b: Record) -> bool:
    """Two active entries of one kind and scope whose titles say nearly the same thing."""
    return _same(_subject(a), _subject(b))


def _same(a: tuple[object, list[str], set[str]], b: tuple[object, list[str], set[str]]) -> bool:
    return a[0] == b[0] and a[1] == b[1] and jaccard(a[2], b[2]) >= 0.5


def resolve_conflicts(ranked: list[Ranked]) -> list[Ranked]:
    """One entry per subject: the one whose scope matches the files in play, then the latest ``valid_from``.

    Then no stale entry outranks its replacement: two active entries the write-time check would call a
    conflict (``ctxops_memory_store.conflicts``: same kind and scope, a cue or the same subject frame with
    another value) both stay active when they arrived out of order (a merge of two branches, a hand-edited
    file, a store older than the rule). The newer one takes the older one's place; the older one goes.
    """
    kept: list[Ranked] = []
    subjects: dict[int, tuple[object, list[str], set[str]]] = {}
    for candidate in ranked:
        subjects[id(candidate)] = subject = _subject(candidate.entry)
        rival = next((k for k in kept if _same(subjects[id(k)], subject)), None)
        if rival is None:
            kept.append(candidate)
            continue
        better = (candidate.scope_match, born(candidate.entry)) > (rival.scope_match, born(rival.entry))
        if better:
            kept[kept.index(rival)] = candidate
    return _replaced_by_newer(kept)


def _replaced_by_newer(kept: list[Ranked]) -> list[Ranked]:
    groups: dict[tuple[object, tuple[str, ...]], list[int]] = {}
    for n, candidate in enumerate(kept):
        key = (candidate.entry.get("kind"), tuple(sorted(_strings(candidate.entry, "scope"))))
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
    for (kind, _), members in groups.items():
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
        if current not in placed:
            placed.add(current)
            out.append(kept[current])
    return out
