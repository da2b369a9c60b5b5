"""JavaScript/TypeScript: the name a module's `export default` exports, which a default import binds.

`export default class Ajv {}`, `export default function f() {}` and `export default Ajv;` (a name declared
elsewhere in the module) give a `types` row (owner None, `*default`, the name), as tsc binds `import X from
'./m'` to it. An anonymous default (`export default {...}`, `export default () => 1`) gives the row with an
empty name: the import then binds no symbol of the module (not one that happens to share its name). Only the
module's top-level statements are read: one pass, no recursion.
"""

from __future__ import annotations

from typing import Any

DEFAULT_NAME = "*default"


def default_export_rows(root: Any) -> list[tuple[None, str, str]]:
    """The `*default` row of a module's named default export; [] when it has none."""
    for stmt in root.named_children:
        if stmt.type != "export_statement" or not any(c.type == "default" for c in stmt.children):
            continue
        decl = stmt.child_by_field_name("declaration")
        named = decl.child_by_field_name("name") if decl is not None else stmt.child_by_field_name("value")
        if named is not None and named.type in ("identifier", "type_identifier"):
            return [(None, DEFAULT_NAME, (named.text or b"").decode("utf-8", "replace"))]
        return [(None, DEFAULT_NAME, "")]  # (anonymous: a module has one default export)
    return []
