"""The operations behind `cq` and the MCP tools. Each returns an `Answer`; rendering is elsewhere."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ctxops_contracts import QueryHit, Reference, Symbol

from .answer import Answer
from .backend import FileDeps, Hop
from .context import QueryContext
from .defs import BODY_PREVIEW_HITS, definition_text, describe, with_signature
from .defs import body_preview as _body_preview
from .errors import UsageError
from .suggest import suggest

MAX_DEPTH = 6
# Members shown as one line per run (an enum's values, a struct's fields), not one line each.
COLLAPSED_KINDS = frozenset({"field", "variable", "constant"})


def _base(ctx: QueryContext, command: str, query: str) -> Answer:
    index = ctx.index
    return Answer(command=command, query=query, index_revision=index.revision(), stale_files=index.stale_files())


def _symbol_hit(symbol: Symbol, text: str | None = None, **extra: object) -> QueryHit:
    return QueryHit(
        path=symbol.path,
        line=symbol.line,
        end_line=symbol.end_line,
        text=describe(symbol) if text is None else text,
        kind=symbol.kind,
        symbol_id=symbol.id,
        **extra,  # type: ignore[arg-type]
    )


def _no_definition(ctx: QueryContext, answer: Answer, name: str) -> Answer:
    plain = name.rpartition(":")[2].rpartition(".")[2]
    wanted = plain if plain else name
    answer.suggestions = suggest(wanted, ctx.index.names(near=wanted))
    answer.hint = f"cq search {name!r} for a fuzzy match, or cq grep {plain!r}"
    if ctx.index.revision() == "provisional":  # provisional.PROVISIONAL (not imported: subprocess)
        # A scan of the files that mention the name: a miss here is not yet a miss of the repository.
        answer.empty_reason = "in the provisional scan; the full index is still being built, retry in a few seconds"
    return answer


def resolve(ctx: QueryContext, name: str) -> list[Symbol]:
    if not name.strip():
        raise UsageError("empty name", fix="give a name: NAME, Class.method or path/to/file.py:NAME")
    return ctx.index.definitions(name)


def body_preview(ctx: QueryContext, symbol: Symbol) -> list[str]:
    """The first lines of a definition's body, dedented (the line after the signature onwards)."""
    return _body_preview(ctx.file_lines, symbol)


def cmd_def(ctx: QueryContext, name: str) -> Answer:
    answer = _base(ctx, "def", name)
    symbols = resolve(ctx, name)
    if not symbols:
        return _no_definition(ctx, answer, name)
    answer.hint = "qualify the name (Class.method) or scope it (path/to/file.py:NAME)"
    for i, symbol in enumerate(symbols):
        preview = body_preview(ctx, symbol) if i < BODY_PREVIEW_HITS else []
        text = definition_text(symbol, preview)
        answer.add(_symbol_hit(symbol, text))
    return answer


REF_ROLES = ("call", "import", "inherit", "type", "read", "write")
_RECEIVERS = frozenset({"self", "cls", "this", "Self", "super"})
_RANK = {"exact": 0, "import-resolved": 1, "name-only": 2}


def candidates(ctx: QueryContext, symbols: list[Symbol], roles: tuple[str, ...]) -> list[Reference]:
    """Uses of the symbols' bare name that no certain edge explains and that could be one of them: a
    method is reached through a receiver, a module-level function never through `self`."""
    members = any(s.parent for s in symbols)
    top_level = any(not s.parent for s in symbols)
    out: list[Reference] = []
    for ref in ctx.index.uncertain_references(symbols[0].name, roles):
        if ref.qualifier is None and not top_level and ref.role in ("call", "read"):
            continue
        if ref.qualifier in _RECEIVERS and not members:
            continue
        out.append(ref)
    return out


def _possible_note(n: int) -> str:
    return f", {n} more possible by name only" if n else ""


