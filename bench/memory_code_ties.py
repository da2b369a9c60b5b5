"""Memories tied to the code they speak of: a scripted history where a constraint's file is renamed, edited.

Issue 23, item 6. No peer ties memories to code; the peer printed beside each figure is what a plain BM25
store does with the same memories (``rank_bm25.BM25Okapi`` over the same texts, when importable:
``uv run --with rank-bm25 python bench/memory_code_ties.py``), and ctxops with its ties switched off
(``ties: off``: the same store, its memories' ties stripped) where that differs.

The history, in a real git repository (a small shop package, ``--files`` modules) with a store of
``--memories`` memories (project constraints, decisions, lessons and facts about those modules, many of
them naming their files, deterministic from ``--seed``), among them the target constraint:

    "Orders are cancelled only through cancel_order in shop/orders.py, never by setting the state column"

Scenarios, each on a fresh copy: ``rename`` (``git mv shop/orders.py shop/order_service.py``, committed),
``edit`` (the function renamed in place, committed), ``delete`` (the file removed, committed). Per
scenario, before and after the change:

- marked for review: ``ctx mem list``'s state (``MemoryStore.review_ties``) and the injected line's marker;
- rank: the target's position in the task ranking for a prompt about it (``how do I cancel an order?
  can I set the state column?``), and in BM25's;
- in play: whether the block (budget ``--budget``) holds the target for a prompt sharing no word with it
  (``the nightly export is slow``) when the session works on its file (files in play) and when it does not;
  BM25's top hits at the same tokens for the same prompt;
- after the change, ``ctx mem tie`` (the review): rename followed, marker gone.

And the hook path's cost of the tie checks: ``build_injection`` p50 with ties vs the same store without.

Run: uv run --with rank-bm25 python bench/memory_code_ties.py [--memories 300] [--seed 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import msgspec
from ctxops_memory_inject import build
from ctxops_memory_inject.build import build_injection
from ctxops_memory_inject.tokens import count
from ctxops_memory_store import MemoryStore, new_entry, ties

TARGET = "Orders are cancelled only through cancel_order in shop/orders.py, never by setting the state column"
ON_TOPIC = "how do I cancel an order? can I set the state column?"
OFF_TOPIC = "the nightly export is slow"
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@e"}
MODULES = ["orders", "cart", "payments", "refunds", "inventory", "shipping", "invoices", "customers", "export", "tax"]
VERBS = ["validates", "rounds", "logs", "caches", "retries", "locks", "batches", "audits", "signs", "streams"]
NOUNS = ["order totals", "the state column", "customer emails", "webhooks", "nightly exports", "refund amounts"]
KINDS = ["constraint", "decision", "lesson", "fact", "convention"]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def make_repo(root: Path, n_files: int) -> list[str]:
    files = []
    for name in MODULES[:n_files]:
        path = root / "shop" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def {name}_main():\n    return '{name}'\n\n\ndef cancel_{name}():\n    pass\n")
        files.append(f"shop/{name}.py")
    (root / "shop" / "orders.py").write_text(
        "def cancel_order(order):\n    order.state = 'cancelled'\n    order.save()\n\n\ndef orders_main():\n    pass\n"
    )
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "shop")
    return files


def fill(root: Path, files: list[str], n: int, seed: int) -> str:
    """The store: the target first (the oldest), then ``n - 1`` memories about the shop's modules."""
    rng = random.Random(seed)
    store = MemoryStore(root)
    target = store.put(new_entry(kind="constraint", title=TARGET)).entry.id
    for i in range(n - 1):
        module = rng.choice(files)
        kind = rng.choice(KINDS)
        where = module if rng.random() < 0.6 else module.rsplit("/", 1)[-1].removesuffix(".py") + " module"
        title = f"{where} {rng.choice(VERBS)} {rng.choice(NOUNS)} (rule {i}: batch size {rng.randint(2, 900)})"
        body = f"Found in session {i % 37}: {rng.choice(VERBS)} before {rng.choice(NOUNS)}; order matters."
        store.put(new_entry(kind=kind, title=title, body=body))
    return target


def rank_of(ranked: list[str], entry_id: str) -> int | None:
    return ranked.index(entry_id) + 1 if entry_id in ranked else None


