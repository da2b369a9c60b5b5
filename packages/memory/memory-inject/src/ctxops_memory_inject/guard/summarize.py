"""Summarizers per tool family: keep every failing test id, every error or warning location, the exit
status and the summary line; fold passing noise, progress and code frames into counted markers."""

from __future__ import annotations

from ctxops_contracts.shared import jsonlite, regex

from .folding import (
    FAILURE,
    LOCATION,
    SUMMARY,
    WARNING,
    bounded,
    clean_lines,
    clip,
    collapse_repeats,
    is_signal,
    render,
)

TYPE_CHECKING = False  # re is not imported: patterns come from the regex cache (ctxops_contracts.shared.regex)
if TYPE_CHECKING:
    import re

# -- test runners ------------------------------------------------------------------------------------------

_PASS = regex.compile(
    r"\bPASSED\b|^\s*[✓✔√]|--- PASS|^=== (?:RUN|PAUSE|CONT|NAME)\b|^\s*PASS\s|\.\.\. ok$|^test .* \.\.\. ok$"
    r"|^\s*ok \d+ |^\s*# (?:Subtest|pass)\b"
)
# lines that open one failure's report: its body (assertion, expected/received) follows
_BLOCK = regex.compile(
    r"^_{3,} .+ _{3,}$|^\s*● |^--- FAIL|^---- .+ stdout ----$|^(?:FAIL|ERROR): test|^\s*not ok \d+|^\s*[✕×✗] "
    r"|^\s*FAIL\s+\S+\s*>|^Traceback"
)
_PASSED_MARK = regex.compile(r"^\s*[✓✔√] ")  # a passing test line, whatever words its name has
_PROGRESS = regex.compile(r"^[.sxFEX]+\s*(?:\[\s*\d+%\])?$")
_BODY_LINES = 10


_PYTEST_SECTION = regex.compile(
    r"^=+ (FAILURES|ERRORS|short test summary info|warnings summary|.*(?:passed|failed|error).*) =+$|^=+ [\w ]+ =+$"
)
_PYTEST_BLOCK = regex.compile(r"^_{3,} (.+?) _{3,}$")
_PYTEST_WHERE = regex.compile(r"^(?:[\w./-]+\.py):\d+: \S")
_E_LINES = 3


def summarize_pytest(lines: list[str]) -> list[str]:
    """pytest: in FAILURES/ERRORS, each block's header, its first E lines and its last two locations;
    outside them, failures, summaries and warnings; passing and progress lines folded."""
    keep: set[int] = set()
    section = ""
    e_count = 0
    where: list[int] = []

    def close_block() -> None:
        keep.update(where[-1:])
        where.clear()

    for i, line in enumerate(lines):
        head = _PYTEST_SECTION.match(line)
        if head:
            close_block()
            section = (head.group(1) or "").lower()
            keep.add(i)
            continue
        if section in ("failures", "errors"):
            if _PYTEST_BLOCK.match(line):
                close_block()
                keep.add(i)
                e_count = 0
            elif line.startswith("E "):
                e_count += 1
                if e_count <= _E_LINES:
                    keep.add(i)
            elif _PYTEST_WHERE.match(line):
                where.append(i)
            continue
        if section == "warnings summary":
            if LOCATION.search(line) or WARNING.search(line):
                keep.add(i)
            continue
        if _PASS.search(line) or _PROGRESS.match(line.strip().split("  ")[0] or "."):
            continue
        if is_signal(line):
            keep.add(i)
    close_block()
    keep.update(_edges(lines, head=0, tail=2))
    out: list[str] = []
    seen: dict[tuple[str, ...], str] = {}
    block_name = ""
    block: list[str] = []

    def flush_block() -> None:
        # a failure whose E lines and location repeat an earlier one's is named, not repeated
        key = tuple(block)
        if block_name and key and key in seen:
            out.append(f"___ {block_name}: same error as {seen[key]}")
        else:
            if block_name:
                out.append(f"___ {block_name}")
                if key:
                    seen[key] = block_name
            out.extend(block)
        block.clear()

    named: set[str] = set()
    for i in sorted(keep):  # tracebacks and passing lines are dropped without markers: the header says so
        line = lines[i]
        header = _PYTEST_BLOCK.match(line)
        if header:
            flush_block()
            block_name = header.group(1)
            named.add(block_name)
        elif _PYTEST_SECTION.match(line):
            flush_block()
            block_name = ""
            out.append(line)
        elif block_name:
            block.append(clip(line, 240))
        else:
            out.append(clip(_without_repeated_reason(line, named), 240))
    flush_block()
    return ["(pytest: per failure its header, first E lines and raising location; tracebacks folded)", *out]


