"""`cq search TEXT`: structure first, then chunks.

1. Structure: every file is a document of its path words, symbol names and first doc lines; BM25
   over them picks a few candidate files (exact name matches are promoted).
2. Chunks: the function-level chunks (symbols with their first body lines) of those files are ranked
   by BM25 and, with the `vector` extra, by embedding similarity; the two rankings are fused (RRF).
   Library code ranks above tests, docs and configuration unless the question asks for them, and
   functions and classes above constants and variables.
3. With vectors, the files of the chunks nearest to the question in the whole table (filled by
   ``cq index --vectors``) join the candidates, so a description that shares no word with the code can
   still reach it.

The file documents are cached per index generation under `.meta/index/`, so a repeated search does
not rebuild them.
"""

from __future__ import annotations

import contextlib
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import msgspec
from ctxops_code_scan.symbol_ids import first_definition
from ctxops_contracts import QueryHit, Symbol
from ctxops_contracts.shared.confine import read_regular
from ctxops_contracts.shared.files import atomic_write

from .answer import Answer
from .commands import _base
from .context import QueryContext
from .defs import CALLABLE_KINDS, describe
from .errors import UsageError
from .path_kinds import demotion
from .repo import index_dir
from .suggest import suggest
from .textsearch import BM25, words

if TYPE_CHECKING:
    from .vectors import Chunk, VectorStore

CANDIDATE_FILES = 5
CHUNK_BODY_LINES = 40
RRF_K = 60
VECTOR_FILES = 3  # candidate files added from the whole vector table
CHUNK_KINDS = CALLABLE_KINDS | {"constant", "variable", "type"}


@dataclass
class FileDocs:
    generation: str
    paths: list[str]
    docs: list[list[str]]
    hashes: dict[str, str | None]


# msgpack decoded into a fixed shape, never pickle: `.meta/index/` is a directory a cloned repository can
# fill, and unpickling its file ran any code it held (cq search in a hostile clone; issue 21).
_DOCS_FILE = "cq-search-docs.msgpack"
_DOCS_LIMIT = 512_000_000


class _StoredDocs(msgspec.Struct):
    generation: str
    paths: list[str]
    docs: list[list[str]]
    hashes: dict[str, str | None]


def _load_docs(ctx: QueryContext) -> FileDocs | None:
    with contextlib.suppress(OSError, msgspec.DecodeError, UnicodeDecodeError):
        data = read_regular(str(index_dir(ctx.root) / _DOCS_FILE), _DOCS_LIMIT)
        stored = msgspec.msgpack.decode(data, type=_StoredDocs)
        if len(stored.paths) == len(stored.docs):
            return FileDocs(generation=stored.generation, paths=stored.paths, docs=stored.docs, hashes=stored.hashes)
    return None


def prepare(ctx: QueryContext) -> FileDocs:
    """The per-file documents of stage 1, current with the index.

    Kept under `.meta/index/` with each file's content hash, so after an edit only the changed files
    are read again. Runs before the query's deadline starts (like a first index build).
    """
    generation = ctx.index.generation()
    held = ctx.derived.get("search-docs")
    if isinstance(held, FileDocs) and held.generation == generation:
        return held  # prepared before the deadline started: not read from disk again within the query
    cached = _load_docs(ctx)
    if cached is not None and cached.generation == generation:
        ctx.derived["search-docs"] = cached
        return cached
    old = dict(zip(cached.paths, cached.docs, strict=True)) if cached else {}
    old_hashes = cached.hashes if cached else {}
    paths: list[str] = []
    docs: list[list[str]] = []
    hashes: dict[str, str | None] = {}
    files = ctx.index.files()
    reuse = {
        f.path: old[f.path]
        for f in files
        if f.content_hash and old_hashes.get(f.path) == f.content_hash and f.path in old
    }
    todo = [f for f in files if f.path not in reuse]
    # Many files to (re)read: one pass over every symbol beats one query per file.
    symbols_of: dict[str, list[Symbol]] = defaultdict(list)
    if len(todo) > 50:
        # Lazily built (the index came from elsewhere than `cq index`): say so on a terminal.
        if sys.stderr.isatty():
            sys.stderr.write(f"cq: building the search documents of {len(todo)} files (once) ...\n")
            sys.stderr.flush()
        for sym in ctx.index.all_symbols():
            symbols_of[sym.path].append(sym)
    else:
        for f in todo:
            symbols_of[f.path] = ctx.index.symbols_in_file(f.path)
    for f in files:
        hashes[f.path] = f.content_hash
        doc = reuse.get(f.path)
        if doc is None:
            doc = words(f.path.replace("/", " ")) * 3
            for sym in symbols_of.get(f.path, ()):
                doc.extend(words(sym.name) * 2)
                if sym.doc:
                    doc.extend(words(sym.doc))
        paths.append(f.path)
        docs.append(doc)
    fresh = FileDocs(generation=generation, paths=paths, docs=docs, hashes=hashes)
    with contextlib.suppress(OSError):
        target = index_dir(ctx.root) / _DOCS_FILE
        stored = _StoredDocs(generation=fresh.generation, paths=fresh.paths, docs=fresh.docs, hashes=fresh.hashes)
        atomic_write(target, msgspec.msgpack.encode(stored), fsync=False)
    ctx.derived["search-docs"] = fresh
    return fresh


