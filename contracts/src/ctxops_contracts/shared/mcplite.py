"""A stdio MCP front that is ready at the first request (issue 22, item 2).

`ctx mcp` and `cq mcp` used to import the MCP SDK, pydantic and every line's modules before answering
`initialize`: 3-5 s on a loaded machine, long enough for clients to send their first model request
without ctxops's tools. This front answers the handshake itself, from static manifests (the `tools/list`
each package generated from the SDK and checked in; a test keeps them equal):

* ``initialize``, ``ping``, ``tools/list`` and the empty ``resources``/``prompts`` lists are answered
  at once, with nothing heavier than this module imported;
* after ``tools/list`` a background thread builds the real server (``build()``: the SDK and the tools'
  registrars), so a model's first call rarely waits for it;
* the first request it does not answer itself (``tools/call``, anything else) hands the session over to
  the SDK server: the client's own ``initialize`` is replayed to it (its answer is dropped), then the
  pending request and the rest of stdin. From then on the SDK serves, with all its semantics.

Stray output cannot corrupt the protocol: fd 1 is pointed at stderr and fd 0 at the null device while
serving; the protocol uses private duplicates.
"""

from __future__ import annotations

import os
import sys

from . import jsonlite

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
REPLAY_ID = "ctxops-front-initialize"
# What the SDK's MCPServer declares (tools only are ever registered; the lists below answer empty).
CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
EMPTY_LISTS = {
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


def fast_root(argv: list[str]) -> str | None:
    """The repository an ``mcp`` command serves when ``argv`` holds nothing but ``--root DIR`` (or none):
    found without argparse. None for anything else (or no repository): the caller's full parser decides
    and reports."""
    from .repo import NotARepository, find_root

    explicit: str | None = None
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--root" and rest:
            explicit = rest.pop(0)
        elif arg.startswith("--root="):
            explicit = arg.partition("=")[2]
        else:
            return None
    try:
        return find_root(explicit=explicit)
    except NotARepository:
        return None


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, "module:attr")`` of every installed distribution's entry points in ``group``, in
    ``sys.path`` order (the first wins a name clash).

    A plain scan of ``*.dist-info/entry_points.txt``: ``importlib.metadata`` costs ~100 ms of CPU in a
    venv of 150 distributions, more than the whole handshake may take.
    """
    header = f"[{group}]"
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in sorted(names):
            if not name.endswith(".dist-info"):
                continue
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            if header not in text:
                continue
            inside = False
            for raw in text.splitlines():
                line = raw.strip()
                if line.startswith("["):
                    inside = line == header
                elif inside and "=" in line:
                    key, _, value = line.partition("=")
                    found.setdefault(key.strip(), value.strip())
    return list(found.items())


def version_of(distribution: str) -> str:
    """An installed distribution's version from its ``NAME-VERSION.dist-info`` directory's name
    (``importlib.metadata.version`` costs ~100 ms of imports on a loaded machine); "0.0.0" when absent."""
    wanted = distribution.replace("-", "_").replace(".", "_").lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and name.lower().startswith(wanted):
                return name[len(wanted) : -len(".dist-info")]
    return "0.0.0"


def load(value: str) -> Any:
    """The object an entry point's ``module:attr`` names."""
    from importlib import import_module

    module, _, attr = value.partition(":")
    obj: Any = import_module(module.strip())
    for part in attr.strip().split(".") if attr.strip() else []:
        obj = getattr(obj, part)
    return obj


def manifest(module_file: str, name: str) -> list[dict[str, Any]]:
    """The static ``tools/list`` a package keeps in the JSON file ``name`` beside ``module_file``."""
    with open(os.path.join(os.path.dirname(module_file), name), encoding="utf-8") as fh:
        tools: list[dict[str, Any]] = jsonlite.loads(fh.read())
    return tools