def rank_possible(symbols: list[Symbol], refs: list[Reference], ctx: QueryContext | None = None) -> list[Reference]:
    """The likeliest name-only candidates first: near the definition (same file, same directory, same
    top-level package), then (Python, with `ctx` to read the sites) calls passing as many arguments as
    the definition accepts (`arity.py`), then those whose receiver has the definition's shape (a method
    through a receiver, `self` first; a function through a bare name or a module), then by path and line."""
    homes = [s.path for s in symbols]
    members = any(s.parent for s in symbols)
    from .arity import accepted, passed

    found = [accepted(s.signature, drop_first=bool(s.parent)) for s in symbols if s.lang == "python"]
    # (every definition of the name must be readable: one that is not could take any call)
    ranges = [r for r in found if r is not None] if ctx is not None and None not in found else []

    def arity(ref: Reference) -> int:
        if ctx is None or not ranges or ref.role != "call":
            return 0

        def line_of(n: int) -> str | None:
            lines = ctx.file_lines(ref.path)
            return lines[n - 1] if 0 < n <= len(lines) else None

        n = passed(line_of, ref.line, ref.col, ref.symbol_name)
        if n is None:
            return 0
        return 0 if any(lo <= n and (hi is None or n <= hi) for lo, hi in ranges) else 1

    def near(path: str) -> int:
        best = 3
        for home in homes:
            if path == home:
                return 0
            if path.rpartition("/")[0] == home.rpartition("/")[0]:
                best = min(best, 1)
            elif path.partition("/")[0] == home.partition("/")[0] and "/" in path:
                best = min(best, 2)
        return best

    def shape(ref: Reference) -> int:
        q = ref.qualifier
        if members:
            return 0 if q in _RECEIVERS else (1 if q else 2)
        return 0 if q is None else 1

    return sorted(refs, key=lambda r: (near(r.path), arity(r), shape(r), r.path, r.line, r.col))


def _why(ctx: QueryContext, refs: list[Reference], what: str) -> str | None:
    # (a provisional scan resolves nothing: its own note says so)
    return None if ctx.index.revision() == "provisional" else why_uncertain(refs, what)


def why_uncertain(refs: list[Reference], what: str) -> str | None:
    """One line on why none of the uses is certain: the receivers that could not be typed."""
    if not refs:
        return None
    through = Counter(r.qualifier for r in refs if r.qualifier and r.qualifier not in _RECEIVERS)
    own = sum(1 for r in refs if r.qualifier in _RECEIVERS)
    bare = sum(1 for r in refs if not r.qualifier)
    parts = []
    if through:
        names = ", ".join(q for q, _n in through.most_common(3)) + (", ..." if len(through) > 3 else "")
        parts.append(f"{sum(through.values())} through receivers whose type is unknown ({names})")
    if own:
        parts.append(f"{own} through self/this of a class not known to inherit it")
    if bare:
        parts.append(f"{bare} by a bare name no import or enclosing definition binds to it")
    return f"no certain {what}: " + "; ".join(parts)


