"""Record types shared by every ctxops package (DESIGN.md section 2).

Structs are frozen and keyword-only. Decoding is strict about types (no silent coercion) and ignores
fields it does not know, so a reader of schema 1.x accepts records written by any later 1.y.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from .versioning import SCHEMA_VERSION

UtcDatetime = Annotated[datetime, Meta(tz=True, description="RFC 3339 timestamp with a time zone")]
NonNegative = Annotated[int, Meta(ge=0)]
# A machine id names a partition directory of a team ledger (``machine=ID``): 1-64 of A-Z a-z 0-9 . _ -
MACHINE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
MachineId = Annotated[
    str,
    Meta(
        pattern=MACHINE_ID_PATTERN,
        description="the stable id of the machine that recorded a call (1-64 of A-Z a-z 0-9 . _ -)",
    ),
]
RepoPath = Annotated[str, Meta(description="path relative to the repository root, '/'-separated")]

AgentName = Literal["claude-code", "codex", "gemini", "cursor", "generic"]
EventKind = Literal[
    "user_message",
    "agent_message",
    "command_execution",
    "file_modification",
    "file_read",
    "tool_call",
    "test_result",
    "user_correction",
    "session_start",
    "session_end",
    "compaction",
    "unknown",
]
MemoryKind = Literal["decision", "constraint", "convention", "lesson", "preference", "fact", "summary"]
MemoryStatus = Literal["pending", "active", "folded", "superseded", "archived", "rejected"]
SymbolKind = Literal[
    "function",
    "method",
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "constant",
    "variable",
    "field",
    "type",
    "module",
    "macro",
]
ReferenceRole = Literal["call", "import", "inherit", "type", "read", "write"]
EdgeKind = Literal["call", "import", "inherit", "type", "read", "write"]
Confidence = Literal["exact", "import-resolved", "name-only"]
ParseStatus = Literal["ok", "partial", "fallback", "skipped", "error"]
UsageSource = Literal["provider-reported", "estimated"]
UsageOrigin = Literal["transcript", "proxy", "sdk"]
ContextAction = Literal["inject", "recall", "guard"]


class _Record(Struct, frozen=True, kw_only=True):
    """Base of every record."""


class AgentEvent(_Record, frozen=True, kw_only=True):
    """One normalized event from an agent (hook payload, notify call, ...)."""

    schema_version: str = SCHEMA_VERSION
    id: str
    ts: UtcDatetime
    agent: AgentName
    kind: EventKind
    event_name: str | None = None
    session_id: str | None = None
    task_id: str | None = None
    repo: str | None = None
    cwd: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    text: str | None = None
    files: list[RepoPath] = field(default_factory=list)
    command: str | None = None
    exit_status: int | None = None
    tests_passed: NonNegative | None = None
    tests_failed: NonNegative | None = None
    corrects: str | None = None
    source_event: str | None = None
    raw_ref: str | None = None


class CodeTie(_Record, frozen=True, kw_only=True):
    """A file (and, where the code map knew it, a symbol in it) a memory speaks of, as it was when tied."""

    path: RepoPath
    hash: Annotated[str, Meta(description="BLAKE2b-128 hex of the file's bytes when the memory was tied")]
    size: NonNegative
    symbol: Annotated[str | None, Meta(description="code map symbol id ('<lang> <path> <qualname>')")] = None


class MemoryEntry(_Record, frozen=True, kw_only=True):
    """A durable memory: a decision, constraint, lesson, ... kept as one Markdown file."""

    schema_version: str = SCHEMA_VERSION
    id: str
    kind: MemoryKind
    title: str
    body: str = ""
    scope: list[str] = field(default_factory=list)
    files: list[RepoPath] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    created_at: UtcDatetime
    valid_from: UtcDatetime | None = None
    valid_until: UtcDatetime | None = None
    superseded_by: str | None = None
    folded_into: str | None = None
    history: list[str] = field(default_factory=list)
    pinned: bool = False
    status: MemoryStatus = "active"
    archive_reason: str | None = None
    content_hash: str = ""
    hits: NonNegative = 0
    last_used_at: UtcDatetime | None = None
    ties: list[CodeTie] = field(default_factory=list)


class Symbol(_Record, frozen=True, kw_only=True):
    """A definition found in a source file."""

    id: Annotated[str, Meta(description="SCIP-like: '<lang> <path> <qualname><suffix>'")]
    name: str
    qualname: str
    kind: SymbolKind
    lang: str
    path: RepoPath
    line: Annotated[int, Meta(ge=1)]
    end_line: Annotated[int, Meta(ge=1)]
    signature: str | None = None
    doc: str | None = None
    parent: str | None = None
    exported: bool = True


class Reference(_Record, frozen=True, kw_only=True):
    """A use of a name: a call, an import, an inheritance, a type use."""

    symbol_name: str
    path: RepoPath
    line: Annotated[int, Meta(ge=1)]
    col: NonNegative = 0
    role: ReferenceRole
    enclosing: str | None = None
    qualifier: str | None = None
    receiver_type: Annotated[
        str | None,
        Meta(
            description="The declared class of the qualifier, as written in the file (`OrderStateMachine`,"
            " `models.Machine`), or a class and one attribute of it (`Services#machine`); from annotations"
            " and constructor calls, Python only"
        ),
    ] = None


class Edge(_Record, frozen=True, kw_only=True):
    """A resolved reference between two symbols (or files, for imports)."""

    src: str
    dst: str
    kind: EdgeKind
    confidence: Confidence
    path: RepoPath | None = None
    line: int | None = None
    resolution: Annotated[
        str | None,
        Meta(
            description="How the target was found: local, self, import, module-qualified, typed-receiver,"
            " inheritance, constructor, return-type (through a function's or method's result),"
            " module-instance (an imported module-level instance), fixture (a pytest fixture parameter),"
            " callback-parameter (a TypeScript callback parameter typed by what the call instantiates"
            " it with), alias (a call through a name bound to the function, `countedArray ="
            " counted_array`), name-only (only name-only edges are uncertain)"
        ),
    ] = None


class FileRecord(_Record, frozen=True, kw_only=True):
    """What the scanner knows about one file."""

    path: RepoPath
    lang: str | None = None
    size: NonNegative
    mtime_ns: NonNegative
    content_hash: str | None = None
    parse_status: ParseStatus = "ok"
    error: str | None = None


class QueryHit(_Record, frozen=True, kw_only=True):
    """One line of a query answer."""

    path: RepoPath
    line: int | None = None
    end_line: int | None = None
    text: str = ""
    kind: str | None = None
    symbol_id: str | None = None
    role: str | None = None
    confidence: Confidence | None = None
    score: float | None = None
    resolution: Annotated[
        str | None,
        Meta(description="How a reference or call was resolved (Edge.resolution); name-only hits are candidates"),
    ] = None


class QueryResult(_Record, frozen=True, kw_only=True):
    """An answer of the code map: capped, budgeted, with freshness facts."""

    schema_version: str = SCHEMA_VERSION
    command: str
    query: str = ""
    hits: list[QueryHit] = field(default_factory=list)
    total: NonNegative = 0
    truncated: bool = False
    omitted: NonNegative = 0
    partial: bool = False
    stale_files: list[RepoPath] = field(default_factory=list)
    index_revision: str | None = None
    elapsed_ms: float = 0.0
    token_estimate: NonNegative = 0
    hint: str | None = None
    certain: Annotated[
        NonNegative | None, Meta(description="refs/callers/impact: how many answers are resolved for certain")
    ] = None
    possible: Annotated[
        NonNegative | None,
        Meta(description="refs/callers/impact: how many more are possible by name only (listed after, labelled)"),
    ] = None
    notes: Annotated[
        list[str],
        Meta(
            description="What the text answer says above its hits: counts, an outline's size, external imports,"
            " answers read from files saved since the index was built (added in 1.2)"
        ),
    ] = field(default_factory=list)


class Attribution(_Record, frozen=True, kw_only=True):
    """What fed a model request: a tool result and the files it carried."""

    tool: str
    files: list[str] = field(default_factory=list)
    bytes: NonNegative = 0
    tokens: NonNegative = 0


class UsageRecord(_Record, frozen=True, kw_only=True):
    """One model call's token usage."""

    schema_version: str = SCHEMA_VERSION
    id: str
    ts: UtcDatetime
    provider: str
    model: str
    session_id: str | None = None
    parent_session_id: str | None = None
    task_id: str | None = None
    repo: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    request_id: str | None = None
    message_id: str | None = None
    input_tokens: NonNegative = 0
    output_tokens: NonNegative = 0
    cache_creation_tokens: NonNegative = 0
    cache_creation_1h_tokens: NonNegative = 0
    cache_read_tokens: NonNegative = 0
    reasoning_tokens: NonNegative = 0
    # Billed per request on top of tokens (Anthropic's usage.server_tool_use.web_search_requests).
    web_search_requests: NonNegative = 0
    # Anthropic's usage.server_tool_use.web_fetch_requests (no charge beyond the tokens it adds; kept to show).
    web_fetch_requests: NonNegative = 0
    # Where inference ran when the provider says (Anthropic's usage.inference_geo).
    inference_geo: str | None = None
    # The provider's service tier for the call (Anthropic's usage.service_tier: standard, priority, batch).
    service_tier: str | None = None
    message_count: NonNegative | None = None
    latency_ms: float | None = None
    # Proxy and SDK: from sending the request to the first generated text (time to first token).
    ttft_ms: float | None = None
    status: int | None = None
    error: str | None = None  # why the call did not complete (upstream closed mid-stream, client left, ...)
    is_sidechain: bool = False
    source: UsageSource = "provider-reported"
    origin: UsageOrigin
    dedupe_key: str
    attribution: list[Attribution] = field(default_factory=list)
    # The stable id of the machine that recorded the call (ingest, proxy or SDK wrapper), kept when the record is
    # copied to another machine; none in records written before it was stamped (the ledger that loads them gives
    # them its own machine's id). It names a team ledger's partition directory: the pattern is enforced.
    machine_id: MachineId | None = None