_SHORT_FAILED = regex.compile(r"^FAILED (\S+?::(\S+)) - ")


def _without_repeated_reason(line: str, named: set[str]) -> str:
    """``FAILED id - reason`` without the reason when the failure's block above shows it (the short
    summary's reason is the first E line, cut to the terminal width)."""
    match = _SHORT_FAILED.match(line)
    if match and match.group(2).replace("::", ".") in named:
        return f"FAILED {match.group(1)}"
    return line


def _is_pytest(lines: list[str]) -> bool:
    return any(
        _PYTEST_SECTION.match(line)
        and ("FAILURES" in line or "short test summary" in line or "test session starts" in line)
        for line in lines
    )


def summarize_test(text: str) -> list[str]:
    lines = clean_lines(text)
    go_json = _go_json(lines)
    if go_json is not None:
        return go_json
    if _is_pytest(lines):
        return summarize_pytest(lines)
    keep: set[int] = set()
    body = 0
    for i, line in enumerate(lines):
        if _BLOCK.search(line):
            keep.add(i)
            body = _BODY_LINES
            continue
        if _PASSED_MARK.match(line) or (_PASS.search(line) and not FAILURE.search(line.split("PASS", 1)[-1])):
            body = 0
            continue
        if _PROGRESS.match(line.strip()) and "F" not in line and "E" not in line:
            continue
        if is_signal(line) or line.lstrip().startswith((">", "E ")) or (body and line.strip()):
            keep.add(i)
        if body:
            body -= 1
    keep.update(_edges(lines, head=1, tail=4))
    return render(lines, keep)


def _go_json(lines: list[str]) -> list[str] | None:
    """``go test -json``: failing tests with their output, package results, nothing else."""
    if not lines or (not lines[0].startswith('{"Time"') and not lines[0].startswith('{"Action"')):
        return None
    outputs: dict[tuple[str, str], list[str]] = {}
    failed: list[tuple[str, str]] = []
    packages: list[str] = []
    for line in lines:
        try:
            event = jsonlite.loads(line)
        except ValueError:
            continue
        pkg, test, action = event.get("Package", ""), event.get("Test", ""), event.get("Action")
        if action == "output":
            outputs.setdefault((pkg, test), []).append(str(event.get("Output", "")).rstrip("\n"))
        elif action == "fail":
            if test:
                failed.append((pkg, test))
            else:
                packages.append(f"FAIL\t{pkg}")
        elif action == "pass" and not test:
            packages.append(f"ok  \t{pkg}")
    out: list[str] = []
    for pkg, test in failed:
        out.append(f"--- FAIL: {test} ({pkg})")
        body = [o for o in outputs.get((pkg, test), []) if o.strip() and not o.startswith(("=== RUN", "--- FAIL"))]
        out.extend(clip(o) for o in body[:_BODY_LINES])
    build = [o for (pkg, test), outs in outputs.items() if not test for o in outs if LOCATION.search(o)]
    return out + [clip(b) for b in build] + packages


# -- type checkers and linters --------------------------------------------------------------------------------

_ESLINT_FILE = regex.compile(r"^(?:[A-Za-z]:)?[/\w.@+~-][^\s:]*\.\w+$")
_ESLINT_ROW = regex.compile(r"^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?\s*$")
_ARROW = regex.compile(r"^\s*-->\s*(\S+)")
_FRAME = regex.compile(r"^\s*(?:\d+\s*)?\|")
_CODE = regex.compile(
    r"\b(TS\d{3,5}|[A-Z]{1,4}\d{2,4}|E\d{4})\b|\[([\w-]+)\]\s*$|\s(@?[\w-]+/[\w-]+|[a-z]+(?:-[a-z]+)+)\s*$"
)
_GROUP_AT = 60  # more diagnostics than this: grouped by rule/code, every location still listed


def summarize_check(text: str) -> list[str]:
    lines = clean_lines(text)
    diagnostics: list[tuple[str, str]] = []  # (location, message)
    others: list[str] = []
    current_file = ""
    previous = ""
    for line in lines:
        if not line.strip():
            continue
        row = _ESLINT_ROW.match(line)
        if row and current_file:
            msg = f"{row.group(3)} {row.group(4)}" + (f"  {row.group(5)}" if row.group(5) else "")
            diagnostics.append((f"{current_file}:{row.group(1)}:{row.group(2)}", msg))
            continue
        if _ESLINT_FILE.match(line.strip()) and not LOCATION.search(line):
            current_file = line.strip()
            continue
        arrow = _ARROW.match(line)
        if arrow and LOCATION.search(arrow.group(1)):
            diagnostics.append((arrow.group(1), previous.strip()))
            if others and others[-1] == previous:
                others.pop()
            continue
        located = LOCATION.search(line)
        if located and located.start() < 8 and not _FRAME.match(line):
            rest = line[located.end() :].lstrip(" :-")
            diagnostics.append((located.group(0), rest))
        elif not _FRAME.match(line) and (FAILURE.search(line) or WARNING.search(line) or SUMMARY.search(line)):
            others.append(line)
        previous = line
    if not diagnostics:
        return summarize_generic(text)
    return _group(diagnostics) + [clip(o) for o in collapse_repeats(others)]