def cmd_refs(ctx: QueryContext, name: str) -> Answer:
    answer = _base(ctx, "refs", name)
    answer.grouped = True
    symbols = resolve(ctx, name)
    if not symbols:
        # Not defined here (a library's name): every use is a use of the name only.
        refs = ctx.index.references(name)
        if not refs:
            return _no_definition(ctx, answer, name)
        return _name_refs(ctx, answer, refs)
    answer.hint = "scope it (path/to/file.py:NAME) or ask cq callers for calls only"
    certain: dict[tuple[str, int | None, str], Hop] = {}
    for symbol in symbols:
        for hop in ctx.index.certain_uses(symbol.id, 1, REF_ROLES):
            certain.setdefault((hop.edge.path or "", hop.edge.line, hop.edge.kind), hop)
        if ctx.deadline.expired():
            answer.partial = True
            break
    taken = {(p, ln) for p, ln, _k in certain}
    possible = rank_possible(
        symbols, [r for r in candidates(ctx, symbols, REF_ROLES) if (r.path, r.line) not in taken], ctx
    )
    answer.certain, answer.possible = len(certain), len(possible)
    answer.total = len(certain) + len(possible)
    if not answer.total:
        answer.empty_reason = "defined, but no references found"
        return answer
    for (path, line, kind), hop in sorted(certain.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        code = ctx.line_text(path, line) if line else ""
        answer.add(
            QueryHit(
                path=path,
                line=line,
                text=f"{kind:<7}{code}",
                role=kind,
                confidence=hop.edge.confidence,
                resolution=hop.edge.resolution,
            )
        )
    _add_name_only(ctx, answer, possible)
    by_role = Counter(kind for _p, _l, kind in certain)
    files = len({p for p, _l, _k in certain})
    answer.notes.append(
        f"{len(certain)} references of {symbols[0].qualname} in {files} files"
        + (" (" + ", ".join(f"{n} {role}" for role, n in by_role.most_common()) + ")" if by_role else "")
        + _possible_note(len(possible))
    )
    if not certain and (why := _why(ctx, possible, "references")):
        answer.notes.append(why)
    return answer


def _add_name_only(ctx: QueryContext, answer: Answer, refs: list[Reference]) -> None:
    """Add uses matched by name only, each labelled so, until the deadline."""
    for ref in refs:
        if ctx.deadline.expired():
            answer.partial = True
            return
        answer.add(
            QueryHit(
                path=ref.path,
                line=ref.line,
                text=f"{ref.role:<7}{ctx.line_text(ref.path, ref.line)}",
                role=ref.role,
                confidence="name-only",
                resolution="name-only",
            )
        )


def _name_refs(ctx: QueryContext, answer: Answer, refs: list[Reference]) -> Answer:
    refs = [r for r in refs if not (r.role == "import" and r.qualifier is None and "." not in answer.query)]
    refs = sorted(refs, key=lambda r: (r.path, r.line, r.col))
    answer.hint = "not defined in this repository: these are uses of the name; cq grep for text"
    answer.certain, answer.possible = 0, len(refs)
    answer.total = len(refs)
    _add_name_only(ctx, answer, refs)
    answer.notes.append(
        f"no definition of {answer.query} in this repository; {len(refs)} uses by name only in"
        f" {len({r.path for r in refs})} files"
    )
    return answer


def _hops(ctx: QueryContext, command: str, name: str, depth: int) -> Answer:
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"--depth {depth} is out of range", fix=f"use 1..{MAX_DEPTH}")
    answer = _base(ctx, command, name)
    symbols = resolve(ctx, name)
    if not symbols:
        return _no_definition(ctx, answer, name)
    answer.hint = "qualify the name, lower --depth, or raise --max"
    from ctxops_code_scan.symbol_ids import first_definition  # (not at the top: cq grep and open never need it)

    hops: list[Hop] = []
    seen: set[tuple[str, str, int | None]] = set()
    for symbol in symbols:
        if command == "callers":
            found = ctx.index.certain_uses(symbol.id, depth, ("call",))
        else:
            found = ctx.index.callees(symbol.id, depth)
        for hop in found:
            key = (hop.edge.src, first_definition(hop.edge.dst), hop.edge.line)
            if key not in seen:
                seen.add(key)
                hops.append(hop)
        if ctx.deadline.expired():
            answer.partial = True
            break
    certain = [h for h in hops if h.edge.confidence != "name-only"]
    possible = [h for h in hops if h.edge.confidence == "name-only"]
    why = None
    if command == "callers":
        sites = {(h.edge.path, h.edge.line) for h in certain}
        possible, refs = _callers_by_name(ctx, symbols, sites)  # ranked, likeliest first
        why = None if certain else _why(ctx, refs, "callers")
    else:
        possible.sort(key=lambda h: (h.depth, h.edge.path or "", h.edge.line or 0))
    certain.sort(key=lambda h: (h.depth, _RANK.get(h.edge.confidence, 3), h.edge.path or "", h.edge.line or 0))
    answer.certain, answer.possible = len(certain), len(possible)
    answer.total = len(certain) + len(possible)
    if not answer.total:
        target = symbols[0].qualname
        answer.empty_reason = f"{target} has no known {'callers' if command == 'callers' else 'callees'}"
        return answer
    if possible:  # the command that lists every candidate (the rendered list is capped)
        shown = (
            name if name.replace(".", "").replace(":", "").replace("/", "").replace("_", "").isalnum() else repr(name)
        )
        answer.hint = (
            f"qualify the name, or list all {answer.total}: cq {command} {shown}"
            + (f" --depth {depth}" if depth > 1 else "")
            + f" --max {answer.total} --budget {max(2000, 40 * answer.total)}"
        )
    for hop in [*certain, *possible]:
        answer.add(_hop_hit(hop, command))
    answer.notes.append(
        f"{len(certain)} {command} of {symbols[0].qualname}"
        + (f" (depth <= {depth})" if depth > 1 else "")
        + _possible_note(len(possible))
    )
    if why:
        answer.notes.append(why)
    return answer