class ContextRecord(_Record, frozen=True, kw_only=True):
    """What ctxops put into an agent's context: memories injected or recalled, or a summarized tool output."""

    # memory-inject appends these; the ledger reads them (the lines never import each other).

    schema_version: str = SCHEMA_VERSION
    id: str
    ts: UtcDatetime
    action: ContextAction
    agent: AgentName | None = None
    session_id: str | None = None
    task_id: str | None = None
    repo: str | None = None
    hook: Annotated[str | None, Meta(description="SessionStart, UserPromptSubmit, PostToolUse, mcp, cli")] = None
    memory_ids: list[str] = field(default_factory=list)
    tokens: Annotated[int, Meta(ge=0, description="tokens that entered the context")] = 0
    # guard: tokens of the original tool output the summary replaced
    tokens_before: NonNegative | None = None
    budget: NonNegative | None = None
    omitted: NonNegative = 0
    tool_name: str | None = None
    command: str | None = None
    output_id: str | None = None
    tokenizer: str | None = None


PERSISTED_RECORDS: tuple[type[Struct], ...] = (AgentEvent, MemoryEntry, QueryResult, UsageRecord, ContextRecord)
ALL_RECORDS: tuple[type[Struct], ...] = (
    AgentEvent,
    MemoryEntry,
    Symbol,
    Reference,
    Edge,
    FileRecord,
    QueryHit,
    QueryResult,
    Attribution,
    UsageRecord,
    ContextRecord,
)
