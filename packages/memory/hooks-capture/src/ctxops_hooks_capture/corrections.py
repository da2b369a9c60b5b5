"""Does a prompt correct or redirect the agent's previous step? (English and Chinese.)"""

from __future__ import annotations

import re

# A prompt that opens with a negation or a stop word corrects what came before it...
_EN_OPENERS = re.compile(
    r"^(?:no|nope|nah|wrong|incorrect|stop|wait|hold on|don'?t|do not|never|not that|not like that"
    r"|actually|instead|undo|revert|rather|that'?s (?:not|wrong|incorrect)|that is (?:not|wrong|incorrect)"
    r"|you (?:broke|missed))\b",
    re.IGNORECASE,
)
# ...unless the opener is only politeness or a reminder.
_EN_BENIGN = re.compile(
    r"^(?:no (?:problem|worries|rush|need to (?:hurry|rush))|not bad|don'?t forget|do not forget"
    r"|never mind,? (?:continue|go on)"
    r"|actually,? (?:that|this|it) (?:looks|is|was) (?:good|great|fine|right|correct))\b",
    re.IGNORECASE,
)
# Redirections anywhere in the prompt.
_EN_ANYWHERE = re.compile(
    r"\b(?:instead of|rather than|use \S+(?: \S+){0,4} instead|i (?:said|told you|asked (?:you )?(?:to|for|not))"
    r"|you should(?:n'?t| not) have|that'?s not what i|not what i (?:asked|wanted|meant)|please don'?t"
    r"|why did you|shouldn'?t have|wrong (?:file|approach|function|place))\b",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"不对|不是这样|不是这个|不要|不用|改成|改为|换成|错了|而不是|应该用|应该是|撤销|回滚|停下|停止|别再"
    r"|(?:^|[\s，。,.!！?？：:])别"
)


def is_correction(prompt: str) -> bool:
    """True when ``prompt`` negates or redirects the previous step."""
    text = (prompt or "").strip().lstrip("\"'`*>- ").strip()
    if not text:
        return False
    if _EN_BENIGN.match(text):
        return False
    return bool(_EN_OPENERS.match(text) or _EN_ANYWHERE.search(text) or _ZH.search(text))