def _callers_by_name(
    ctx: QueryContext, symbols: list[Symbol], sites: set[tuple[str | None, int | None]] | None = None
) -> tuple[list[Hop], list[Reference]]:
    """Call sites of the bare name that no certain edge explains (none of ``sites``): name-only
    candidates, one hop, the likeliest first (`rank_possible`), and the references they come from."""
    from ctxops_contracts import Edge

    hops: list[Hop] = []
    refs = [r for r in candidates(ctx, symbols, ("call",)) if sites is None or (r.path, r.line) not in sites]
    for ref in rank_possible(symbols, refs, ctx):
        caller = ctx.index.symbol(ref.enclosing) if ref.enclosing else None
        edge = Edge(
            src=ref.enclosing or ref.path,
            dst=symbols[0].id,
            kind="call",
            confidence="name-only",
            path=ref.path,
            line=ref.line,
            resolution="name-only",
        )
        hops.append(Hop(edge=edge, depth=1, symbol=caller))
    return hops, refs


def _hop_hit(hop: Hop, command: str) -> QueryHit:
    sym = hop.symbol
    other = sym.qualname if sym else (hop.edge.src if command == "callers" else hop.edge.dst)
    depth = f" d{hop.depth}" if hop.depth > 1 else ""
    conf = hop.edge.confidence
    how = hop.edge.resolution or conf
    if command == "callers":
        # Where the call is written: the caller's call site.
        path = hop.edge.path or (sym.path if sym else "?")
        line = hop.edge.line if hop.edge.path else (sym.line if sym else None)
        text = f"{other}  [{how}{depth}]"
    else:
        path = sym.path if sym else (hop.edge.path or "?")
        line = sym.line if sym else hop.edge.line
        text = (describe(sym, doc=False) if sym else other) + f"  [{how}{depth}]"
    return QueryHit(
        path=path,
        line=line,
        text=text,
        kind=sym.kind if sym else None,
        symbol_id=sym.id if sym else None,
        role="call",
        confidence=conf,
        resolution=hop.edge.resolution,
    )


def cmd_callers(ctx: QueryContext, name: str, depth: int = 1) -> Answer:
    return _hops(ctx, "callers", name, depth)


def cmd_callees(ctx: QueryContext, name: str, depth: int = 1) -> Answer:
    return _hops(ctx, "callees", name, depth)


def cmd_brief(ctx: QueryContext, path: str) -> Answer:
    """An outline: one hit per top-level symbol (a run of top-level variables is one hit), its members
    folded into it as wrapped ``name:line`` detail lines, every top-level entry always listed: a symbol
    with more than `FOLD_MEMBERS` members is one line with a count and the command that expands it.
    ``FILE:Name`` outlines one class or struct with all its members."""
    from .repo import safe_path

    focus = ""
    if ":" in path:
        head, _, tail = path.rpartition(":")
        if head and tail and (ctx.root / head).is_file() and not (ctx.root / path).is_file():
            path, focus = head, tail
    _, rel = safe_path(ctx.root, path)
    answer = _base(ctx, "brief", f"{rel}:{focus}" if focus else rel)
    answer.grouped = True
    if not (ctx.root / rel).is_file():
        answer.empty_reason = "no such file"
        names = [f.path for f in ctx.index.files()]
        answer.suggestions = suggest(rel, names) or suggest(rel.rpartition("/")[2], names)
        return answer
    symbols = sorted(ctx.index.symbols_in_file(rel), key=lambda s: (s.line, -s.end_line))
    if not symbols:
        answer.empty_reason = "no symbols indexed in this file"
        answer.hint = f"cq open {rel} reads it"
        return answer
    if focus:
        return _brief_one(answer, rel, symbols, focus)
    folded = 0
    for top, members in _outline(symbols):
        text = _run_text(top)
        if len(members) > FOLD_MEMBERS:
            folded += 1
            text += f"\n{len(members)} members: cq brief {rel}:{top[0].qualname}"
        elif members:
            text += "\n" + "\n".join(_wrap_members(top[0], members))
        answer.add(_symbol_hit(top[0], text))
    answer.total = len(answer.hits)
    lines = len(ctx.file_lines(rel))
    answer.notes.append(f"{rel}: {lines} lines, {len(symbols)} symbols (members: name:line)")
    answer.hint = f"cq open {rel}:NAME for a body, cq def NAME for its doc" + (
        f", cq brief {rel}:NAME for a folded entry's members" if folded else ""
    )
    return answer


