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
    """A light English stemmer: plural and verb endings off, then a final "e" (so "queue", "queues",
    "queued" and "queueing" are one term, as are "image" / "images" and "retry" / "retried" / "retries").
    "es" comes off whole only after s, x, z, ch and sh ("boxes" -> box; "files" -> file -> fil); a plain "s"
    stays after s, u and i ("class", "status", "redis"); a consonant doubled before "ing" / "ed" is single
    again ("shipped" -> ship); "agreed" keeps its "ee"."""
    for suffix, minimum in (("ies", 5), ("ied", 5), ("ing", 6), ("ed", 5), ("es", 5), ("s", 4)):
        if len(word) < minimum or not word.endswith(suffix):
            continue
        if suffix in ("ies", "ied"):
            return word[:-3] + "y"
        if suffix == "es" and not word.endswith(("sses", "ses", "xes", "zes", "ches", "shes")):
            continue  # "files", "queues": only the "s" is a suffix
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            break
        if suffix == "ed" and word.endswith("eed"):
            return word[:-1]
        word = word[: -len(suffix)]
        if suffix in ("ing", "ed") and len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiouylsz":
            return word[:-1]
        break
    if len(word) >= 4 and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]
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


# Words that open a title without naming what it is about: modals, negations, quantifiers (stemmed as
# ``tokens`` gives them), and the Chinese equivalents a title may start with.
_NOT_SUBJECT = frozenset(
    [
        "never",
        "always",
        "must",
        "should",
        "shall",
        "not",
        "no",
        "don",
        "t",
        "avoid",
        "only",
        "all",
        "every",
        "each",
        "any",
        "our",
        "can",
        "cannot",
        "may",
        "might",
        "need",
        "please",
        "prefer",
        "keep",
        "make",
        "let",
    ]
)
_CJK_OPENERS = (
    "不要",
    "不能",
    "不得",
    "必须",
    "禁止",
    "一律",
    "统一",
    "请勿",
    "所有",
    "永远",
    "总是",
    "始终",
    "我们",
    "使用",
    "采用",
    "用",
)
_UNIT = re_compile(r"[\u3400-\u9fff\uf900-\ufaff]|[a-z0-9]+")


def subject_of(title: str) -> tuple[str, ...]:
    """What a title is about: its first two content words (stemmed), or four Chinese characters (about two
    words; a latin word counts as two characters). Empty when the title is shorter than that.

    "Share links never expire" and "Share links expire after 30 days" are both about ("share", "link");
    "Never use float for money" is about ("float", "money"); 分享链接永不过期 about 分享链接.
    """
    text = title.lower().lstrip()
    stripped = True
    while stripped:
        stripped = False
        for opener in _CJK_OPENERS:
            if text.startswith(opener):
                text, stripped = text[len(opener) :].lstrip(), True
    out: list[str] = []
    weight = 0
    for unit in _UNIT.findall(text):
        if _CJK.match(unit):
            out.append(unit)
            weight += 1
        elif unit not in STOPWORDS and unit not in _NOT_SUBJECT:
            out.append(_stem(unit))
            weight += 2
        if weight >= 4:
            return tuple(out)
    return ()


# Title and tags say what an entry is about; they weigh twice as much as body words.
FIELD_WEIGHTS = {"title": 2.0, "tags": 2.0, "scope": 1.0, "body": 1.0}


# Tags a tool writes to point at another entry (review queues): ids, not words; never indexed.
MACHINE_TAGS = ("may-replace:", "conflicts-with:")


def weighted_terms(title: str, body: str, tags: list[str], scope: list[str]) -> tuple[dict[str, float], float]:
    """Term -> weighted frequency for one entry, and its weighted length."""
    counts: dict[str, float] = {}
    words = " ".join(t for t in tags if not t.startswith(MACHINE_TAGS))
    for field, text in (("title", title), ("body", body), ("tags", words), ("scope", " ".join(scope))):
        weight = FIELD_WEIGHTS[field]
        for term in tokens(text):
            counts[term] = counts.get(term, 0.0) + weight
    return counts, float(sum(counts.values()))
