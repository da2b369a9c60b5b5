"""Long conversations: what the injected block hands the model, against search's top-k at the same tokens.

Issue 23, item 2. The public long-conversation benchmark the issue cites is not reachable here (no download
at run time), so this generates its own, deterministically (``--seed``): ``--conversations`` two-person
chats of 12 dated sessions x 25 turns, turns of 1-4 sentences (most longer than 80 characters), with 16
planted facts per conversation (a pet's name, a sister's city, a goal time, a teacher, ...), look-alike
facts about other people (the cousin's dog, the friend's marathon) and chit-chat on the same topics. Each
turn becomes one memory through ``MemoryStore.put`` (kind ``fact``, title its first sentence, body the
turn, tag ``speaker:NAME``, dated by its session), one store per conversation, as a harvester would write
them; each conversation's store also holds two project constants and one session digest.

For every planted fact a question (worded unlike the turn) is asked; per question and budget (800, 2000):

- ``inject``: ``build_injection`` (the hook's block): evidence present (the fact's memory among the injected
  ids), answer present (the answer text in the block), tokens used;
- ``search@same``: ``MemoryStore.find`` top hits, each as one line with its whole text, added while the
  block stays within the tokens the injection used;
- ``titles 8x80``: the session-7 format, emulated: the top 8 hits' titles cut at 80 characters;
- ``rank_bm25@same`` (when ``rank_bm25`` is importable: ``uv run --with rank-bm25 ...``): BM25Okapi over
  the same turns, top hits at the same tokens.

And SessionStart (an empty prompt) in each store: are the constants and the last session there?

Run: uv run python bench/memory_conversations.py [--conversations 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ctxops_memory_inject.build import build_injection
from ctxops_memory_inject.tokens import count
from ctxops_memory_store import MemoryStore, new_entry

NAMES = ["Maya", "Jonas", "Priya", "Tomás", "Aiko", "Lena", "Omar", "Grace", "Viktor", "Sofia", "Kwame", "Ines"]
PETS = [("dog", ["Biscuit", "Pepper", "Nova", "Mochi", "Ziggy"]), ("cat", ["Olive", "Sushi", "Pixel", "Marmalade"])]
CITIES = ["Porto", "Tallinn", "Osaka", "Valparaíso", "Leipzig", "Halifax", "Ljubljana", "Kraków", "Tbilisi"]
COMPANIES = ["Northwind Labs", "Bluefin Robotics", "Cobalt Health", "Juniper Freight", "Atlas Bakery"]
JOBS = ["data engineer", "nurse practitioner", "product designer", "site reliability engineer", "pastry chef"]
INSTRUMENTS = ["cello", "banjo", "clarinet", "piano", "drums"]
TEACHERS = ["Mrs. Okafor", "Mr. Lindqvist", "Ms. Haddad", "Dr. Moreau", "Mr. Castellanos"]
BOOKS = [("The Salt Road", "Irena Vasić"), ("Quiet Engines", "Paul Hendry"), ("A Map of Rain", "Noor Aziz")]
DISHES = ["mushroom risotto", "lamb tagine", "pumpkin gnocchi", "shrimp laksa", "beef bourguignon"]
VENUES = ["the Lantern Room", "Harbor Hall", "the Copper Pot", "Greenline Club"]
BANDS = ["Static Tide", "Paper Moons", "The Gravel Choir"]
MONTHS = ["March", "April", "May", "June", "September", "October"]
INJURIES = ["sprained ankle", "broken wrist", "pulled hamstring"]

FILLER = [
    "Work has been busy this week, lots of meetings and not much time for anything else.",
    "I went for a long walk by the river on Sunday and the weather was perfect.",
    "Did you watch the game last night? The last ten minutes were unbelievable.",
    "My neighbour keeps playing music late at night, it is getting a bit annoying.",
    "I tried that new coffee place near the station, the pastries were great.",
    "We should plan a weekend trip sometime soon, maybe somewhere by the sea.",
    "I have been thinking about taking a cooking class, maybe something with pasta.",
    "The dog next door barked all morning, I wonder what got into him.",
    "My sister called yesterday, she says hi and hopes you are doing well.",
    "I am trying to read more books this year instead of scrolling on my phone.",
    "Running in the rain this morning was not my best idea, I got soaked.",
    "Honestly I just want a quiet evening with some tea and a movie.",
    "The train was delayed again, I spent forty minutes on the platform.",
    "I finally cleaned out the garage, you would not believe what I found there.",
    "Music lessons are hard work but it is fun to learn something new.",
    "My doctor says I should stretch more before exercise, which is fair.",
    "We had friends over for dinner and I burned the bread, classic me.",
    "I might change jobs next year, I am not sure yet, still thinking it over.",
    "That sounds amazing, you have to tell me more about it next time!",
    "Haha yes, I remember that, it was such a funny afternoon.",
    "I am so tired today, I did not sleep well at all.",
    "The concert tickets sold out in minutes, maybe next time.",
    "How is your family doing? It has been a while since we talked about them.",
    "I love that idea, let me check my calendar and get back to you.",
]


def fact_makers(rng: random.Random) -> list:
    """Each maker: (speaker, other) -> (turn text, question, answer)."""

    def pet(s: str, o: str) -> tuple[str, str, str]:
        kind, names = rng.choice(PETS)
        name = rng.choice(names)
        return (
            f"Guess what, last weekend I finally adopted a {kind} and named her {name}. "
            f"She is chewing everything in the flat but I already adore her.",
            f"What is the name of the {kind} {s} adopted?",
            name,
        )

    def sister(s: str, o: str) -> tuple[str, str, str]:
        city, company = rng.choice(CITIES), rng.choice(COMPANIES)
        return (
            f"My sister just moved to {city} for a job at {company}. I am going to miss her a lot, we used to have "
            f"lunch every Sunday.",
            f"Which city did {s}'s sister relocate to?",
            city,
        )

    def marathon(s: str, o: str) -> tuple[str, str, str]:
        month, hours = (
            rng.choice(MONTHS),
            rng.choice(["3 hours 45 minutes", "4 hours 10 minutes", "3 hours 30 minutes"]),
        )
        return (
            f"I signed up for the city marathon in {month}. My goal is to finish in under {hours}, so I am training "
            f"four mornings a week now.",
            f"What finishing time is {s} aiming for in the marathon?",
            hours,
        )

    def teacher(s: str, o: str) -> tuple[str, str, str]:
        inst, who = rng.choice(INSTRUMENTS), rng.choice(TEACHERS)
        return (
            f"I started {inst} lessons two weeks ago with {who}, who is very patient with me. "
            f"My fingers hurt but it is worth it.",
            f"Who gives {s} music lessons?",
            who,
        )

    def job(s: str, o: str) -> tuple[str, str, str]:
        company, role = rng.choice(COMPANIES), rng.choice(JOBS)
        return (
            f"Big news: I accepted the offer from {company}! I will be working there as a {role} starting next month.",
            f"What role did {s} accept at the new company?",
            role,
        )

    def book(s: str, o: str) -> tuple[str, str, str]:
        title, author = rng.choice(BOOKS)
        return (
            f"I just finished {title} by {author} and could not put it down for the last hundred pages.",
            f"Who is the author of the novel {s} could not put down?",
            author,
        )

    def dish(s: str, o: str) -> tuple[str, str, str]:
        food = rng.choice(DISHES)
        return (
            f"For my birthday dinner I want to cook {food} for everyone, I have been practising the recipe.",
            f"What does {s} plan to cook for the birthday dinner?",
            food,
        )

    def gig(s: str, o: str) -> tuple[str, str, str]:
        band, venue = rng.choice(BANDS), rng.choice(VENUES)
        return (
            f"My band {band} finally got a gig! We are playing at {venue} on Friday night, you should come.",
            f"Where is {s}'s band playing on Friday?",
            venue,
        )

    def injury(s: str, o: str) -> tuple[str, str, str]:
        hurt, weeks = rng.choice(INJURIES), rng.choice(["six weeks", "three weeks", "eight weeks"])
        return (
            f"The doctor looked at my {hurt} and said it should heal in about {weeks} if I rest properly.",
            f"How long did the doctor say {s}'s injury would take to heal?",
            weeks,
        )

    return [pet, sister, marathon, teacher, job, book, dish, gig, injury]


def look_alike(rng: random.Random) -> str:
    """A fact about someone else, on a planted topic with other details (what a keyword match confuses)."""
    who = rng.choice(["My cousin", "A friend from work", "My neighbour", "My old roommate"])
    return rng.choice(
        [
            f"{who} adopted a dog too, he called it {rng.choice(['Rocket', 'Bean', 'Luna'])}, a very loud puppy.",
            f"{who} moved to {rng.choice(CITIES)} last year and keeps sending me photos of the harbour.",
            f"{who} ran a marathon in {rng.choice(MONTHS)} and finished in about five hours, which is great.",
            f"{who} takes {rng.choice(INSTRUMENTS)} lessons too, but she says her teacher is very strict.",
            f"{who} read {rng.choice(BOOKS)[0]} and hated the ending, we argued about it for an hour.",
        ]
    )


def conversation(seed: int) -> tuple[list[tuple[str, str, datetime]], list[tuple[int, str, str]]]:
    """Turns (speaker, text, when) and questions (evidence turn index, question, answer)."""
    rng = random.Random(seed)
    a, b = rng.sample(NAMES, 2)
    start = datetime(2026, 1, 5, 18, 0, tzinfo=UTC) + timedelta(days=rng.randrange(60))
    makers = fact_makers(rng)
    sessions, per_session = 12, 25
    slots = rng.sample(range(sessions * per_session), 16)
    plan = {slot: makers[n % len(makers)] for n, slot in enumerate(slots)}
    turns: list[tuple[str, str, datetime]] = []
    questions: list[tuple[int, str, str]] = []
    asked: set[str] = set()
    for n in range(sessions * per_session):
        session, step = divmod(n, per_session)
        when = start + timedelta(days=9 * session, minutes=2 * step)
        speaker, other = (a, b) if n % 2 == 0 else (b, a)
        if n in plan:
            text, question, answer = plan[n](speaker, other)
            if question in asked:  # the same fact twice: the question would have two answers
                text = rng.choice(FILLER)
            else:
                asked.add(question)
                questions.append((n, question, answer))
        elif rng.random() < 0.12:
            text = look_alike(rng)
        else:
            text = " ".join(rng.sample(FILLER, rng.choice([1, 2, 2, 3, 3, 4])))
        turns.append((speaker, text, when))
    return turns, questions


def build_store(root: Path, turns: list[tuple[str, str, datetime]]) -> tuple[list[str], list[str], str]:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = MemoryStore(root)
    ids: list[str] = []
    for speaker, text, when in turns:
        first = text.split(". ", 1)[0]
        title = first if len(first) <= 80 else first[:79].rsplit(" ", 1)[0] + "…"
        entry = new_entry(kind="fact", title=title, body=text, tags=[f"speaker:{speaker}", "conversation"], now=when)
        ids.append(store.put(entry).entry.id)
    later = turns[-1][2] + timedelta(days=1)
    constants = [
        store.put(new_entry(kind="decision", title="Chat memories are kept per conversation", now=later)).entry.id,
        store.put(
            new_entry(kind="constraint", title="Never share one speaker's notes with the other speaker", now=later)
        ).entry.id,
    ]
    digest = store.put(
        new_entry(
            kind="summary",
            title="Session s-last: planned the next meet-up",
            body="Goal: plan the next meet-up\nOpen: pick a date",
            tags=["digest", "session:s-last"],
            now=later,
        )
    ).entry.id
    store.save_catalog()
    return ids, constants, digest


def lines_within(lines: list[str], tokens: int) -> str:
    out: list[str] = []
    used = 0
    for line in lines:
        cost = count(line + "\n")
        if used + cost > tokens:
            break
        out.append(line)
        used += cost
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        BM25Okapi = None
    budgets = (800, 2000)
    methods = ["inject", "search@same", "titles 8x80", *(["rank_bm25@same"] if BM25Okapi else [])]
    tally = {(m, b): [0, 0, 0] for m in methods for b in budgets}  # evidence, answer, tokens
    start_ok = [0, 0, 0]  # stores whose SessionStart had both constants, the digest, tokens
    n_questions = n_turns = long_turns = 0
    build_s = 0.0
    with tempfile.TemporaryDirectory(prefix="ctxops-conv-") as tmp:
        for c in range(args.conversations):
            turns, questions = conversation(args.seed * 1000 + c)
            root = Path(tmp) / f"conv{c}"
            root.mkdir()
            began = time.perf_counter()
            ids, constants, digest = build_store(root, turns)
            build_s += time.perf_counter() - began
            n_turns += len(turns)
            long_turns += sum(1 for _, t, _ in turns if len(t) > 80)
            store = MemoryStore(root)
            active = {e.id: e for e in store.entries() if e.status == "active"}
            docs = [(i, active[i]) for i in dict.fromkeys(ids) if i in active]
            bm25 = BM25Okapi([f"{e.title} {e.body}".lower().split() for _, e in docs]) if BM25Okapi else None

            def line(entry_id: str, active: dict = active) -> str:
                e = active[entry_id]
                return f"- {entry_id[-8:]} fact: {' '.join(e.body.split())}"

            start = build_injection(root, "", session_id="s-new")
            got = set(start.memory_ids)
            start_ok[0] += all(i in got for i in constants)
            start_ok[1] += digest in got
            start_ok[2] += start.tokens
            for turn, question, answer in questions:
                evidence = ids[turn]
                n_questions += 1
                hits = [e.id for e, _ in store.find(question, limit=60).hits]
                for budget in budgets:
                    injection = build_injection(root, question, session_id="s-q", budget=budget)
                    t = tally[("inject", budget)]
                    t[0] += evidence in injection.memory_ids
                    t[1] += answer.lower() in injection.text.lower()
                    t[2] += injection.tokens
                    block = lines_within([line(h) for h in hits], injection.tokens)
                    t = tally[("search@same", budget)]
                    t[0] += evidence[-8:] in block
                    t[1] += answer.lower() in block.lower()
                    t[2] += count(block)
                    titles = "\n".join(f"- {h[-8:]} fact: {active[h].title[:80]}" for h in hits[:8])
                    t = tally[("titles 8x80", budget)]
                    t[0] += evidence[-8:] in titles
                    t[1] += answer.lower() in titles.lower()
                    t[2] += count(titles)
                    if bm25 is not None:
                        scores = bm25.get_scores(question.lower().split())
                        order = sorted(range(len(docs)), key=lambda k: -scores[k])
                        block = lines_within([line(docs[k][0]) for k in order[:60]], injection.tokens)
                        t = tally[("rank_bm25@same", budget)]
                        t[0] += evidence[-8:] in block
                        t[1] += answer.lower() in block.lower()
                        t[2] += count(block)
    print(
        f"{args.conversations} conversations, {n_turns} turns ({long_turns / n_turns:.1%} longer than 80 characters), "
        f"{n_questions} questions; stores built through MemoryStore.put in {build_s:.1f} s"
    )
    print(f"{'method':<16} {'budget':>6} {'evidence':>9} {'answer':>8} {'avg tokens':>11}")
    for budget in budgets:
        for m in methods:
            ev, ans, tok = tally[(m, budget)]
            print(f"{m:<16} {budget:>6} {ev / n_questions:>9.3f} {ans / n_questions:>8.3f} {tok / n_questions:>11.0f}")
    k = args.conversations
    print(
        f"SessionStart (empty prompt) in stores of {n_turns // k} unrelated turns: constants in {start_ok[0]}/{k}, "
        f"last session in {start_ok[1]}/{k}, {start_ok[2] / k:.0f} tokens on average"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