def _brief_one(answer: Answer, rel: str, symbols: list[Symbol], focus: str) -> Answer:
    """The outline of one class or struct: its line, then every member."""
    wanted = focus.replace("::", ".")
    matches = [s for s in symbols if s.qualname == wanted] or [s for s in symbols if s.name == wanted]
    if not matches:
        answer.empty_reason = f"no symbol {focus} in {rel}"
        answer.suggestions = suggest(wanted, [s.qualname for s in symbols])
        answer.hint = f"cq brief {rel} lists its top-level entries"
        return answer
    target = matches[0]
    prefix = target.qualname + "."
    members = [(s.qualname.removeprefix(prefix), s) for s in symbols if s.qualname.startswith(prefix)]
    answer.add(_symbol_hit(target, _brief_line(target)))
    for name, s in members:
        answer.add(_symbol_hit(s, f"{s.kind} {with_signature(name, name, s.signature, s.kind)}"))
    answer.total = len(answer.hits)
    answer.notes.append(f"{rel}:{target.qualname}: {len(members)} members")
    answer.hint = f"cq open {rel}:{target.name} for its body"
    return answer


# A top-level entry with more members than this is folded to one line (`cq brief FILE:Name` expands it),
# so one large struct or class never pushes the rest of the file out of the budget.
FOLD_MEMBERS = 40


# Members wrap at this many characters: under the default --width once indented.
MEMBER_WRAP = 140


def _outline(symbols: list[Symbol]) -> list[tuple[list[Symbol], list[tuple[str, Symbol]]]]:
    """Top-level entries in line order, each with its descendants named relative to it.

    An entry is a run of consecutive top-level variables/constants of one kind (no members), or one
    other top-level symbol with its members. A member written before its parent (a Go method above its
    type) is still listed under the parent, never as a top-level entry of its own."""
    by_id = {s.id: s for s in symbols}

    def top(s: Symbol) -> Symbol:
        seen = {s.id}
        while s.parent and s.parent in by_id and s.parent not in seen:
            s = by_id[s.parent]
            seen.add(s.id)
        return s

    tops = {s.id: top(s) for s in symbols}
    with_members = {t.id for sid, t in tops.items() if t.id != sid}
    entries: list[tuple[list[Symbol], list[tuple[str, Symbol]]]] = []
    index_of: dict[str, int] = {}
    for s in symbols:
        if tops[s.id] is not s:
            continue
        last = entries[-1][0] if entries else None
        collapsible = s.kind in COLLAPSED_KINDS and s.id not in with_members
        if last and collapsible and last[0].kind == s.kind and not any(x.id in with_members for x in last):
            last.append(s)
        else:
            entries.append(([s], []))
        index_of[s.id] = len(entries) - 1
    for s in symbols:
        first = tops[s.id]
        if first is s:
            continue
        rel = s.qualname.removeprefix(first.qualname + ".") if s.qualname.startswith(first.qualname + ".") else s.name
        entries[index_of[first.id]][1].append((rel, s))
    return entries


def _run_text(run: list[Symbol]) -> str:
    first = run[0]
    if len(run) == 1:
        return _brief_line(first)
    names = " ".join(s.name if s.line == first.line else f"{s.name}:{s.line}" for s in run)
    return f"{first.kind}s {names}"


def _wrap_members(top: Symbol, members: list[tuple[str, Symbol]]) -> list[str]:
    lines: list[str] = []
    current = ""
    for name, s in members:
        item = f"{name}:{s.line}"
        if current and len(current) + 1 + len(item) > MEMBER_WRAP:
            lines.append(current)
            current = item
        else:
            current = f"{current} {item}" if current else item
    if current:
        lines.append(current)
    return lines


def _brief_line(s: Symbol) -> str:
    # No doc line: an outline answers "what is here"; `cq def NAME` gives the doc and first body lines.
    return f"{s.kind} {with_signature(s.name, s.name, s.signature, s.kind)}"


