# Full-width Chinese punctuation is the data here.
"""The rule of a correction, in the user's words: openers, questions and thanks dropped, whole sentences."""

from __future__ import annotations

import pytest
from ctxops_memory_store.rule import cut_at_sentence, rule_of, sentences


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        (
            "No, that's wrong: never edit files under gen/ by hand, they are generated. "
            "Change api/schema.yaml and run make gen instead.",
            "Never edit files under gen/ by hand, they are generated. Change api/schema.yaml and run make gen instead.",
        ),
        ("no, don't use float for money, use Decimal", "Don't use float for money, use Decimal"),
        ("Nope. Stop. Use pnpm, not npm, in this repo. Thanks!", "Use pnpm, not npm, in this repo."),
        (
            "Wrong file. Timeouts live in deploy/prod.toml. Why did you edit settings.py?",
            "Timeouts live in deploy/prod.toml.",
        ),
        (
            "Actually, we deploy with ./deploy.sh --prod, not kubectl apply.",
            "We deploy with ./deploy.sh --prod, not kubectl apply.",
        ),
        ("No tabs in Makefiles are fine here, keep them.", "No tabs in Makefiles are fine here, keep them."),
        (
            "不对，不要直接改 gen/ 下面的文件，它们是生成的。请改 api/schema.yaml 然后运行 make gen。",
            "不要直接改 gen/ 下面的文件，它们是生成的。请改 api/schema.yaml 然后运行 make gen。",
        ),
        ("错了。金额不能用 float，要用 Decimal。谢谢", "金额不能用 float，要用 Decimal。"),
        (
            "Nein, das ist falsch: benutze nie float für Geld. Nimm Decimal.",
            "Benutze nie float für Geld. Nimm Decimal.",
        ),
        ("No.", "No."),  # nothing but an opener: the text itself, not an empty rule
    ],
)
def test_the_rule_keeps_its_fix(said: str, rule: str) -> None:
    assert rule_of(said) == rule


def test_a_long_correction_keeps_whole_sentences() -> None:
    said = "No. " + " ".join(f"Rule {n} says the service {n} must answer within {n}0 ms." for n in range(40))
    rule = rule_of(said, limit=200)
    assert rule.startswith("Rule 0 says") and rule.endswith("ms.") and len(rule) <= 200
    assert rule_of("x" * 900, limit=100) == "x" * 900  # one sentence longer than the limit: kept whole


def test_sentences_and_cuts() -> None:
    assert sentences("Edit api/schema.yaml. Then run make gen!\nDone") == [
        "Edit api/schema.yaml.",
        "Then run make gen!",
        "Done",
    ]
    assert sentences("先改这里。再运行！") == ["先改这里。", "再运行！"]
    assert cut_at_sentence("One two. Three four five. Six.", 20) == ("One two.", True)
    assert cut_at_sentence("Short.", 20) == ("Short.", False)
    text, cut = cut_at_sentence("word " * 50, 40)
    assert cut and text.endswith("…") and len(text) <= 41 and "wor…" not in text
