"""The clients' own tool search finds ctxops's tools for the words a model uses (issue 22, item 2).

Claude Code (ToolSearch) and Codex (`tool_search`) defer MCP tools when there are many and let the model
search for them. Both rankers are reproduced here over the `tools/list` the real `ctx mcp` answers:

* Claude Code's keyword search: the tool name split into parts (``mcp__ctxops__code_def`` -> mcp, ctxops,
  code, def); per query word, an exact name part scores 10, a name part containing the word 5, the word
  in the description (whole word) 2; ties keep the listing order.
* Codex's BM25 (k1 1.2, b 0.75) over one document per tool: name, tool name, server name, title,
  description and the input schema's property names, lower-cased words with a plural -s folded.

The right tool must rank first for each query, in both.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

QUERIES = {
    "find definition": "code_def",
    "code definition": "code_def",
    "where is this function defined": "code_def",
    "who calls": "code_callers",
    "who calls this function": "code_callers",
    "outline": "code_brief",
    "file outline": "code_brief",
    "remember": "remember",
    "remember this for next session": "remember",
    "token cost": "ledger_totals",
    "token usage and cost": "ledger_totals",
    "references usages": "code_refs",
    "what breaks if I change": "code_impact",
}
SERVER = "ctxops"
WORD = re.compile(r"[a-z0-9]+")
STOP = {"a", "an", "the", "of", "to", "for", "in", "on", "is", "it", "this", "and", "or", "i", "if", "by", "be"}


def _words(text: str) -> list[str]:
    return [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in WORD.findall(text.lower())
        if w not in STOP
    ]


def claude_rank(tools: list[dict], query: str) -> list[str]:
    scored = []
    for i, tool in enumerate(tools):
        full = f"mcp__{SERVER}__{tool['name']}"
        parts = [p for p in re.split(r"__|_", full.lower()) if p]
        description = tool.get("description", "").lower()
        score = 0
        for term in query.lower().split():
            if term in parts:
                score += 10
            elif any(term in p for p in parts):
                score += 5
            if re.search(rf"\b{re.escape(term)}\b", description):
                score += 2
        scored.append((-score, i, tool["name"]))
    return [name for negative, _, name in sorted(scored) if negative < 0]


def codex_rank(tools: list[dict], query: str) -> list[str]:
    docs = []
    for tool in tools:
        keys = " ".join((tool.get("inputSchema") or {}).get("properties", {}))
        text = " ".join(
            [
                f"mcp__{SERVER}__{tool['name']}",
                tool["name"],
                SERVER,
                tool.get("title") or "",
                tool.get("description", ""),
                keys,
            ]
        )
        docs.append(Counter(_words(text.replace("_", " "))))
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs) / n
    terms = _words(query)
    scored = []
    for i, doc in enumerate(docs):
        length = sum(doc.values())
        score = 0.0
        for term in terms:
            df = sum(1 for d in docs if term in d)
            if not df or term not in doc:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = doc[term]
            score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * length / avg))
        scored.append((-score, i, tools[i]["name"]))
    return [name for negative, _, name in sorted(scored) if negative < 0]


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    script = Path(sys.executable).parent / "ctx"
    root = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    done = subprocess.run(
        [str(script), "mcp"],
        input=f"{json.dumps(init)}\n{json.dumps(listing)}\n",
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    listed: list[dict] = json.loads(done.stdout.splitlines()[1])["result"]["tools"]
    names = {t["name"] for t in listed}
    missing = {"code_def", "remember", "ledger_totals"} - names
    if missing:
        pytest.skip(f"the packages with {sorted(missing)} are not installed here (only {sorted(names)})")
    return listed


@pytest.mark.parametrize(("query", "expected"), sorted(QUERIES.items()))
def test_claude_codes_tool_search_ranks_the_right_tool_first(tools: list[dict], query: str, expected: str) -> None:
    ranked = claude_rank(tools, query)
    assert ranked[:1] == [expected], f"{query!r}: {ranked[:5]}"


@pytest.mark.parametrize(("query", "expected"), sorted(QUERIES.items()))
def test_codex_tool_search_ranks_the_right_tool_first(tools: list[dict], query: str, expected: str) -> None:
    ranked = codex_rank(tools, query)
    assert ranked[:1] == [expected], f"{query!r}: {ranked[:5]}"


def test_the_rankers_can_fail() -> None:
    decoy = [
        {"name": "code_def", "description": "Read a file."},
        {"name": "other", "description": "Find the definition."},
    ]
    assert claude_rank(decoy, "find definition")[0] == "other"
    assert codex_rank(decoy, "find definition")[0] == "other"