def _is_file(ctx: QueryContext, arg: str) -> bool:
    if "/" in arg or "." in arg.rpartition("/")[2]:
        from .repo import safe_path

        try:
            absolute, _ = safe_path(ctx.root, arg)
        except UsageError:
            return False
        return absolute.is_file()
    return False


def cmd_deps(ctx: QueryContext, target: str) -> Answer:
    from .repo import safe_path

    if _is_file(ctx, target):
        _, rel = safe_path(ctx.root, target)
        answer = _base(ctx, "deps", rel)
        deps = ctx.index.file_deps(rel)
        subject = rel
    else:
        answer = _base(ctx, "deps", target)
        symbols = resolve(ctx, target)
        if not symbols:
            return _no_definition(ctx, answer, target)
        subject = symbols[0].path
        deps = ctx.index.file_deps(subject)
        importers = sorted({r.path for r in ctx.index.references(target) if r.role == "import"} - {subject})
        deps = FileDeps(
            imports=deps.imports, external=deps.external, imported_by=sorted(set(deps.imported_by) | set(importers))
        )
    for path in deps.imports:
        answer.add(QueryHit(path=path, text="<- imported by " + subject, role="import"))
    for path in deps.imported_by:
        answer.add(QueryHit(path=path, text="-> imports " + subject, role="imported-by"))
    answer.notes.append(f"{subject}: imports {len(deps.imports)} files, imported by {len(deps.imported_by)}")
    if deps.external:
        shown = ", ".join(deps.external[:8]) + (f" (+{len(deps.external) - 8})" if len(deps.external) > 8 else "")
        answer.notes.append(f"external: {shown}")
    if not answer.hits:
        answer.empty_reason = f"{subject} has no repository-internal imports or importers"
    answer.hint = "cq deps FILE for one file"
    return answer


def cmd_impact(ctx: QueryContext, name: str, depth: int = 3) -> Answer:
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"--depth {depth} is out of range", fix=f"use 1..{MAX_DEPTH}")
    answer = _base(ctx, "impact", name)
    symbols = resolve(ctx, name)
    if not symbols:
        return _no_definition(ctx, answer, name)
    from ctxops_code_scan.symbol_ids import first_definition

    callers: list[Hop] = []
    files: set[str] = set()
    tests: set[str] = set()
    for symbol in symbols:
        report = ctx.index.impact(symbol.id, depth)
        callers.extend(report.callers)
        files.update(report.files)
        tests.update(report.tests)
        if ctx.deadline.expired():
            answer.partial = True
            break
    tests_sorted = sorted(tests)
    sites = {(h.edge.path, h.edge.line) for h in callers}
    possible, refs = _callers_by_name(ctx, symbols, sites)
    distinct = {first_definition(h.symbol.id if h.symbol else h.edge.src) for h in callers}
    answer.notes.append(
        f"impact of {symbols[0].qualname} (depth <= {depth}): {len(distinct)} callers, "
        f"{len(files)} files, {len(tests_sorted)} tests" + _possible_note(len(possible))
    )
    if not callers and (why := _why(ctx, refs, "callers")):
        answer.notes.append(why)
    if tests_sorted:
        shown = ", ".join(tests_sorted[:3]) + (f" (+{len(tests_sorted) - 3})" if len(tests_sorted) > 3 else "")
        answer.notes.append(f"tests to run: {shown}")
    seen: set[str] = set()
    for hop in sorted(callers, key=lambda h: (h.depth, _RANK.get(h.edge.confidence, 3), h.edge.path or "")):
        key = first_definition(hop.symbol.id if hop.symbol else hop.edge.src)
        if key in seen:
            continue
        seen.add(key)
        answer.add(_hop_hit(hop, "callers"))
    answer.certain = len(answer.hits)
    for hop in possible:
        key = first_definition(hop.symbol.id if hop.symbol else hop.edge.src)
        if key in seen:
            continue
        seen.add(key)
        answer.add(_hop_hit(hop, "callers"))
    answer.possible = len(answer.hits) - answer.certain
    answer.total = len(answer.hits)
    if not answer.hits:
        answer.empty_reason = f"nothing calls {symbols[0].qualname}"
    answer.hint = "lower --depth or qualify the name"
    return answer