def _code(message: str) -> str:
    match = _CODE.search(message)
    if not match:
        return ""
    return next(g for g in match.groups() if g)


def _group(diagnostics: list[tuple[str, str]]) -> list[str]:
    by_message: dict[str, list[str]] = {}
    for loc, msg in diagnostics:
        by_message.setdefault(msg, []).append(loc)
    if len(diagnostics) > _GROUP_AT:
        by_code: dict[str, list[tuple[str, str]]] = {}
        for loc, msg in diagnostics:
            by_code.setdefault(_code(msg) or msg, []).append((loc, msg))
        out = [f"{len(diagnostics)} diagnostics in {len(by_code)} groups (by rule/code; every location kept):"]
        for code, items in sorted(by_code.items(), key=lambda kv: -len(kv[1])):
            out.append(f"{code} ×{len(items)} — e.g. {clip(items[0][1], 200)}")
            out.append("  at " + ", ".join(loc for loc, _ in items))
        return out
    out = []
    for msg, locs in by_message.items():
        if len(locs) >= 3:
            out.append(f"{clip(msg, 300)}  (×{len(locs)}) at " + ", ".join(locs))
        else:
            out.extend(f"{loc}: {clip(msg, 300)}" for loc in locs)
    return out


# -- installs and builds --------------------------------------------------------------------------------------

_NOISE = regex.compile(
    r"^\s*(?:Collecting|Downloading|Using cached|Requirement already satisfied|Obtaining|Installing collected|"
    r"Building wheels? for|Created wheel|Stored in directory|Preparing metadata|Getting requirements|"
    r"Resolved|Prepared|Audited|Installed \d+|Uninstalled|Built |Compiling|Fetching|Downloaded|Checking|"
    r"Updating|Locking|Blocking|Progress|Reading|Unpacking|Selecting|Setting up|Processing|Get:|Hit:|"
    r"npm (?:http|timing|sill|verb)|reify|idealTree|\+ |- |added \d+|removed \d+|changed \d+|up to date|"
    r"packages are looking for funding|run `npm fund`|#\d+ (?:\[|sha256|DONE|CACHED|transferring|resolve))"
    r"|[━█▓▒░⣿]{3,}|(?<!\d)\d+%\s*\||\[\d+/\d+\]"  # a number from its first digit: digit runs scanned once
)


def summarize_build(text: str) -> list[str]:
    lines = clean_lines(text)
    keep: set[int] = set()
    after = 0
    for i, line in enumerate(lines):
        if FAILURE.search(line) or (LOCATION.search(line) and not _NOISE.search(line)):
            keep.add(i)
            after = 3
        elif WARNING.search(line) or SUMMARY.search(line):
            keep.add(i)
        elif after and line.strip() and not _NOISE.search(line):
            keep.add(i)
            after -= 1
        else:
            after = 0 if not line.strip() else after
    keep.update(_edges(lines, head=2, tail=6))
    return collapse_repeats(render(lines, keep))


# -- version control ------------------------------------------------------------------------------------------

_CONTEXT_KEEP = 2


def summarize_diff(text: str, worktree: str | None = None) -> list[str]:
    """Headers, hunk headers and every changed line; unchanged context beyond two lines a side folded.
    With ``worktree`` (the git top level), a patch that creates a whole file identical to that file in
    the working tree (or identical but for a few lines, which are kept) is named, not repeated."""
    lines = clean_lines(text)
    if not any(line.startswith("diff --git") for line in lines):
        if any(_COMMIT.match(line) for line in lines):
            return summarize_log(text, worktree)
        return _compact_stats(lines)  # git diff --stat / --name-only: no patch, nothing to fold
    stat = [_diff_stat(lines)]
    if worktree:
        from .known_files import fold_known_files  # file reads: only for patches against a work tree

        lines = fold_known_files(lines, worktree)
    # changed lines, and --stat lines (they start with a space, like context, but were asked for)
    changed = {i for i, line in enumerate(lines) if not line.startswith(" ") or _FILE_STAT.match(line)}
    # git log -p / git show: each commit's subject (the first indented line after Date:) is kept too
    after_date = False
    for i, line in enumerate(lines):
        if line.startswith("Date:"):
            after_date = True
        elif after_date and line.strip():
            changed.add(i)
            after_date = False
    keep: set[int] = set()
    for i in changed:
        keep.update(range(max(0, i - _CONTEXT_KEEP), min(len(lines), i + _CONTEXT_KEEP + 1)))
    return stat + render(lines, keep, why="of unchanged context folded", count_blank=True)


