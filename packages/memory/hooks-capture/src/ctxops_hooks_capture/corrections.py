"""Does a prompt correct or redirect the agent's previous step? (English and Chinese.)

A correction negates or redirects what the agent just did ("No, use X instead", "这不是我想要的"); a new
request ("Stop the dev server and run the tests", "帮我把这个函数改成异步的") or a reminder ("don't forget
the docs", "不要忘记写测试") is not one. Measured against a gold set of English and Chinese prompts in
the tests. Callers pass a bounded prefix: every pattern is anchored or linear.
"""

from __future__ import annotations

from ctxops_contracts.shared import regex
from ctxops_contracts.shared.regex import lazy

# A prompt that opens with a negation, a stop or an undo corrects what came before it...
_EN_OPENERS = lazy(
    r"^(?:"
    r"no(?:pe)?(?=[,.!;:—-]|\s+(?:no|wait|stop|don'?t|not|that|this|it|please|use|you|we|i|the other)\b|$)"
    r"|nah\b|wrong\b|incorrect\b|not (?:that|like that|this|quite)\b"
    r"|(?:stop|wait|hold on)(?=\s*[,.!;:—-]|\s+(?:it|that|this|doing|now|right|there|—|-|don'?t|we|you)\b|$)"
    r"|don'?t\b|do not\b|never\b(?! mind)"
    r"|actually\b|instead\b|undo\b|revert\b|roll ?back\b|go back\b"
    r"|that'?s (?:not|wrong|incorrect)|that is (?:not|wrong|incorrect)|this is (?:not|wrong|incorrect)"
    r"|you (?:broke|missed|misunderstood|forgot|deleted|removed|changed)\b"
    r")",
    regex.IGNORECASE,
)
# ...unless the opener is only politeness or a reminder.
_EN_BENIGN = lazy(
    r"^(?:no (?:problem|worries|rush|need to (?:hurry|rush))|not bad|don'?t forget|do not forget|never forget"
    r"|never mind,? (?:continue|go on|carry on)|actually,? (?:that|this|it) (?:looks|is|was|works) "
    r"(?:good|great|fine|right|correct|perfect))\b",
    regex.IGNORECASE,
)
# Redirections anywhere in the prompt.
_EN_ANYWHERE = lazy(
    r"\b(?:instead of|rather than|use \S+(?: \S+){0,4} instead|i (?:said|told you|asked (?:you )?(?:to|for|not)|meant)"
    r"|you should(?:n'?t| not) have|that'?s not what i|not what i (?:asked|wanted|meant)|please don'?t(?! forget)"
    r"|why did you|shouldn'?t have|wrong (?:file|approach|function|place|module|directory|command|branch)"
    r"|you misunderstood|go back to the (?:previous|old|original))\b",
    regex.IGNORECASE,
)
_ZH = lazy(
    r"(?<!对)不对(?!劲吗)|不是这样|不是这个|不是我(?:想要|要|说|让你|想)|这不是我|我(?:说的是|要的是|不是让你|没让你)"
    r"|不要(?!忘)|不需要|改回|换回|错了|搞错|弄错|理解错|而不是|应该(?:用|是|改)|撤销|撤回|回滚|还原|恢复原"
    r"|停下|停止|别再|为什么(?:把|要|你)|谁让你"
    r"|(?:^|[\s，。,.!！?？：:])别(?!忘)"
)


def is_correction(prompt: str) -> bool:
    """True when ``prompt`` negates or redirects the previous step."""
    text = (prompt or "").strip().lstrip("\"'`*>- ").strip()
    if not text:
        return False
    if _EN_BENIGN.match(text):
        return False
    return bool(_EN_OPENERS.match(text) or _EN_ANYWHERE.search(text) or _ZH.search(text))