def cmd_map(ctx: QueryContext, query: str | None, limit: int) -> Answer:
    from .path_kinds import demotion

    answer = _base(ctx, "map", query or "")
    # Library code before tests, docs and config unless the query asks for them: rank a wider pool, then
    # move the demoted files behind the rest (each group keeps its rank order).
    pool = ctx.index.ranked_files(query or None, limit * 3)
    ranked = sorted(pool, key=lambda rf: demotion(rf.path, query))[:limit]
    for rf in ranked:
        names = [s.name for s in rf.symbols]
        text = ", ".join(names) if names else "(no top-level symbols)"
        answer.add(QueryHit(path=rf.path, text=text, score=round(rf.score, 5), kind="file"))
    answer.notes.append(
        "files ranked by PageRank over imports" + (f", personalized to: {query}" if query else "") + "; key symbols"
    )
    answer.hint = "cq map WORDS ranks files for a topic; cq brief FILE outlines one"
    return answer


def cmd_grep(
    ctx: QueryContext,
    pattern: str,
    paths: Sequence[str] = (),
    *,
    fixed: bool = False,
    ignore_case: bool = False,
    word: bool = False,
    globs: Sequence[str] = (),
    keep: int = 200,
) -> Answer:
    from .repo import safe_path
    from .ripgrep import GrepAborted, GrepOptions, GrepOverflow, run_grep

    checked = tuple(safe_path(ctx.root, p)[1] or "." for p in paths)
    answer = Answer(command="grep", query=pattern, grouped=True)
    opts = GrepOptions(
        pattern=pattern,
        paths=checked,
        fixed=fixed,
        ignore_case=ignore_case,
        word=word,
        globs=tuple(globs),
        keep=keep,
    )
    try:
        matches = run_grep(ctx.root, opts, timeout=ctx.deadline.remaining())
    except GrepOverflow as exc:
        matches = exc.matches
        answer.notes.append(f"output overflow: {exc.message}; counts are lower bounds")
    except GrepAborted as exc:
        matches = exc.matches
        answer.partial = True
    for m in matches.kept:
        answer.add(QueryHit(path=m.path, line=m.line, text=m.text))
    answer.total = matches.count
    if matches.count:
        answer.notes.insert(0, f"{matches.count} matches in {len(matches.files)} files")
    for warning in matches.warnings:
        answer.notes.append(f"warning: {warning}")
    answer.hint = "add a path or --glob, use -w, or use cq refs NAME for uses of a symbol"
    if not matches.count and not answer.partial:
        answer.hint = "try -i, or cq search for a fuzzy question"
    return answer


def cmd_open(ctx: QueryContext, spec: str) -> Answer:
    from .slices import DEFAULT_SLICE_LINES, parse_target, slice_hits

    target = parse_target(ctx.root, spec)
    answer = Answer(command="open", query=spec, grouped=True)
    start, end = target.start, target.end
    if target.name is not None:
        from .repo import safe_path

        _, rel = safe_path(ctx.root, target.path)
        answer.index_revision = ctx.index.revision()
        answer.stale_files = ctx.index.stale_files()
        wanted = target.name
        symbols = [s for s in ctx.index.symbols_in_file(rel) if wanted in (s.name, s.qualname, s.id)]
        if not symbols:
            answer.query = spec
            answer.empty_reason = f"no symbol {wanted} in {rel}"
            answer.suggestions = suggest(wanted, [s.qualname for s in ctx.index.symbols_in_file(rel)])
            answer.hint = f"cq brief {rel} lists its symbols"
            return answer
        symbol = min(symbols, key=lambda s: (wanted not in (s.qualname, s.name), s.line))
        start, end = symbol.line, symbol.end_line
        if len(symbols) > 1:
            answer.notes.append(f"{len(symbols)} symbols named {wanted} in {rel}; showing line {symbol.line}")
    elif start is None:
        start, end = 1, DEFAULT_SLICE_LINES
    hits, n_lines, rel = slice_hits(ctx.root, target.path, start, end)
    for hit in hits:
        answer.add(hit)
    answer.total = len(hits)
    if hits:
        last = hits[-1].line or 0
        answer.notes.append(f"{rel} lines {hits[0].line}-{last} of {n_lines}")
    answer.hint = f"cq open {rel}:A-B for another range"
    return answer