def _diff_stat(lines: list[str]) -> str:
    files = sum(1 for line in lines if line.startswith("diff --git"))
    plus = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    minus = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return f"{files} file{'s' if files != 1 else ''} changed, +{plus} -{minus}"


_COMMIT = regex.compile(r"^commit ([0-9a-f]{7,40})")


_STAT = regex.compile(r"^\s*\d+ files? changed")


_FILE_STAT = regex.compile(r"^ (\S.*?)\s+\|\s+(\d+)(?: ([+-]+))?$")


def _compact_stats(lines: list[str]) -> list[str]:
    """``--stat`` file lines without alignment padding; each block's ``+++--`` bars are dropped only when
    the block's summary line shows they say nothing more (insertions only or deletions only)."""
    out: list[str] = []
    block: list[re.Match[str]] = []

    def flush(one_sided: bool) -> None:
        for stat in block:
            bar = f" {stat.group(3)}" if stat.group(3) and not one_sided else ""
            out.append(f" {stat.group(1)} | {stat.group(2)}{bar}")
        block.clear()

    for line in lines:
        stat = _FILE_STAT.match(line)
        if stat:
            block.append(stat)
            continue
        if block:
            flush(bool(_STAT.match(line)) and not ("(+)" in line and "(-)" in line))
        out.append(line)
    flush(False)
    return out


def summarize_log(text: str, worktree: str | None = None) -> list[str]:
    """Every commit and its whole message: one header line per commit (short hash, author, date), the
    message without its indent, ``--stat`` lines compacted (see ``_compact_stats``). ``git log -p`` goes to
    the patch summarizer; a log without ``commit`` lines (``--oneline``) only has its stats compacted."""
    lines = clean_lines(text)
    if any(line.startswith("diff --git") for line in lines):
        return summarize_diff(text, worktree)  # git log -p: the patches are what was asked for
    if not any(_COMMIT.match(line) for line in lines):
        return _compact_stats(lines)
    out: list[str] = []
    count = 0
    header: dict[str, str] = {}

    def flush_header() -> None:
        if header:
            fields = [header["hash"], header.get("author", ""), header.get("date", "")]
            out.append("commit " + " · ".join(f for f in fields if f))
            header.clear()

    for line in lines:
        match = _COMMIT.match(line)
        if match:
            flush_header()
            header["hash"] = match.group(1)[:10] + line[match.end() :]  # decorations (tags, branches) kept
            count += 1
        elif header and line.startswith("Author:") and "author" not in header:
            header["author"] = line[7:].strip()
        elif header and line.startswith("Date:") and "date" not in header:
            header["date"] = line[5:].strip()
        elif header and not line.strip():
            continue  # the blank line between the header and the message
        else:
            flush_header()
            if line.startswith("    "):
                out.append("  " + line[4:] if line.strip() else "")
            else:
                out.append(line)
    flush_header()
    return [
        f"{count} commits (hashes cut to 10 characters; message indent and stat padding removed):",
        *_compact_stats(out),
    ]


def summarize_status(text: str) -> list[str]:
    """Branch and state lines kept; long file lists grouped by directory with counts."""
    lines = clean_lines(text)
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) <= 12:
            out.extend(run)
        else:
            dirs: dict[str, int] = {}
            for entry in run:
                path = entry.strip().split()[-1]
                top = path.rsplit("/", 1)[0] + "/" if "/" in path else "./"
                dirs[top] = dirs.get(top, 0) + 1
            out.extend(f"\t{d} ({n} files)" for d, n in sorted(dirs.items()))
        run.clear()

    for line in lines:
        if line.startswith(("\t", " M ", "?? ", " D ", "A  ", "M  ")):
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return out


# -- search floods ------------------------------------------------------------------------------------------

_HIT = regex.compile(r"^((?:[A-Za-z]:)?[^:\s][^:]*?):(\d+)[:-](.*)$")
_FILE_HIT = regex.compile(r"^((?:[A-Za-z]:)?[^:\s][^:]*?):(.*)$")