class Bm25Peer:
    """rank_bm25 over the same memories' texts; top hits as one line each within a token budget."""

    def __init__(self, store: MemoryStore) -> None:
        from rank_bm25 import BM25Okapi

        self.entries = [e for e in store.entries() if e.status == "active"]
        self.texts = [f"{e.title} {e.body}" for e in self.entries]
        self.bm25 = BM25Okapi([_words(t) for t in self.texts])

    def ranked(self, query: str) -> list[str]:
        scores = self.bm25.get_scores(_words(query))
        order = sorted(range(len(self.entries)), key=lambda i: -scores[i])
        return [self.entries[i].id for i in order if scores[i] > 0]

    def block(self, query: str, tokens: int) -> list[str]:
        shown, used = [], 0
        by_id = {e.id: t for e, t in zip(self.entries, self.texts, strict=True)}
        for entry_id in self.ranked(query):
            cost = count(f"- {entry_id[-8:]} {by_id[entry_id]}\n")
            if used + cost > tokens:
                break
            shown.append(entry_id)
            used += cost
        return shown


STOPWORDS = frozenset(
    "a an the is are was be by of in on to for and or not no do i can it its this that how".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    """Lower-case words without English stopwords (what a plain BM25 store would index)."""
    words = "".join(c.lower() if c.isalnum() or c == "_" else " " for c in text).split()
    return [w for w in words if w not in STOPWORDS]


def task_rank(root: Path, query: str, entry_id: str, files: list[str] | None = None) -> int | None:
    """The target's position in the hook's ranking (catalog records, the hook's review factors)."""
    records = build.load_catalog(str(root / ".meta" / "memory"), str(root / ".meta" / "index")).readable()
    problems = build.code_review(str(root), records)
    review = {i: ties.factor(p) for i, p in problems.items()}
    files = list(files or [])
    files += [old for old in build.moves_in_play(str(root), problems.values(), files) if old not in files]
    ranked = build.rank(
        [r for r in records if isinstance(r.get("entry"), dict) and r["entry"].get("kind") != "summary"],
        query,
        files_in_play=files,
        review=review,
        config=build.RankConfig(min_relative=0.0, keep=10_000),
    )
    return rank_of([str(r.entry.get("id")) for r in ranked], entry_id)


def observe(root: Path, target: str, in_play: str, budget: int, peer: Bm25Peer | None) -> dict[str, object]:
    store = MemoryStore(root)
    review = store.review_ties()
    warm = build_injection(root, OFF_TOPIC, budget=budget, files_in_play=[in_play])
    cold = build_injection(root, OFF_TOPIC, budget=budget)
    line = next((x for x in warm.text.splitlines() if target[-8:] in x), "")
    marker = line[line.find("(review:") :] if "(review:" in line else ""
    out: dict[str, object] = {
        "review": "yes: " + ties.marker(review[target]).strip() if target in review else "no",
        "marker": marker or ("-" if line else "(not injected)"),
        "rank": task_rank(root, ON_TOPIC, target),
        "rank in play": task_rank(root, OFF_TOPIC, target, [in_play]),
        "in play": target in warm.memory_ids,
        "not in play": target in cold.memory_ids,
        "tokens": warm.tokens,
    }
    if peer is not None:
        out["bm25 rank"] = rank_of(peer.ranked(ON_TOPIC), target)
        out["bm25 in play"] = target in peer.block(OFF_TOPIC, warm.tokens)
    return out


def change(root: Path, scenario: str) -> str:
    """Apply the scenario; returns the file the session works on afterwards."""
    if scenario == "rename":
        git(root, "mv", "shop/orders.py", "shop/order_service.py")
        git(root, "commit", "-qm", "rename")
        return "shop/order_service.py"
    if scenario == "edit":
        path = root / "shop" / "orders.py"
        path.write_text(path.read_text().replace("def cancel_order", "def cancel"))
        git(root, "commit", "-qam", "edit")
        return "shop/orders.py"
    (root / "shop" / "orders.py").unlink()
    git(root, "commit", "-qam", "delete")
    return "shop/orders.py"


def strip_ties(root: Path) -> None:
    """Every entry rewritten with ``ties=[]`` through the store (still vouched for): ctxops with ties off."""
    store = MemoryStore(root)
    with store._writing():
        for entry in store.entries():
            if entry.ties:
                store._save(msgspec.structs.replace(entry, ties=[]), vouch=True)


def hook_cost(with_ties: Path, without: Path, runs: int) -> tuple[float, float]:
    """``build_injection`` p50 (ms) with the ties checked and on the same store without ties, interleaved
    (the machine's load drifts: each pair of runs sees the same)."""
    times: dict[Path, list[float]] = {with_ties: [], without: []}
    for n in range(runs + 1):
        for root in (with_ties, without) if n % 2 else (without, with_ties):
            began = time.perf_counter()
            build_injection(root, ON_TOPIC, budget=800, files_in_play=["shop/cart.py"])
            if n:  # the first pair warms the tokenizer and the caches
                times[root].append((time.perf_counter() - began) * 1000)
    return statistics.median(times[with_ties]), statistics.median(times[without])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--budget", type=int, default=800)
    parser.add_argument("--seeds", type=int, default=3, help="stores per scenario (seeds 1..N)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    try:
        import rank_bm25  # noqa: F401

        have_bm25 = True
    except ImportError:
        have_bm25 = False
    print(f"store: {args.memories} memories about {args.files} modules, budget {args.budget}, {args.seeds} seeds")
    print(f"target: {TARGET!r}")
    print(f"on-topic prompt: {ON_TOPIC!r}; off-topic prompt: {OFF_TOPIC!r}")
    rows: dict[tuple[str, str], list[dict[str, object]]] = {}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ctxops-ties-") as tmp:
        for seed in range(1, args.seeds + 1):
            for scenario in ("rename", "edit", "delete"):
                root = Path(tmp) / f"{scenario}-{seed}"
                files = make_repo(root, args.files)
                target = fill(root, files, args.memories, seed)
                store = MemoryStore(root)
                peer = Bm25Peer(store) if have_bm25 else None
                if seed == 1 and scenario == "rename":
                    tied = sum(1 for e in store.entries() if e.ties)
                    same = sum(1 for e in store.entries() if any(t.path == "shop/orders.py" for t in e.ties))
                    print(f"seed 1: {tied} of {args.memories} memories tied to files, {same} to shop/orders.py")
                rows.setdefault(("(none)", "before"), []).append(
                    observe(root, target, "shop/orders.py", args.budget, peer)
                )
                in_play = change(root, scenario)
                rows.setdefault((scenario, "after"), []).append(observe(root, target, in_play, args.budget, peer))
                MemoryStore(root).retie(target)
                rows.setdefault((scenario, "after tie"), []).append(observe(root, target, in_play, args.budget, peer))
        print(f"built and observed in {time.perf_counter() - began:.0f} s")
        print()
        print(
            "rank: the target's place in the task ranking (median over stores); on = the on-topic prompt, play ="
            " the off-topic prompt with its file in play; injected: stores whose block (off-topic prompt) holds it"
        )
        head = f"{'scenario':<8} {'when':<10} {'marked for review (ctx mem list, seed 1)':<60}"
        print(f"{head} {'on':>4} {'bm25':>5} {'play':>5} {'in play':>8} {'bm25':>5} {'not in play':>12}")
        for (scenario, when), found in rows.items():
            n = len(found)
            print(
                f"{scenario:<8} {when:<10} {str(found[0]['review'])[:60]:<60} {_median(found, 'rank'):>4}"
                f" {_median(found, 'bm25 rank'):>5} {_median(found, 'rank in play'):>5}"
                f" {_count(found, 'in play')}/{n:<3} {_count(found, 'bm25 in play')}/{n:<3}"
                f" {_count(found, 'not in play'):>7}/{n:<3}"
            )
        print()
        print("the injected line's marker after each change (its file in play, seed 1):")
        for (scenario, when), found in rows.items():
            if when == "after":
                print(f"  {scenario:<7} {found[0]['marker']}")
        cost_root, plain = Path(tmp) / "cost", Path(tmp) / "ties-off"
        for root in (cost_root, plain):
            files = make_repo(root, args.files)
            fill(root, files, args.memories, 1)
        strip_ties(plain)
        with_ties, without = hook_cost(cost_root, plain, args.runs)
        print()
        print(
            f"build_injection p50 (hook path, {args.memories} memories; {args.runs} interleaved runs):"
            f" {with_ties:.1f} ms with tie checks vs {without:.1f} ms ties off (x{with_ties / without:.2f})"
        )
        records = build.load_catalog(str(cost_root / ".meta" / "memory"), str(cost_root / ".meta" / "index")).readable()
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            build.code_review(str(cost_root), records)
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"code_review alone over all {len(records)} records (every one a candidate), p50:"
            f" {statistics.median(times):.2f} ms"
        )
    return 0


def _median(found: list[dict[str, object]], key: str) -> str:
    values = [v for r in found if isinstance(v := r.get(key), int)]
    missing = sum(1 for r in found if r.get(key) is None)
    if not values:
        return "n/a" if all(key not in r for r in found) else "-"
    text = f"{statistics.median(values):g}"
    return text + ("*" if missing else "")


def _count(found: list[dict[str, object]], key: str) -> str:
    return str(sum(1 for r in found if r.get(key) is True)) if any(key in r for r in found) else "n/a"


def _yn(value: object) -> str:
    return "yes" if value is True else "no" if value is False else str(value)


if __name__ == "__main__":
    raise SystemExit(main())