def sdk_server(registrars: list[Callable[[Any, Any], None]], root: Any, name: str = "ctxops") -> Any:
    """An SDK ``MCPServer`` with ``registrars``' tools (what the manifests are generated from)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name=name)
    for register in registrars:
        register(server, root)
    return server


def write_manifest(registrar: str, path: str) -> int:
    """Regenerate a package's manifest: ``python -m ctxops_contracts.shared.mcplite MODULE:register_tools
    PATH`` (tools whose descriptions do not depend on the repository; ``/`` stands for it)."""
    import json
    from pathlib import Path

    tools = sdk_tools(lambda: sdk_server([load(registrar)], Path("/")))
    Path(path).write_text(json.dumps(tools, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{path}: {len(tools)} tools")
    return 0


def sdk_tools(build: Callable[[], Any]) -> list[dict[str, Any]]:
    """The ``tools/list`` an SDK server answers, as JSON (what a static manifest must equal)."""
    import anyio

    server = build()

    async def listed() -> list[dict[str, Any]]:
        return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in await server.list_tools()]

    return anyio.run(listed)


class _Replay:
    """The SDK's stdin after the handover: the replayed lines, then the rest of the real stdin."""

    def __init__(self, lines: list[bytes], rest: BinaryIO) -> None:
        self._lines = lines
        self._rest = rest

    def readline(self) -> str:
        raw = self._lines.pop(0) if self._lines else self._rest.readline()
        return raw.decode("utf-8", errors="replace")

    def __iter__(self) -> _Replay:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


