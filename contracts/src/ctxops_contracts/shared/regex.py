"""Regular expressions compiled once per machine, not once per process.

CPython compiles a pattern in Python code (``re._parser`` and ``re._compiler``): the redaction, correction
and tokenizer rules a hook needs cost 20-50 ms to compile, in every fresh hook process, more than the
hook's own work. ``compile`` keeps the compiled program (the list of opcodes ``_sre.compile`` takes) in a
small per-user cache file keyed by the interpreter's version and the regex engine's magic number, so a
later process builds the pattern object straight from it.

Safe by construction: an entry is stored only after the pattern built from it compared equal (same
pattern, flags and opcodes: ``Pattern.__eq__``) to what ``re.compile`` returned in this interpreter, and
any failure (an interpreter whose internals differ, an unreadable or corrupt cache file, a read-only
directory) falls back to ``re.compile``. ``CTXOPS_REGEX_CACHE=0`` turns the cache off.

``re`` itself is imported only when a pattern is not in the cache: importing it (with ``enum``, for its
flags) costs ~10 ms of a fresh process. The flags are here as plain integers (``re``'s values, which a
test checks) so callers need not import ``re`` for them.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing and re are not imported on the hook path; type checkers treat this as True
if TYPE_CHECKING:
    import re

# re's flag values (re.RegexFlag), as ints: a pattern's cache key is (source, int(flags)).
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
UNICODE = 32
VERBOSE = 64
ASCII = 256

CACHE_ENV = "CTXOPS_REGEX_CACHE"
CACHE_DIR_ENV = "CTXOPS_CACHE_DIR"

# (source, flags) -> (flags after parsing, opcodes, groups - 1, groupindex, indexgroup): _sre.compile's arguments,
# the opcodes packed as native unsigned ints of _sre.CODESIZE bytes (marshal reads one bytes object ~5x faster
# than a list of ints; the cache file's name carries CODESIZE).
_Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


class _State:
    """This process's view of the cache: what it built, read and compiled anew."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, int], re.Pattern[str]] = {}
        self.cache: dict[tuple[str, int], _Entry] | None = None
        self.new: dict[tuple[str, int], _Entry] = {}
        self.saver_registered = False


_state = _State()


def cache_dir() -> str:
    """``$CTXOPS_CACHE_DIR``, else the platform's per-user cache directory for ctxops."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return os.path.expanduser(override)
    if sys.platform == "win32":  # pragma: no cover
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return os.path.join(base, "ctxops", "cache")
    if sys.platform == "darwin":  # pragma: no cover
        return os.path.expanduser("~/Library/Caches/ctxops")
    return os.path.join(os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache"), "ctxops")


def cache_file() -> str:
    """The cache file of this interpreter (version, implementation and regex engine in its name)."""
    import _sre

    tag = f"{sys.implementation.name}-{'.'.join(map(str, sys.version_info[:3]))}-{_sre.MAGIC}-{_sre.CODESIZE}"
    return os.path.join(cache_dir(), f"regex-{tag}-v2.marshal")


def enabled() -> bool:
    return os.environ.get(CACHE_ENV, "1") not in {"0", "false", "no", "off"} and sys.implementation.name == "cpython"


def compile(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, built from the per-machine cache when this pattern was compiled before."""
    key = (source, int(flags))
    pattern = _state.memo.get(key)
    if pattern is not None:
        return pattern
    pattern = _from_cache(key) if enabled() else None
    if pattern is None:
        if enabled():
            pattern = _compile_and_remember(key)
        else:
            import re

            pattern = re.compile(source, flags)
    _state.memo[key] = pattern
    return pattern


class _Lazy:
    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> object:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = compile(self._source, self._flags)
        return getattr(compiled, name)


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern that compiles itself (through the cache) the first time one of its methods is used."""
    return _Lazy(source, flags)  # type: ignore[return-value]  # duck-types re.Pattern


def _load() -> dict[tuple[str, int], _Entry]:
    if _state.cache is None:
        _state.cache = {}
        try:
            import marshal

            with open(cache_file(), "rb") as handle:
                # one read, then loads: marshal.load(file) reads object by object through Python calls (~20 ms)
                loaded = marshal.loads(handle.read())
            if isinstance(loaded, dict):
                _state.cache = loaded
        except (OSError, EOFError, ValueError, TypeError):
            pass  # no cache yet, or a damaged one: compile, and write a new one
    return _state.cache


def _from_cache(key: tuple[str, int]) -> re.Pattern[str] | None:
    entry = _load().get(key)
    if entry is None:
        return None
    try:
        import _sre

        flags, code, groups, groupindex, indexgroup = entry
        built: re.Pattern[str] = _sre.compile(key[0], flags, _unpack(code), groups, groupindex, indexgroup)
    except Exception:  # an entry this interpreter cannot use: compile it the normal way
        return None
    return built


def _compile_and_remember(key: tuple[str, int]) -> re.Pattern[str]:
    """Compile with ``re``; keep the opcodes for later processes when rebuilding from them gives the same."""
    import re

    source, flags = key
    compiled = re.compile(source, flags)
    try:
        import _sre
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry: _Entry = (
            flags | parsed.state.flags,
            _pack([int(op) for op in code], _sre.CODESIZE),
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        rebuilt = _sre.compile(source, entry[0], _unpack(entry[1]), *entry[2:])  # from what is stored
    except Exception:  # other internals: no caching, the compiled pattern is still right
        return compiled
    if rebuilt == compiled:  # same pattern, flags and opcodes
        _state.new[key] = entry
        _register_saver()
    return compiled


def _pack(code: list[int], size: int) -> bytes:
    return b"".join(op.to_bytes(size, sys.byteorder) for op in code)


def _unpack(code: bytes) -> list[int]:
    import _sre

    return memoryview(code).cast("I" if _sre.CODESIZE == 4 else "H").tolist()


def _register_saver() -> None:
    if not _state.saver_registered:
        import atexit

        atexit.register(save)
        _state.saver_registered = True


def save() -> None:
    """Write the patterns this process compiled into the cache file (merged with what is there)."""
    if not _state.new:
        return
    try:
        import marshal

        from .files import atomic_write

        _state.cache = None  # re-read: another process may have added entries since this one loaded the file
        merged = {**_load(), **_state.new}
        atomic_write(cache_file(), marshal.dumps(merged), fsync=False)
        _state.cache = merged
        _state.new.clear()
    except Exception:
        pass