def candidate_files(ctx: QueryContext, text: str, k: int = CANDIDATE_FILES) -> list[tuple[str, float]]:
    """Stage 1: the files whose paths, symbol names and docs best match ``text``."""
    docs = prepare(ctx)
    if not docs.paths:
        return []
    ranked = BM25(docs.docs).top(words(text), k)
    return [(docs.paths[i], s) for i, s in ranked]


def chunk_text(ctx: QueryContext, symbol: Symbol) -> str:
    lines = ctx.file_lines(symbol.path)
    stop = min(symbol.end_line, symbol.line + CHUNK_BODY_LINES)
    body = "\n".join(lines[symbol.line - 1 : stop])
    return f"{symbol.qualname} {symbol.signature or ''} {symbol.doc or ''}\n{body}"


@dataclass
class _Candidates:
    exact: list[Symbol]
    file_score: dict[str, float]
    chunks: list[Symbol]
    texts: list[str]
    partial: bool
    embedded: bool = False  # every chunk already in the vector table (`prepare_vectors`)


def _candidates(ctx: QueryContext, text: str, files: int, store: VectorStore | None) -> _Candidates:
    """Stages 1 and 3: the candidate files' chunks and their texts (held for the query's context)."""
    key = f"search-candidates\0{files}\0{store is not None}\0{text}"
    held = ctx.derived.get(key)
    if isinstance(held, _Candidates):
        return held
    exact = [s for s in ctx.index.definitions(text.strip())] if text.strip().isidentifier() else []
    candidates = candidate_files(ctx, text, files)
    paths = [p for p, _ in candidates]
    for s in exact:
        if s.path not in paths:
            paths.append(s.path)
    if store is not None:
        for path in store.nearest_paths(text, k=VECTOR_FILES):
            if path not in paths:
                paths.append(path)
    chunks: list[Symbol] = []
    partial = False
    for path in paths:
        chunks.extend(s for s in ctx.index.symbols_in_file(path) if s.kind in CHUNK_KINDS)
        if ctx.deadline.expired():
            partial = True
            break
    found = _Candidates(exact, dict(candidates), chunks, [chunk_text(ctx, s) for s in chunks], partial)
    if not partial:
        ctx.derived[key] = found
    return found


def prepare_vectors(ctx: QueryContext, text: str, *, files: int = CANDIDATE_FILES) -> None:
    """Embed the candidate chunks not yet in the vector table, before the query's deadline starts.

    Embedding code is index building (like a first `cq index`): a first `--vector` search on a slow
    machine must not spend its deadline on it and answer nothing."""
    if not words(text):
        return
    store = vector_store(ctx)
    found = _candidates(ctx, text, files, store)
    store.ensure(_chunk_rows(found.chunks, found.texts))
    found.embedded = not found.partial


