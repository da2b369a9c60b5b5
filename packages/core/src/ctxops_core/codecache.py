# ruff: noqa: PTH103, PTH105, PTH108, PTH111, PTH116, PTH118, PTH120, PTH208, SIM105
# os.path on the hook path: `ctx hook` runs on every agent event as a fresh process; pathlib is not needed.
"""The compiled code of a hook's modules, read from one file instead of one file per module.

`ctx hook` runs as a fresh process on every agent event and imports ~40 small modules (capture, the
guard, the contracts helpers). Finding each one on ``sys.path`` and reading its ``.pyc`` is about half of
their import cost (~25 µs to find and ~45 µs to read and unmarshal each, measured with the import
system's own functions timed in a fresh process); in a development environment every editable install
adds a directory to search. This module keeps, per interpreter, ``sys.path`` and kind of event, the
marshalled code of every pure-Python ctxops module such runs imported, in one file under the per-user cache
directory (``~/.cache/ctxops``, ``$CTXOPS_CACHE_DIR``), and serves those modules from it.

The file is an index (marshalled: name -> source path, its size and modification time, package or not,
directory, ``.pyc`` path, and where the code is) followed by the code of every module, read in one call;
a module's code is unmarshalled only when it is imported, so modules another payload of the same kind
needs (a long output's summarizer beside a short output's capture) cost a short read, not a load.

Safe by construction, as Python's own ``.pyc`` files are:

- an entry is used only while its source file has the size and modification time (nanoseconds) it had
  when the entry was written, and only for the same fully qualified name found under the same parent
  package on the same ``sys.path`` (the file's name carries a hash of the interpreter, its optimization
  level, ``sys.path`` and the cache format); otherwise the module is imported as usual and the file is
  written again at the end of the run;
- the module gets the ordinary loader of its source file (``SourceFileLoader``: ``__file__``,
  ``__spec__``, resources and tracebacks are those of the file); only ``get_code`` comes from the cache;
- any failure (no file, a corrupt or foreign one, an unwritable directory) falls back to the ordinary
  import; ``CTXOPS_CODE_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import _frozen_importlib as _bootstrap  # the import system itself: loaded at interpreter start
import _frozen_importlib_external as _external
import _imp
import marshal
import os
import sys
import time

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

CACHE_ENV = "CTXOPS_CODE_CACHE"
CACHE_DIR_ENV = "CTXOPS_CACHE_DIR"  # the same directory as the regex cache (ctxops_contracts.shared.regex)
FORMAT = 3
MAGIC = b"ctxops-code\x00"
# A file in use is written again once a week (its age says it is in use); a writer removes code cache files
# nobody wrote for a month (an interpreter, venv or checkout that is gone). A file past MAX_BYTES starts
# over with what the run that writes it imported.
REFRESH_S = 7 * 86400
UNUSED_S = 30 * 86400
MAX_BYTES = 4_000_000
# Whose modules are kept: ctxops's own. The standard library's are found quickly (the first entries of
# sys.path), and a cold start imports some a warm one never does (``re`` while the regex cache fills).
PACKAGES = ("ctxops",)
_HASH_KEY = 0x63747870  # any fixed key: the file name must be the same in every process

# name -> (source path, st_mtime_ns, st_size, is a package, its directory, its .pyc path, code offset, code size)
_Entry = tuple[str, int, int, bool, str, "str | None", int, int]


def enabled() -> bool:
    return os.environ.get(CACHE_ENV, "1") not in {"0", "false", "no", "off"} and sys.implementation.name == "cpython"


def cache_dir() -> str:
    """``$CTXOPS_CACHE_DIR``, else the platform's per-user cache directory for ctxops.

    The same as ``ctxops_contracts.shared.regex.cache_dir`` (a test holds them equal), repeated here so the
    cache is installed before any ``ctxops_contracts`` module is imported the ordinary way.
    """
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return os.path.expanduser(override)
    if sys.platform == "win32":  # pragma: no cover
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return os.path.join(base, "ctxops", "cache")
    if sys.platform == "darwin":  # pragma: no cover
        return os.path.expanduser("~/Library/Caches/ctxops")
    return os.path.join(os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache"), "ctxops")


def cache_file(kind: str, path: Sequence[str] | None = None) -> str:
    """The file for one kind of run of this interpreter on this ``sys.path``."""
    interpreter = [sys.executable, sys.version, str(FORMAT), str(sys.flags.optimize), str(sys.pycache_prefix)]
    key = "\0".join([*interpreter, *(sys.path if path is None else path)])
    # the keyed SipHash Python uses for hash-based .pyc files (C, already loaded; hashlib costs ~1 ms)
    digest = _imp.source_hash(_HASH_KEY, key.encode("utf-8", "surrogateescape"))
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in kind[:40]) or "default"
    return os.path.join(cache_dir(), f"code-{digest.hex()}-{safe}.marshal")


class _Loader(_external.SourceFileLoader):
    """The ordinary loader of a source file, whose code object comes from the cache."""

    def __init__(self, fullname: str, path: str, code: memoryview) -> None:
        super().__init__(fullname, path)
        self._cached_code: memoryview | None = code
        self.fell_back = False  # the cached code was unusable: the source's was loaded (and is stored again)

    def get_code(self, fullname: str) -> Any:
        code, self._cached_code = self._cached_code, None
        if code is not None and fullname == self.name:
            try:
                loaded = marshal.loads(code)
                if type(loaded) is _CODE:
                    return loaded
            except (EOFError, ValueError, TypeError):
                pass
            self.fell_back = True
        return super().get_code(fullname)


_CODE = type(_Loader.get_code.__code__)  # types.CodeType, without importing types


class CodeCache:
    """A meta path finder serving the modules of one cache file; ``save`` writes it again when needed."""

    def __init__(self, path: str, entries: dict[str, _Entry], blob: memoryview, start: frozenset[str]) -> None:
        self.path = path
        self.entries = entries
        self.blob = blob  # the file's code part
        self.start = start  # modules loaded before the cache was installed: not its business
        self.served: set[str] = set()
        self.refresh = False  # the file is old: write it again even when nothing changed

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: object = None) -> Any:
        entry = self.entries.get(name)
        if entry is None:
            return None
        try:
            origin, mtime_ns, size, package, where, cached, offset, length = entry
            if path is not None and (where.rpartition(os.sep)[0] if package else where) not in path:
                return None  # another parent package than the one the entry was found under
            st = os.stat(origin)
            if st.st_mtime_ns != mtime_ns or st.st_size != size:
                return None
            code = self.blob[offset : offset + length]
            # what spec_from_file_location builds, with the directory and .pyc path stored rather than computed
            spec = _bootstrap.ModuleSpec(name, _Loader(name, origin, code), origin=origin, is_package=package)
            spec.has_location = True
            spec.cached = cached
            if package:
                spec.submodule_search_locations = [where]
            self.served.add(name)
            return spec
        except Exception:  # never stand in the way of an import: the ordinary finders take over
            return None

    def invalidate_caches(self) -> None:
        return None

    def _candidates(self) -> list[tuple[str, Any, str]]:
        """(name, spec, source path) of the ctxops modules this run imported the ordinary way."""
        found: list[tuple[str, Any, str]] = []
        modules = sys.modules
        for name in modules.keys() - self.start - self.served:  # few: extension and built-in modules, new ones
            if not name.startswith(PACKAGES):
                continue
            spec = getattr(modules.get(name), "__spec__", None)
            origin = getattr(spec, "origin", None)
            if isinstance(origin, str) and type(getattr(spec, "loader", None)) is _external.SourceFileLoader:
                found.append((name, spec, origin))  # plain source (not an extension, frozen, zip or namespace)
        for name in self.served:
            spec = getattr(modules.get(name), "__spec__", None)
            loader = getattr(spec, "loader", None)
            if type(loader) is _Loader and loader.fell_back:
                found.append((name, spec, self.entries[name][0]))
        return found

    def _entry(self, name: str, spec: Any, origin: str) -> dict[str, tuple[_Entry, bytes]]:
        try:
            st = os.stat(origin)
            known = self.entries.get(name)
            if known is not None and known[:3] == (origin, st.st_mtime_ns, st.st_size) and name not in self.served:
                return {}  # the same file as stored: it was not served for another reason (its parent)
            code = _external.SourceFileLoader(name, origin).get_code(name)
            after = os.stat(origin)
            if code is None or (after.st_mtime_ns, after.st_size) != (st.st_mtime_ns, st.st_size):
                return {}
            package = getattr(spec, "submodule_search_locations", None) is not None
            cached = getattr(spec, "cached", None)
            entry = (origin, st.st_mtime_ns, st.st_size, package, os.path.dirname(origin), cached, 0, 0)
            return {name: (entry, marshal.dumps(code))}
        except Exception:
            return {}

    def save(self) -> None:
        """Write the file again when this run imported modules the ordinary way (or it is a week old);
        never raises."""
        try:
            candidates = self._candidates()
            if not candidates and not self.refresh:
                return
            directory = os.path.dirname(self.path)
            os.makedirs(directory, mode=0o700, exist_ok=True)
            if not os.access(directory, os.W_OK):
                return  # not the place to compile anything for: this run costs what an ordinary import does
            fresh: dict[str, tuple[_Entry, bytes]] = {}
            for name, spec, origin in candidates:
                fresh.update(self._entry(name, spec, origin))
            if not fresh and not self.refresh:
                return
            keep: dict[str, tuple[_Entry, bytes]] = {}
            for name, entry in self.entries.items():
                try:
                    keep[name] = (entry, bytes(self.blob[entry[6] : entry[6] + entry[7]]))
                except Exception:  # a damaged entry: dropped
                    continue
            if len(self.blob) > MAX_BYTES:
                keep = {name: keep[name] for name in self.served if name in keep}
            write(self.path, {**keep, **fresh})
            _remove_unused(directory)
        except Exception:  # a cache that cannot be written costs speed, never the hook
            return


def write(path: str, modules: dict[str, tuple[_Entry, bytes]]) -> None:
    """Write a cache file: MAGIC, the index's length (8 bytes), the index, then every module's code."""
    index: dict[str, _Entry] = {}
    offset = 0
    for name, (entry, code) in modules.items():
        index[name] = (*entry[:6], offset, len(code))
        offset += len(code)
    header = marshal.dumps((FORMAT, index))
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    # Private (0600), created fresh: the file holds code this process will run; never through a symlink.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        os.unlink(temporary)  # a stale one of a killed writer with this pid
    except FileNotFoundError:
        pass
    with open(os.open(temporary, flags, 0o600), "wb") as handle:
        handle.write(MAGIC + len(header).to_bytes(8, "little") + header)
        for _entry, code in modules.values():
            handle.write(code)
    os.replace(temporary, path)


def _remove_unused(directory: str) -> None:
    """Remove code cache files (and temporary files) nobody has written for ``UNUSED_S``."""
    now = time.time()
    for name in os.listdir(directory):
        if name.startswith("code-") and name.endswith((".marshal", ".tmp")):
            path = os.path.join(directory, name)
            try:
                if now - os.stat(path).st_mtime > UNUSED_S:
                    os.unlink(path)
            except OSError:
                continue


def read(path: str) -> tuple[dict[str, _Entry], memoryview, bool]:
    """A cache file's index and code part, and whether it is due for a rewrite; empty when absent or bad."""
    try:
        with open(path, "rb") as handle:
            old = time.time() - os.fstat(handle.fileno()).st_mtime > REFRESH_S
            data = handle.read()
        start = len(MAGIC) + 8
        if data[: len(MAGIC)] == MAGIC:
            end = start + int.from_bytes(data[len(MAGIC) : start], "little")
            version, index = marshal.loads(memoryview(data)[start:end])
            if version == FORMAT and isinstance(index, dict):
                return index, memoryview(data)[end:], old
    except (OSError, EOFError, ValueError, TypeError):
        pass  # none yet, or unreadable: this run imports as usual and writes it
    return {}, memoryview(b""), False


def install(kind: str) -> CodeCache | None:
    """Serve this run's imports from the cache file of ``kind``; the finder (to ``save``), or None when off."""
    if not enabled():
        return None
    try:
        path = cache_file(kind)
        entries, blob, old = read(path)
        cache = CodeCache(path, entries, blob, frozenset(sys.modules))
        cache.refresh = old
        sys.meta_path.insert(0, cache)
        return cache
    except Exception:
        return None


def event_kind(agent: str, data: bytes) -> str:
    """``agent-EventName`` from the payload's ``hook_event_name``, found without parsing the JSON (a wrong
    pick only costs speed: another kind's file); ``agent`` alone when there is none."""
    at = data.find(b'"hook_event_name"')
    if at < 0:
        return agent
    colon = data.find(b":", at + 17)
    start = data.find(b'"', colon + 1) if colon >= 0 else -1
    end = data.find(b'"', start + 1) if start >= 0 else -1
    if end < 0 or end - start > 41 or data[colon + 1 : start].strip():
        return agent
    return f"{agent}-{data[start + 1 : end].decode('ascii', 'replace')}"
