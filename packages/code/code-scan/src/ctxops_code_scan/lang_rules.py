"""Per-language judgement the query cannot express: kinds by context, doc lines, export rules."""

from __future__ import annotations

import re
from typing import Any

_CONST_NAME = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})
_FUNCTION_KINDS = frozenset({"function", "method"})
_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum"})
# Nodes that wrap a definition: its doc comment sits before the wrapper.
_WRAPPERS = frozenset(
    {
        "export_statement",
        "decorated_definition",
        "const_declaration",
        "var_declaration",
        "type_declaration",
        "lexical_declaration",
        "variable_declaration",
        "field_declaration",
        "declaration",
        "template_declaration",
    }
)


class Rules:
    """Defaults shared by the C-like languages; subclasses override what differs."""

    module_separator = "/"

    def clean_name(self, text: str) -> str:
        return text.strip()

    def receiver_type(self, text: str) -> str | None:
        name = re.sub(r"[^\w.:]", " ", text).split()
        return name[-1].replace("::", ".") if name else None

    def refine_kind(self, kind: str, name: str, enclosing: str | None, node: Any) -> str | None:
        if kind == "function" and enclosing in _TYPE_KINDS | {"impl"}:
            return "method"
        if kind == "variable" and _CONST_NAME.match(name):
            return "constant"
        return kind

    def doc(self, node: Any) -> str | None:
        """The first line of the comment block right above the definition (or above its wrapper)."""
        prev = node.prev_named_sibling
        if prev is None and node.parent is not None and node.parent.type in _WRAPPERS:
            node = node.parent
            prev = node.prev_named_sibling
        if prev is None or prev.type not in _COMMENT_TYPES:
            return None
        if prev.end_point[0] + 1 < node.start_point[0]:
            return None  # a comment separated by a blank line documents something else
        first = prev
        while True:  # a block of `//` or `///` lines: its first line is the summary
            above = first.prev_named_sibling
            if above is None or above.type not in _COMMENT_TYPES or above.end_point[0] + 1 < first.start_point[0]:
                break
            first = above
        return first_doc_line(first.text.decode("utf-8", "replace"))

    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        return True


class PythonRules(Rules):
    module_separator = "."

    def refine_kind(self, kind: str, name: str, enclosing: str | None, node: Any) -> str | None:
        if kind == "variable":
            if enclosing in _FUNCTION_KINDS:
                return None  # locals are not part of the map
            if enclosing == "class":
                return "field"
            return "constant" if _CONST_NAME.match(name) else "variable"
        if kind == "function" and enclosing == "class":
            return "method"
        return kind

    def doc(self, node: Any) -> str | None:
        body = node.child_by_field_name("body")
        if body is None or body.named_child_count == 0:
            return None
        first = body.named_child(0)  # (`named_children[0]` would build a node for every statement of the body)
        if first is None or first.type != "expression_statement" or first.named_child_count == 0:
            return None
        string = first.named_child(0)
        if string is None or string.type != "string":
            return None
        return first_doc_line(string.text.decode("utf-8", "replace"))

    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        if enclosing in _FUNCTION_KINDS:
            return False
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


class JsRules(Rules):
    def clean_name(self, text: str) -> str:
        return text.strip().strip("\"'`")

    def refine_kind(self, kind: str, name: str, enclosing: str | None, node: Any) -> str | None:
        if kind in {"variable", "function"} and enclosing in _FUNCTION_KINDS and node.type == "variable_declarator":
            return None  # a local const inside a function body
        return super().refine_kind(kind, name, enclosing, node)

    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        if enclosing is not None:
            return not name.startswith("#")
        current = node
        for _ in range(3):
            current = current.parent
            if current is None:
                return False
            if current.type == "export_statement":
                return True
        return False


class GoRules(Rules):
    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        return name[:1].isupper()


class RustRules(Rules):
    module_separator = "::"

    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        return any(child.type == "visibility_modifier" for child in node.children[:2])


class JavaRules(Rules):
    def refine_kind(self, kind: str, name: str, enclosing: str | None, node: Any) -> str | None:
        if kind == "field" and _is_static_final(node):
            return "constant"
        return super().refine_kind(kind, name, enclosing, node)

    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        mods = node.children[0] if node.child_count else None
        if mods is None or mods.type != "modifiers":
            return enclosing in {"interface"}
        text = mods.text.decode("utf-8", "replace")
        return "public" in text or "protected" in text


class CRules(Rules):
    def exported(self, kind: str, name: str, node: Any, enclosing: str | None) -> bool:
        return not any(
            child.type == "storage_class_specifier" and child.text == b"static" for child in node.children[:3]
        )


def _is_static_final(node: Any) -> bool:
    mods = node.children[0] if node.child_count else None
    if mods is None or mods.type != "modifiers":
        return False
    text = mods.text.decode("utf-8", "replace")
    return "static" in text and "final" in text


def first_doc_line(raw: str) -> str | None:
    """The first meaningful line of a docstring or comment, without its quote or comment markers."""
    text = raw.strip()
    for prefix in ('r"""', "r'''", '"""', "'''", 'b"', '"', "'", "/**", "/*!", "/*", "///", "//!", "//", "#"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    for raw_line in text.splitlines():
        line = raw_line.strip().lstrip("*/#!").strip()
        for suffix in ('"""', "'''", "*/", '"', "'"):
            line = line.removesuffix(suffix).strip()
        if line:
            return line[:160]
    return None


_RULES: dict[str, Rules] = {
    "python": PythonRules(),
    "javascript": JsRules(),
    "typescript": JsRules(),
    "tsx": JsRules(),
    "go": GoRules(),
    "rust": RustRules(),
    "java": JavaRules(),
    "c": CRules(),
    "cpp": CRules(),
}


def rules_for(lang: str) -> Rules:
    return _RULES.get(lang, Rules())
