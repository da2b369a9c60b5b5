"""Promise 2 (docs/security.md): every regular expression on the hook path runs in linear time.

The patterns are found, not listed: every module `ctx hook` can run (hooks-capture with its redaction
rules, memory-inject with the guard, memory-store, core's hook command, the contracts' shared helpers)
is imported and walked for compiled patterns, lazy patterns (``ctxops_contracts.shared.regex.lazy``)
and containers of them; patterns compiled inline (``re_compile(r"...")`` in a function) are found in the
modules' source. A pattern added later is checked without touching this file.

For each pattern, inputs are built from its own parse tree: long runs of each character its classes
and literals hold, alternations of two such characters, its literals repeated (whole, without their last
character, followed by each class character, followed by one long run), and each literal character
followed by runs; each run also ends with a character that breaks the match. Every input is timed at
4 kB (an exponential pattern shows there, and is stopped); the slowest two (one for a pattern whose
repeats are all bounded) at 100 kB and at 1 MB: ten times the input may cost at most 25 times the time
(a quadratic pattern costs 100 times), plus a small constant for timer noise, and a megabyte at most a
few seconds. Times are CPU times: the machine may be busy with other work.

Patterns are run with ``subn("", text)``: every match position is tried, as a search, ``finditer`` or
``sub`` would, without creating match objects (their cost is linear and only blurs the timing). So a
pattern only ever used with ``match`` on short words must still be linear as a search: it may be reused.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import signal
import time
from collections.abc import Iterator
from re import _constants as sc  # type: ignore[attr-defined]
from re import _parser as sp  # type: ignore[attr-defined]
from types import ModuleType
from typing import Any

import pytest
from ctxops_contracts.shared import regex as cached

PACKAGES = ("ctxops_hooks_capture", "ctxops_memory_inject", "ctxops_memory_store")
MODULES = (
    "ctxops_core.hook_cmd",
    "ctxops_contracts.shared.regex",
    "ctxops_contracts.shared.repo",
    "ctxops_contracts.shared.layout",
    "ctxops_contracts.shared.files",
    "ctxops_contracts.shared.jsonlite",
    "ctxops_contracts.shared.locks",
)
# The redaction engine's own helpers too (value readers, name and value tests), not only the rule tables the
# hook modules re-export; walked last, so a table keeps the name it is found under first.
REDACTION = (
    "ctxops_contracts.redaction.engine",
    "ctxops_contracts.redaction.context",
    "ctxops_contracts.redaction.names",
    "ctxops_contracts.redaction.formats",
)
# Not on the hook path: commands a person types (their arguments are theirs), and the MCP tools.
NOT_HOOK_PATH = ("ctxops_memory_inject.cli", "ctxops_memory_inject.guard.cli", "ctxops_memory_store.cli")

SMALL, MEDIUM, LARGE = 4_000, 100_000, 1_000_000
SCREEN_LIMIT = 0.25  # CPU seconds for 4 kB: a linear pattern takes a millisecond or two
RATIO = 25  # 10x the input may cost at most this many times the time
NOISE = 0.05  # CPU seconds: clock ticks, caches, a busy machine
ABSOLUTE = 3.0  # seconds for one megabyte
MEDIUM_LIMIT = 1.0  # seconds for 100 kB


# -- discovery ------------------------------------------------------------------------------------------------


def hook_path_modules() -> list[ModuleType]:
    names = list(MODULES)
    for package in PACKAGES:
        root = importlib.import_module(package)
        names += [info.name for info in pkgutil.walk_packages(root.__path__, f"{package}.")]
    names += REDACTION
    names = [n for n in names if not n.endswith(("__main__", "mcp_tools")) and n not in NOT_HOOK_PATH]
    return [importlib.import_module(name) for name in names]


def _patterns_in(value: Any, seen: set[int], depth: int = 0) -> Iterator[re.Pattern[str]]:
    if depth > 4 or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, cached._Lazy):
        yield cached.compile(value._source, value._flags)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _patterns_in(item, seen, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, seen, depth + 1)


_COMPILERS = {"compile", "re_compile", "lazy"}
_USERS = {"search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def _inline_patterns(module: ModuleType) -> Iterator[re.Pattern[str]]:
    """Patterns written as string literals in calls: ``re_compile(r"...")``, ``regex.lazy(...)``, ``re.sub(...)``."""
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        if not (name in _COMPILERS and owner in (None, "re", "regex")) and not (name in _USERS and owner == "re"):
            continue
        source = node.args[0]
        if not isinstance(source, ast.Constant) or not isinstance(source.value, str):
            continue
        flags = 0
        if len(node.args) > 1 and name in _COMPILERS:
            flags = int(eval(compile(ast.Expression(node.args[1]), module.__name__, "eval"), vars(module)))
        yield re.compile(source.value, flags)


def discover() -> dict[str, re.Pattern[str]]:
    """``{where: pattern}`` for every distinct pattern on the hook path (``where``: module.name or module:line)."""
    found: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    for module in hook_path_modules():
        seen: set[int] = set()
        for name, value in vars(module).items():
            for pattern in _patterns_in(value, seen):
                found.setdefault((pattern.pattern, pattern.flags), (f"{module.__name__}.{name}", pattern))
        for pattern in _inline_patterns(module):
            found.setdefault((pattern.pattern, pattern.flags), (f"{module.__name__}:inline", pattern))
    out: dict[str, re.Pattern[str]] = {}
    for where, pattern in found.values():
        key, n = where, 1
        while key in out:
            n += 1
            key = f"{where}#{n}"
        out[key] = pattern
    return out


PATTERNS = discover()


# -- adversarial inputs -----------------------------------------------------------------------------------------

UNIVERSE = [chr(c) for c in range(32, 127)] + ["\t", "\n", "\r", "\x0b", "\x1b", "\x00", "é", "中", "█", "\xa0", "✓"]
PREFERRED = "a0 /.:=-_\"'\nA\\,;(){}[]<>@#$%&*+|~`!?^\t"


def _in_category(category: Any, ch: str) -> bool:
    word = ch.isalnum() or ch == "_"
    return {
        sc.CATEGORY_DIGIT: ch.isdigit(),
        sc.CATEGORY_NOT_DIGIT: not ch.isdigit(),
        sc.CATEGORY_SPACE: ch.isspace(),
        sc.CATEGORY_NOT_SPACE: not ch.isspace(),
        sc.CATEGORY_WORD: word,
        sc.CATEGORY_NOT_WORD: not word,
    }.get(category, False)


def _in_set(items: list[tuple[Any, Any]], ch: str, ignore_case: bool) -> bool:
    forms = {ch, ch.lower(), ch.upper()} if ignore_case else {ch}
    negate = hit = False
    for op, arg in items:
        if op is sc.NEGATE:
            negate = True
        elif op is sc.LITERAL:
            hit |= chr(arg) in forms
        elif op is sc.RANGE:
            hit |= any(arg[0] <= ord(f) <= arg[1] for f in forms)
        elif op is sc.CATEGORY:
            hit |= _in_category(arg, ch)
    return hit != negate


def features(pattern: re.Pattern[str]) -> tuple[list[str], list[str], list[str]]:
    """``(alphabet, class characters, literals)`` of a pattern, from its parse tree."""
    ignore_case = bool(pattern.flags & re.IGNORECASE)
    literal_chars: list[str] = []
    classes: list[list[str]] = []
    literals: list[str] = []

    def visit(sub: Any) -> None:
        run: list[str] = []

        def flush() -> None:
            if len(run) >= 2:
                literals.append("".join(run))
            run.clear()

        for op, arg in sub.data if hasattr(sub, "data") else sub:
            if op is sc.LITERAL:
                run.append(chr(arg))
                if chr(arg) not in literal_chars:
                    literal_chars.append(chr(arg))
                continue
            flush()
            if op is sc.NOT_LITERAL:
                classes.append([c for c in UNIVERSE if c != chr(arg)])
            elif op is sc.IN:
                classes.append([c for c in UNIVERSE if _in_set(arg, c, ignore_case)])
            elif op is sc.ANY:
                classes.append([c for c in UNIVERSE if c != "\n" or pattern.flags & re.DOTALL])
            elif op is sc.CATEGORY:
                classes.append([c for c in UNIVERSE if _in_category(arg, c)])
            elif op in (sc.MAX_REPEAT, sc.MIN_REPEAT, sc.POSSESSIVE_REPEAT):
                visit(arg[2])
            elif op is sc.SUBPATTERN:
                visit(arg[3])
            elif op is sc.ATOMIC_GROUP:
                visit(arg)
            elif op is sc.BRANCH:
                for branch in arg[1]:
                    visit(branch)
            elif op in (sc.ASSERT, sc.ASSERT_NOT):
                visit(arg[1])
            elif op is sc.GROUPREF_EXISTS:
                visit(arg[1])
                if arg[2]:
                    visit(arg[2])
        flush()

    visit(sp.parse(pattern.pattern, pattern.flags))
    members: list[str] = []
    for cls in classes:
        picked = [c for c in PREFERRED if c in cls][:4]  # common characters first
        picked += [c for c in literal_chars if c in cls][:3]  # a class character that is also a literal: ambiguity
        picked += [c for c in cls if ord(c) > 127][:1]
        members += [c for c in picked or cls[:2] if c not in members]
    alphabet = list(dict.fromkeys(members + literal_chars))[:48]
    return alphabet, members[:12], list(dict.fromkeys(literals))[:8]


def adversarial(pattern: re.Pattern[str], size: int) -> dict[str, str]:
    """Named inputs of about ``size`` characters built to make ``pattern`` backtrack."""
    alphabet, members, literals = features(pattern)
    out: dict[str, str] = {}

    def add(name: str, unit: str, tail: str = "") -> None:
        if unit:
            out[name] = (unit * (size // len(unit) + 1))[: size - len(tail)] + tail

    breaker = next(c for c in ("\x00", "\x7f", "\x01") if c not in alphabet)  # ends a run with no match
    for c in alphabet:
        add(f"run of {c!r}", c)
        add(f"run of {c!r}, then {breaker!r}", c, breaker)
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            add(f"{a + b!r} repeated", a + b)
    for literal in literals:
        add(f"{literal!r} repeated", literal)
        add(f"{literal[:-1]!r} repeated", literal[:-1])
        for c in members[:8]:
            add(f"{literal + c!r} repeated", literal + c)
            out[f"{literal!r} then a run of {c!r}"] = literal + c * (size - len(literal))
    for c in alphabet:
        if c in members:
            continue
        for r in members[:6]:
            add(f"{c + r * 15!r} repeated", c + r * 15)
            out[f"{c!r} then a run of {r!r}"] = c + r * (size - 1)
    return out


# -- timing --------------------------------------------------------------------------------------------------------


class _TooSlow(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _TooSlow


def cost(pattern: re.Pattern[str], text: str, limit: float) -> float:
    """CPU seconds ``pattern`` takes over every position of ``text`` (CPU time: the machine may be busy with
    other work); inf past ``limit`` CPU seconds (a virtual-time alarm: the regex engine checks for signals
    while it runs)."""
    previous = signal.signal(signal.SIGVTALRM, _alarm)
    started = time.process_time()
    try:
        signal.setitimer(signal.ITIMER_VIRTUAL, limit)
        pattern.subn("", text)
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        took = time.process_time() - started
    except _TooSlow:
        took = float("inf")
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
    return took


def best(pattern: re.Pattern[str], text: str, limit: float, runs: int = 2) -> float:
    """The least of ``runs`` timings; a short one is the mean of enough runs to fill 50 ms (the CPU clock
    may tick in milliseconds)."""
    took = min(cost(pattern, text, limit) for _ in range(runs))
    if took < 0.01:
        repeat = min(25, int(0.05 / max(took, 0.002)))
        took = sum(cost(pattern, text, limit) for _ in range(repeat)) / repeat
    return took


def unbounded(pattern: re.Pattern[str]) -> bool:
    """Whether some repeat in ``pattern`` is unbounded (``*``, ``+``, ``{n,}``): only then can one attempt
    cost more than a constant."""
    found = False

    def visit(sub: Any) -> None:
        nonlocal found
        for op, arg in sub.data if hasattr(sub, "data") else sub:
            if op in (sc.MAX_REPEAT, sc.MIN_REPEAT, sc.POSSESSIVE_REPEAT):
                found |= arg[1] is sc.MAXREPEAT or arg[1] > 1000
                visit(arg[2])
            elif op is sc.SUBPATTERN:
                visit(arg[3])
            elif op is sc.ATOMIC_GROUP:
                visit(arg)
            elif op is sc.BRANCH:
                for branch in arg[1]:
                    visit(branch)
            elif op in (sc.ASSERT, sc.ASSERT_NOT):
                visit(arg[1])

    visit(sp.parse(pattern.pattern, pattern.flags))
    return found


def check_linear(pattern: re.Pattern[str]) -> list[str]:
    """What is wrong with ``pattern`` (an empty list when it is linear on every input built for it)."""
    small = adversarial(pattern, SMALL)
    screened: list[tuple[float, str]] = []
    for name, text in small.items():
        took = cost(pattern, text, SCREEN_LIMIT)
        if took == float("inf"):
            return [f"{name}: over {SCREEN_LIMIT} s for {SMALL:,} characters"]
        screened.append((took, name))
    screened.sort(reverse=True)
    medium, large = adversarial(pattern, MEDIUM), adversarial(pattern, LARGE)
    for _, name in screened[: 2 if unbounded(pattern) else 1]:  # the slowest: at 100 kB and at 1 MB
        t_medium = best(pattern, medium[name], MEDIUM_LIMIT)
        if t_medium == float("inf"):
            return [f"{name}: over {MEDIUM_LIMIT} s for {MEDIUM:,} characters"]
        for attempt in range(3):  # more looks before calling it: the machine may have been busy (a linear
            # pattern failed once at load 5, session 17; a quadratic one fails all three by 4x)
            allowed = min(ABSOLUTE, RATIO * t_medium + NOISE)
            t_large = cost(pattern, large[name], allowed * 1.5)  # stopped early when clearly too slow
            if t_large <= allowed:
                break
            if attempt < 2:
                t_medium = best(pattern, medium[name], MEDIUM_LIMIT, runs=3)
        else:
            shown = "stopped" if t_large == float("inf") else f"{t_large * 1000:.0f} ms"
            return [f"{name}: {t_medium * 1000:.1f} ms for 100 kB, {shown} for 1 MB (allowed {allowed * 1000:.0f} ms)"]
    return []


# -- the tests -----------------------------------------------------------------------------------------------------


def test_discovery_finds_the_hook_path_patterns() -> None:
    """The walk sees module globals, lazy patterns, tables of them, inline patterns, and the guard's LOCATION."""
    wheres = set(PATTERNS)
    sources = {p.pattern for p in PATTERNS.values()}
    assert "ctxops_memory_inject.guard.folding.LOCATION" in wheres
    assert any(w.startswith("ctxops_hooks_capture.corrections.") for w in wheres)  # lazy ones
    assert any(w.startswith("ctxops_hooks_capture.secret_formats.FORMATS") for w in wheres)  # tables of (lazy) patterns
    assert any(w == "ctxops_core.hook_cmd:inline" for w in wheres)  # identifiers in prompts
    assert any(w == "ctxops_hooks_capture.runner_output:inline" for w in wheres)
    from ctxops_hooks_capture.secret_formats import FORMATS

    assert {pattern.pattern for _, _, pattern in FORMATS} <= sources
    assert len(PATTERNS) > 150


def test_the_inputs_catch_the_patterns_that_hung_hooks() -> None:
    """The check fails where it must: the guard's old location pattern on a base64 line, nested and
    overlapping quantifiers, a `.*X` search."""
    old_location = re.compile(
        r"(?:[A-Za-z]:)?[\w./\\@+~-]*[\w-]\.[A-Za-z][\w]{0,9}(?::\d+(?::\d+)?|\(\d+,\d+\))|File \"[^\"]+\", line \d+"
    )
    for bad in (old_location, re.compile(r"(\w+\s?)+$"), re.compile(r"\s*\s*x"), re.compile(r"a.*B")):
        assert check_linear(bad), bad.pattern
    assert check_linear(re.compile(r"(?<![\w.])[\w.]*\.py:\d+")) == []


def _param(where: str, pattern: re.Pattern[str]) -> Any:
    return pytest.param(pattern, id=where)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [_param(w, p) for w, p in sorted(PATTERNS.items())])
def test_every_hook_path_pattern_is_linear(pattern: re.Pattern[str]) -> None:
    problems = check_linear(pattern)
    assert not problems, f"{pattern.pattern!r} is super-linear:\n" + "\n".join(problems)