def summarize_search(text: str, max_hits: int = 10, max_paths: int = 40) -> list[str]:
    """Hits grouped by file (path once), at most ``max_hits`` shown, the rest counted."""
    lines = [line for line in clean_lines(text) if line.strip()]
    groups: dict[str, list[str]] = {}
    plain: list[str] = []
    for line in lines:
        hit = _HIT.match(line)
        if hit:
            groups.setdefault(hit.group(1), []).append(f"{hit.group(2)}: {clip(hit.group(3).strip(), 160)}")
            continue
        file_hit = _FILE_HIT.match(line)
        if file_hit and "/" in file_hit.group(1) and " " not in file_hit.group(1):
            groups.setdefault(file_hit.group(1), []).append(clip(file_hit.group(2).strip(), 160))
        else:
            plain.append(line)
    if not groups:
        return _paths(plain, max_paths)
    total = sum(len(v) for v in groups.values())
    out = [f"{total} hits in {len(groups)} files (grouped by file):"]
    shown = 0
    for path, hits in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if shown >= max_hits:
            break
        take = hits[: max(1, min(len(hits), max_hits - shown, 8))]
        out.append(f"{path} ({len(hits)})")
        out.extend(f"  {h}" for h in take)
        if len(take) < len(hits):
            out.append(f"  … {len(hits) - len(take)} more in this file")
        shown += len(take)
    rest_files = [p for p in groups if not any(o == f"{p} ({len(groups[p])})" for o in out)]
    if rest_files:
        rest = sum(len(groups[p]) for p in rest_files)
        out.append(
            f"… and {rest} more hits in {len(rest_files)} files: "
            + ", ".join(sorted(rest_files)[:30])
            + (" …" if len(rest_files) > 30 else "")
        )
    return out + plain[:5]


def _paths(paths: list[str], max_hits: int) -> list[str]:
    """A list of paths (find, Glob): counts per directory, then the first ``max_hits`` paths."""
    dirs: dict[str, int] = {}
    for path in paths:
        top = path.rsplit("/", 1)[0] if "/" in path else "."
        dirs[top] = dirs.get(top, 0) + 1
    out = [f"{len(paths)} paths in {len(dirs)} directories:"]
    out += [f"  {d}/ ({n})" for d, n in sorted(dirs.items(), key=lambda kv: -kv[1])[:max_hits]]
    if len(dirs) > max_hits:
        out.append(f"  … and {len(dirs) - max_hits} more directories")
    out.append("first paths:")
    out += [f"  {p}" for p in paths[:max_hits]]
    if len(paths) > max_hits:
        out.append(f"  … and {len(paths) - max_hits} more")
    return out


# -- anything else ----------------------------------------------------------------------------------------

_HEAD, _TAIL = 15, 15


def summarize_generic(text: str) -> list[str]:
    """Head, tail, every error- or warning-looking line and every location; repeated lines counted."""
    lines = clean_lines(text)
    keep = {i for i, line in enumerate(lines) if is_signal(line)}
    keep.update(_edges(lines, head=_HEAD, tail=_TAIL))
    return collapse_repeats(render(lines, keep))


def _edges(lines: list[str], *, head: int, tail: int) -> set[int]:
    n = len(lines)
    return set(range(min(head, n))) | set(range(max(0, n - tail), n))


def summarize(
    kind: str, family: str, text: str, *, max_hits: int = 10, max_paths: int = 40, worktree: str | None = None
) -> list[str]:
    """The summary lines of ``text`` for a command of ``family``/``kind`` (see classify); ``worktree`` is
    the git top level the command ran in, when known (patches of files it holds unchanged are named).

    Only a bounded window of ``text`` is scanned (``folding.bounded``: its head and tail); a first line says
    how much of the middle was not, and the full output stays one call away (the caller saves it)."""
    window, lines, chars = bounded(text)
    summary = _summarize(kind, family, window, max_hits=max_hits, max_paths=max_paths, worktree=worktree)
    if chars:
        note = f"(output of {len(text):,} characters: the middle {lines:,} lines ({chars:,} characters) not scanned)"
        return [note, *summary]
    return summary


def _summarize(
    kind: str, family: str, text: str, *, max_hits: int = 10, max_paths: int = 40, worktree: str | None = None
) -> list[str]:
    if kind == "test":
        return summarize_test(text)
    if kind == "check":
        return summarize_check(text)
    if kind == "build":
        return summarize_build(text)
    if family == "git-diff":
        return summarize_diff(text, worktree)
    if family == "git-log":
        return summarize_log(text, worktree)
    if family == "git-status":
        return summarize_status(text)
    if kind == "search":
        return summarize_search(text, max_hits, max_paths)
    return summarize_generic(text)