def cmd_search(ctx: QueryContext, text: str, *, vector: bool = False, files: int = CANDIDATE_FILES) -> Answer:
    if not words(text):
        raise UsageError(f"nothing to search for in {text!r}", fix="use descriptive words, e.g. 'parse http headers'")
    answer = _base(ctx, "search", text)
    query_words = words(text)
    store = vector_store(ctx) if vector else None
    found = _candidates(ctx, text, files, store)
    exact, file_score, chunks, texts = found.exact, found.file_score, found.chunks, found.texts
    answer.partial = found.partial
    if not chunks:
        answer.empty_reason = "no file matches these words"
        wanted = text.strip().replace(" ", "_")
        answer.suggestions = suggest(wanted, ctx.index.names(near=wanted))
        answer.hint = "use words that appear in names or docs, or cq grep PATTERN"
        return answer
    bm25 = BM25([words(t) + words(s.name) * 3 + words(s.doc or "") * 2 for t, s in zip(texts, chunks, strict=True)])
    lexical = bm25.scores(query_words)
    rankings: list[list[int]] = [
        [i for i in sorted(range(len(chunks)), key=lambda i: -lexical[i]) if lexical[i] > 0],
    ]
    if store is not None:
        rankings.append(_vector_ranking(store, chunks, texts, text, embedded=found.embedded))
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, i in enumerate(ranking):
            fused[i] += 1.0 / (RRF_K + rank)
    exact_ids = {s.id for s in exact}
    for i, s in enumerate(chunks):
        if s.id in exact_ids:
            fused[i] += 1.0
        elif i in fused:
            fused[i] += 0.002 * file_score.get(s.path, 0.0)  # the file's structural match breaks ties
            if demotion(s.path, text):
                fused[i] *= 0.6  # "the code that does X" is rarely its test, its docs or its config
            if s.kind not in CALLABLE_KINDS:
                fused[i] *= 0.7  # ... and rarely a constant or a variable that shares a word with it
    order = sorted(fused, key=lambda i: (-fused[i], chunks[i].path, chunks[i].line))
    # One hit per function: a TypeScript function's overload declarations are its signatures, not more code.
    functions: set[str] = set()
    distinct: list[int] = []
    for i in order:
        function = first_definition(chunks[i].id)
        if function not in functions:
            functions.add(function)
            distinct.append(i)
    order = distinct
    answer.total = len(order)
    for i in order:
        s = chunks[i]
        answer.add(
            QueryHit(
                path=s.path,
                line=s.line,
                end_line=s.end_line,
                text=describe(s, signature=False),
                kind=s.kind,
                symbol_id=s.id,
                score=round(fused[i], 5),
            )
        )
    answer.ranked = answer.grouped = True
    answer.hint = "add distinctive words"
    if not answer.hits:
        answer.empty_reason = "candidate files found, but no chunk matches these words"
    return answer


def vector_store(ctx: QueryContext) -> VectorStore:
    """The vector table of the configured embedder, opened once per query context."""
    held = ctx.derived.get("vector-store")
    if held is not None:
        return cast("VectorStore", held)
    from .embedders import load_embedder
    from .vectors import VectorStore

    store = VectorStore(index_dir(ctx.root) / "vectors", load_embedder())
    ctx.derived["vector-store"] = store
    return store


def _chunk_rows(chunks: list[Symbol], texts: list[str]) -> list[Chunk]:
    from .vectors import Chunk

    return [
        Chunk(id=s.id, path=s.path, line=s.line, end_line=s.end_line, name=s.name, kind=s.kind, text=t)
        for s, t in zip(chunks, texts, strict=True)
    ]


def _vector_ranking(
    store: VectorStore, chunks: list[Symbol], texts: list[str], query: str, *, embedded: bool
) -> list[int]:
    if not embedded:  # `prepare_vectors` embeds them before the deadline when `execute` runs the search
        store.ensure(_chunk_rows(chunks, texts))
    position = {s.id: i for i, s in enumerate(chunks)}
    hits = store.search(query, paths=sorted({s.path for s in chunks}), k=len(chunks))
    return [position[cid] for cid, _ in hits if cid in position]


def build_vectors(ctx: QueryContext) -> int:
    """Embed every function-level chunk of the repository (``cq index --vectors``)."""
    from .embedders import load_embedder
    from .vectors import Chunk, VectorStore

    store = VectorStore(index_dir(ctx.root) / "vectors", load_embedder())
    chunks = [s for s in ctx.index.all_symbols() if s.kind in CHUNK_KINDS]
    return store.ensure(
        [
            Chunk(
                id=s.id,
                path=s.path,
                line=s.line,
                end_line=s.end_line,
                name=s.name,
                kind=s.kind,
                text=chunk_text(ctx, s),
            )
            for s in chunks
        ]
    )