class _Filter:
    """The SDK's stdout after the handover: everything but the answer to the replayed ``initialize``."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, _, self._pending = self._pending.partition("\n")
            if f'"id":"{REPLAY_ID}"' in line.replace(" ", ""):
                continue
            self._out.write(line.encode("utf-8") + b"\n")
        return len(text)

    def flush(self) -> None:
        self._out.flush()


class Front:
    """Serve one stdio session: the handshake from ``tools``, everything else through ``build()``'s server."""

    def __init__(
        self,
        *,
        name: str,
        version: str,
        instructions: str,
        tools: list[dict[str, Any]],
        build: Callable[[], Any],
        prog: str,
    ) -> None:
        self.name = name
        self.version = version
        self.instructions = instructions
        self.tools = tools
        self.build = build
        self.prog = prog
        self._init: dict[str, Any] | None = None
        self._server: Any = None
        self._error: BaseException | None = None
        self._thread: Any = None

    # -- the real server -------------------------------------------------------------------------------
    def _build(self) -> None:
        try:
            self._server = self.build()
        except BaseException as exc:  # reported to the client on its call
            self._error = exc

    def _prewarm(self) -> None:
        if self._thread is not None or os.environ.get("CTXOPS_MCP_PREWARM") == "0":
            return
        import threading

        self._thread = threading.Thread(target=self._build, name="ctxops-mcp-prewarm", daemon=True)
        self._thread.start()

    def _ready(self) -> Any:
        if self._thread is not None:
            self._thread.join()
        elif self._server is None and self._error is None:
            self._build()
        return self._server

    # -- the front -------------------------------------------------------------------------------------
    def serve(self) -> int:
        sys.stdout.flush()
        in_fd, out_fd = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)  # stray prints (a handler, a library) land on stderr, never on the protocol
        reader = os.fdopen(in_fd, "rb")
        writer = os.fdopen(out_fd, "wb")
        sys.stderr.write(f"{self.prog}: ready ({len(self.tools)} tools; handlers load on the first call)\n")
        while True:
            line = reader.readline()
            if not line:
                return 0
            if not line.strip():
                continue
            try:
                message = jsonlite.loads(line.decode("utf-8", errors="replace"))
            except ValueError:
                self._send(writer, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            if not isinstance(message, dict) or message.get("method") is None:
                if isinstance(message, dict) and ("result" in message or "error" in message):
                    continue  # a client's answer to nothing we asked
                return self._handover(writer, [line], reader)
            answer = self._answer(message)
            if answer is _HANDOVER:
                return self._handover(writer, [line], reader)
            if answer is _NOT_FOUND:
                error = {"code": -32601, "message": "Method not found"}
                self._send(writer, {"jsonrpc": "2.0", "id": message.get("id"), "error": error})
                continue
            if answer is not None and "id" in message:
                self._send(writer, {"jsonrpc": "2.0", "id": message["id"], "result": answer})
                if message["method"] == "tools/list":
                    self._prewarm()

    def _answer(self, message: dict[str, Any]) -> Any:
        method = message["method"]
        if method == "initialize":
            params = message.get("params") or {}
            self._init = params
            requested = params.get("protocolVersion") if isinstance(params, dict) else None
            version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
            return {
                "capabilities": CAPABILITIES,
                "instructions": self.instructions,
                "protocolVersion": version,
                "serverInfo": {"name": self.name, "version": self.version},
            }
        if method == "server/discover":
            # The 2026-07-28 probe. Answered as a server of the handshake era answers it (method not found),
            # at once: the client falls back to `initialize`, which this front answers. Handing the probe to
            # the SDK would cost its import, seconds on a loaded machine: long enough for the probe to time
            # out (Claude Code 2.1.332 then connected without listing the tools).
            return _NOT_FOUND
        if method.startswith("notifications/"):
            return None
        if method == "ping":
            return {}
        if self._init is None:
            return _HANDOVER  # a client that never initialized speaks the stateless protocol: the SDK's
        if method == "tools/list":
            return {"tools": self.tools}
        if method in EMPTY_LISTS:
            return {EMPTY_LISTS[method]: []}
        return _HANDOVER

    def _send(self, writer: BinaryIO, message: dict[str, Any]) -> None:
        writer.write(jsonlite.dumps(message, compact=True).encode("utf-8") + b"\n")
        writer.flush()

    def _handover(self, writer: BinaryIO, pending: list[bytes], reader: BinaryIO) -> int:
        server = self._ready()
        if server is None:
            return self._without_server(writer, pending, reader)
        replay: list[bytes] = []
        if self._init is not None:
            replay.append(
                jsonlite.dumps(
                    {"jsonrpc": "2.0", "id": REPLAY_ID, "method": "initialize", "params": self._init}, compact=True
                ).encode()
                + b"\n"
            )
            replay.append(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        import anyio
        from mcp.server.stdio import stdio_server

        stdin = _Replay([*replay, *pending], reader)
        stdout = _Filter(writer)

        async def run() -> None:
            wrapped_in = anyio.wrap_file(stdin)  # type: ignore[arg-type]  # readline and iteration are all it uses
            wrapped_out = anyio.wrap_file(stdout)  # type: ignore[arg-type]  # write and flush
            async with stdio_server(stdin=wrapped_in, stdout=wrapped_out) as (r, w):
                low = server._lowlevel_server
                await low.run(r, w, low.create_initialization_options())

        anyio.run(run)
        return 0

    def _without_server(self, writer: BinaryIO, pending: list[bytes], reader: BinaryIO) -> int:
        """The tools could not be loaded: every request the front cannot answer gets the reason."""
        reason = f"{type(self._error).__name__}: {self._error}"
        sys.stderr.write(f"{self.prog}: tools unavailable: {reason}\n")
        lines = list(pending)
        while True:
            line = lines.pop(0) if lines else reader.readline()
            if not line:
                return 0
            try:
                message = jsonlite.loads(line.decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if not isinstance(message, dict) or "id" not in message or message.get("method") is None:
                continue
            answer = self._answer(message)
            if answer is _NOT_FOUND:
                error = {"code": -32601, "message": "Method not found"}
                self._send(writer, {"jsonrpc": "2.0", "id": message["id"], "error": error})
            elif answer is _HANDOVER:
                error = {"code": -32603, "message": f"ctxops tools unavailable ({reason}); run `ctx doctor`"}
                self._send(writer, {"jsonrpc": "2.0", "id": message["id"], "error": error})
            elif answer is not None:
                self._send(writer, {"jsonrpc": "2.0", "id": message["id"], "result": answer})


_HANDOVER: Any = object()
_NOT_FOUND: Any = object()

if __name__ == "__main__":
    sys.exit(write_manifest(sys.argv[1], sys.argv[2]))
