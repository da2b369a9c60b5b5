"""What cross-field redaction blanks that is no secret: each sample's own words, written bare in other fields.

Usage: uv run --with pyyaml python bench/redaction_cross_field.py --corpus whispers|fresh|outside [--peer-path P]

For every sample of a development corpus (secrets and look-alikes alike), one record is built the way the
channel check builds its payloads: the sample's text as ``content`` and each other word of it (4+ characters,
split at anything but letters, digits and ``_-.``) as a file name ``notes/<word>.txt`` and in a title
``t <word>``. A word is *blanked* when ``redact_record`` hides it in those fields and redacting each field
alone (``redact_path``, ``redact_label``: main's behaviour) does not. A blanked word that is one of the
sample's secrets (or holds one) is what the change is for; any other is collateral: an innocent word blanked.

Prints, per corpus: records, words tried, secrets' words blanked, innocent words blanked (in look-alike
samples and in samples with a secret), and the first few innocent ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _words(text: str) -> list[str]:
    out, cur = [], []
    for ch in text + " ":
        if ch.isalnum() or ch in "_-.":
            cur.append(ch)
        else:
            if len(cur) >= 4:
                out.append("".join(cur).strip("._-"))
            cur = []
    return [w for w in dict.fromkeys(out) if len(w) >= 4][:200]


def _samples(corpus: str) -> list[Any]:
    import redaction_corpus as rc

    if corpus == "whispers":
        from redaction_whispers import whispers_samples

        return whispers_samples(rc.Sample)[0]
    if corpus == "fresh":
        from redaction_fresh import fresh_samples

        return fresh_samples(rc.Sample, rc._the_secret)[0]
    samples, _ = rc.gitleaks_samples("/work/.mirror/gitleaks+gitleaks/repo", rc.Gen(rc.SEED))
    more, _ = rc.trufflehog_samples("/work/.mirror/trufflesecurity+trufflehog/repo", rc.Gen(rc.SEED))
    dev, _held = rc.split([f"{s.source}:{s.fmt}" for s in samples + more])
    return [s for s in samples + more if f"{s.source}:{s.fmt}" in dev]


def measure(samples: list[Any]) -> dict[str, Any]:
    from ctxops_contracts.redaction import redact_label, redact_path, redact_record

    result: dict[str, Any] = {"records": 0, "words": 0, "secret_words_blanked": 0}
    result |= {"innocent_blanked_lookalike": 0, "innocent_blanked_with_secret": 0, "examples": []}
    for sample in samples:
        words = _words(sample.text)
        if not words:
            continue
        result["records"] += 1
        result["words"] += len(words)
        files, titles = [f"notes/{w}.txt" for w in words], [f"t {w}" for w in words]
        record = {"content": sample.text, "files": files, "titles": titles}
        safe = redact_record(record)
        for word, file, title in zip(words, safe["files"], safe["titles"], strict=True):
            alone = redact_path(f"notes/{word}.txt") == f"notes/{word}.txt" and redact_label(f"t {word}") == f"t {word}"
            if not alone or (word in file and word in title):
                continue  # hidden without the change too, or not blanked
            if any(secret in word or word in secret for secret in sample.secrets):
                result["secret_words_blanked"] += 1
            elif sample.secrets:
                result["innocent_blanked_with_secret"] += 1
                result["examples"].append((sample.fmt, word))
            else:
                result["innocent_blanked_lookalike"] += 1
                result["examples"].append((sample.fmt, word))
    result["examples"] = result["examples"][:12]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["whispers", "fresh", "outside"], required=True)
    args = parser.parse_args()
    samples = _samples(args.corpus)
    r = measure(samples)
    print(
        f"{args.corpus}: {r['records']} records, {r['words']} words; secrets' words blanked "
        f"{r['secret_words_blanked']}; innocent words blanked: {r['innocent_blanked_lookalike']} in look-alike "
        f"samples, {r['innocent_blanked_with_secret']} in samples with a secret"
    )
    for fmt, word in r["examples"]:
        print(f"   {fmt}: {word}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
