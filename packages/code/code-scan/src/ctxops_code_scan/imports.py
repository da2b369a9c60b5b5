"""Read one import statement node into Import records (per language; import nodes are few and small)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from .records import Import


def read_import(lang: str, node: Any, path: str) -> list[Import]:
    reader = _READERS.get(lang)
    if reader is None:
        return []
    line = node.start_point[0] + 1
    out = []
    for found in reader(node, path):
        module, name, alias = found[:3]
        if module:
            # A name on its own line of a parenthesized import is referenced there, not on the first line.
            at = found[3] if len(found) > 3 else line
            out.append(Import(path=path, lang=lang, module=module, name=name, alias=alias, line=at))
    return out


def _t(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")


# Python ---------------------------------------------------------------------------------------------


def _python(
    node: Any, path: str
) -> Iterator[tuple[str, str | None, str | None] | tuple[str, str | None, str | None, int]]:
    if node.type == "future_import_statement":
        for child in node.children_by_field_name("name"):
            yield "__future__", _t(child), _t(child)
        return
    if node.type == "import_statement":
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                yield _t(child.child_by_field_name("name")), None, _t(child.child_by_field_name("alias"))
            else:
                dotted = _t(child)
                yield dotted, None, dotted
        return
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return
    module = python_absolute_module(_t(module_node), path)
    names = node.children_by_field_name("name")
    if not names:
        if any(c.type == "wildcard_import" for c in node.children):
            yield module, "*", None
        return
    for child in names:
        at = child.start_point[0] + 1
        if child.type == "aliased_import":
            yield module, _t(child.child_by_field_name("name")), _t(child.child_by_field_name("alias")), at
        else:
            name = _t(child)
            yield module, name, name, at


def python_absolute_module(written: str, path: str) -> str:
    """`.a` written in `pkg/sub/mod.py` is `pkg.sub.a`; absolute names pass through."""
    dots = len(written) - len(written.lstrip("."))
    if dots == 0:
        return written
    package = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
    if dots > 1:
        package = package[: len(package) - (dots - 1)] if dots - 1 <= len(package) else []
    rest = written[dots:]
    parts = [*package, *([rest] if rest else [])]
    return ".".join(p for p in parts if p)


# JavaScript / TypeScript ----------------------------------------------------------------------------


def _js(node: Any, path: str) -> Iterator[tuple[str, str | None, str | None] | tuple[str, str | None, str | None, int]]:
    source = node.child_by_field_name("source")
    if source is None:
        return
    module = js_module(_t(source).strip("\"'`"), path)
    if node.type == "export_statement":  # a re-export: `export * from`, `export { a as b } from`, `export * as ns`
        yield from _js_reexport(node, module)
        return
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        yield module, None, None
        return
    for part in clause.named_children:
        if part.type == "identifier":
            yield module, "default", _t(part)
        elif part.type == "namespace_import":
            ident = next((c for c in part.named_children if c.type == "identifier"), None)
            yield module, None, _t(ident) if ident else None
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type != "import_specifier":
                    continue
                name = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias")
                if name is not None:  # (on its own line of a multi-line import: referenced there)
                    yield module, _t(name), _t(alias or name), name.start_point[0] + 1


def _js_reexport(node: Any, module: str) -> Iterator[tuple[str, str | None, str | None, int]]:
    clause = next((c for c in node.named_children if c.type in ("export_clause", "namespace_export")), None)
    if clause is None:
        yield module, "*", None, node.start_point[0] + 1
    elif clause.type == "namespace_export":
        ident = next((c for c in clause.named_children if c.type == "identifier"), None)
        if ident is not None:
            yield module, None, _t(ident), ident.start_point[0] + 1
    else:
        for spec in clause.named_children:
            name = spec.child_by_field_name("name") if spec.type == "export_specifier" else None
            if name is not None:
                alias = spec.child_by_field_name("alias")
                yield module, _t(name), _t(alias or name), name.start_point[0] + 1


# Node's built-in modules: a bare `"crypto"` is Node's, never the repository's `crypto/` (ethers re-exports
# `randomBytes` from it beside a `crypto/index.ts` of its own; tsc finds it in @types/node, session 24)
_NODE_BUILTINS = frozenset(
    [
        "assert",
        "async_hooks",
        "buffer",
        "child_process",
        "cluster",
        "console",
        "constants",
        "crypto",
        "dgram",
        "diagnostics_channel",
        "dns",
        "domain",
        "events",
        "fs",
        "http",
        "http2",
        "https",
        "inspector",
        "module",
        "net",
        "os",
        "path",
        "perf_hooks",
        "process",
        "punycode",
        "querystring",
        "readline",
        "repl",
        "stream",
        "string_decoder",
        "sys",
        "timers",
        "tls",
        "trace_events",
        "tty",
        "url",
        "util",
        "v8",
        "vm",
        "wasi",
        "worker_threads",
        "zlib",
    ]
)


def js_module(spec: str, path: str) -> str:
    """Relative specifiers become repo-relative paths without extension; packages stay as written, but for
    Node's built-in modules, written or read as `node:<name>` (a relative path may also come out as `crypto`)."""
    if not spec.startswith("."):
        return "node:" + spec if spec.partition("/")[0] in _NODE_BUILTINS else spec
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    for ext in (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"):
        if joined.endswith(ext):
            return joined[: -len(ext)]
    return joined


# Go -------------------------------------------------------------------------------------------------


def _go(node: Any, path: str) -> Iterator[tuple[str, str | None, str | None]]:
    specs = [node] if node.type == "import_spec" else _descendants(node, "import_spec")
    for spec in specs:
        target = spec.child_by_field_name("path")
        if target is None:
            continue
        module = _t(target).strip('"`')
        name = spec.child_by_field_name("name")
        alias = _t(name) if name is not None else module.rsplit("/", 1)[-1]
        yield module, None, None if alias in {"_", "."} else alias


# Java -----------------------------------------------------------------------------------------------


def _java(node: Any, path: str) -> Iterator[tuple[str, str | None, str | None]]:
    text = " ".join(_t(node).removeprefix("import").rstrip(";").split())
    static = text.startswith("static ")
    dotted = text.removeprefix("static ").replace(" ", "")
    if dotted.endswith(".*"):
        yield dotted[:-2], "*", None
        return
    module, _, name = dotted.rpartition(".")
    if not module:
        return
    yield module, name, name
    del static  # a static import names a member; the same record shape serves


# Rust -----------------------------------------------------------------------------------------------


def _rust(node: Any, path: str) -> Iterator[tuple[str, str | None, str | None]]:
    arg = node.child_by_field_name("argument")
    if arg is not None:
        yield from _rust_tree(arg, "")


def _rust_tree(node: Any, prefix: str) -> Iterator[tuple[str, str | None, str | None]]:
    kind = node.type
    if kind in {"identifier", "crate", "self", "super"}:
        name = _t(node)
        if prefix:
            yield prefix, name, name
        return
    if kind == "scoped_identifier":
        full = _join_rust(prefix, _t(node))
        module, _, name = full.rpartition("::")
        if module:
            yield module, name, name
        return
    if kind == "use_as_clause":
        target = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        if target is not None:
            full = _join_rust(prefix, _t(target))
            module, _, name = full.rpartition("::")
            yield module or full, name or None, _t(alias) if alias else name
        return
    if kind == "use_wildcard":
        inner = node.named_children[0] if node.named_child_count else None
        yield _join_rust(prefix, _t(inner)) if inner else prefix, "*", None
        return
    if kind == "scoped_use_list":
        scope = node.child_by_field_name("path")
        lst = node.child_by_field_name("list")
        new_prefix = _join_rust(prefix, _t(scope)) if scope is not None else prefix
        if lst is not None:
            for child in lst.named_children:
                yield from _rust_tree(child, new_prefix)
        return
    if kind == "use_list":
        for child in node.named_children:
            yield from _rust_tree(child, prefix)


def _join_rust(prefix: str, rest: str) -> str:
    rest = "".join(rest.split())
    return f"{prefix}::{rest}" if prefix else rest


# C / C++ --------------------------------------------------------------------------------------------


def _c(node: Any, path: str) -> Iterator[tuple[str, str | None, str | None]]:
    target = node.child_by_field_name("path")
    if target is None:
        return
    text = _t(target)
    if text.startswith("<"):
        yield text, None, None  # a system header: kept, never resolved to a repo file
        return
    spec = text.strip('"')
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    yield joined if not joined.startswith("..") else spec, None, None


def _descendants(node: Any, kind: str) -> list[Any]:
    found: list[Any] = []
    todo = [node]
    while todo:
        current = todo.pop()
        if current.type == kind:
            found.append(current)
        else:
            todo.extend(current.named_children)
    return found


_READERS = {
    "python": _python,
    "javascript": _js,
    "typescript": _js,
    "tsx": _js,
    "go": _go,
    "java": _java,
    "rust": _rust,
    "c": _c,
    "cpp": _c,
}
