"""The tokenizer behind BM25: lower-cased words, a light stemmer, CJK characters as unigrams and bigrams."""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile as re_compile

_TOKEN = re_compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re_compile(r"[\u3400-\u9fff\uf900-\ufaff]")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "use",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "you",
    ]
)


_STEMS: dict[str, str] = {}  # word -> stem: a write tokenizes dozens of entries, mostly the same words


def _stem(word: str) -> str:
    found = _STEMS.get(word)
    if found is None:
        if len(_STEMS) >= 1 << 17:
            _STEMS.clear()
        found = _STEMS[word] = _stem_of(word)
    return found


def _stem_of(word: str) -> str:
    for suffix, minimum in (("ies", 5), ("ing", 6), ("ed", 5), ("es", 5), ("s", 4)):
        if len(word) >= minimum and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def tokens(text: str) -> list[str]:
    """Index terms of ``text``, in order (duplicates kept)."""
    out: list[str] = []
    for piece in _TOKEN.findall(text.lower()):
        if _CJK.match(piece):
            out.extend(piece)
            out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
        elif piece not in STOPWORDS:
            out.append(_stem(piece))
    return out


# Title and tags say what an entry is about; they weigh twice as much as body words.
FIELD_WEIGHTS = {"title": 2.0, "tags": 2.0, "scope": 1.0, "body": 1.0}


def weighted_terms(title: str, body: str, tags: list[str], scope: list[str]) -> tuple[dict[str, float], float]:
    """Term -> weighted frequency for one entry, and its weighted length."""
    counts: dict[str, float] = {}
    for field, text in (("title", title), ("body", body), ("tags", " ".join(tags)), ("scope", " ".join(scope))):
        weight = FIELD_WEIGHTS[field]
        for term in tokens(text):
            counts[term] = counts.get(term, 0.0) + weight
    return counts, float(sum(counts.values()))
