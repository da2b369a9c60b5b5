"""Python scoping: a bare name bound locally (parameter, assignment, comprehension target, ...) is a use
of the local variable, not of a definition elsewhere with the same name; everything else is kept."""

from __future__ import annotations

from ctxops_code_scan.extract import extract

SOURCE = b"""
def helper(): pass
async def test():
    async def receive():
        pass
    async def app(scope, receive, send):
        await receive()          # 7: the parameter
        helper()                 # 8: module-level helper
    async def other():
        await receive()          # 10: the nested def
    def uses_global():
        global helper
        helper = None
        helper()                 # 14: global: module-level
    def assigns():
        helper = 3
        helper()                 # 17: local variable
        return [helper() for helper in xs]   # 18: comprehension target
    def comp():
        return [receive(x) for x in fs]      # 20: the nested def
    def nl():
        receive = 1
        def inner():
            nonlocal receive
            receive()            # 25: nl's variable
        def inner2():
            receive()            # 27: nl's variable (closure)
        return inner
class K:
    helper = 1
    def m(self):
        helper()                 # 32: class names are not seen from methods: module-level
def w(*args, key=None, **kw):
    args(); key(); kw(); helper()   # 34: three parameters, then module-level helper
f = lambda helper: helper()      # 35: the lambda's parameter
for item in []:
    helper()                     # 37: module level: kept
def loops(items):
    for helper in items:
        helper()                 # 40: loop target
    with open(items) as receive:
        receive()                # 42: with target
    try:
        pass
    except E as helper:
        helper()                 # 46: except target
    if (helper := items):
        helper()                 # 48: walrus target
def defaults(helper=helper(), *, k=lambda receive=helper(): receive()):   # 49: defaults are outer
    return helper
"""


def _bare_calls() -> set[tuple[int, str]]:
    out = extract(SOURCE, "t.py", "python")
    return {(r.line, r.symbol_name) for r in out.references if r.role == "call" and r.qualifier is None}


def test_locals_shadow_outer_definitions_as_python_resolves_names() -> None:
    calls = _bare_calls()
    kept = {(8, "helper"), (10, "receive"), (14, "helper"), (20, "receive"), (32, "helper"), (34, "helper"),
            (37, "helper")}  # fmt: skip
    assert kept <= calls
    assert sum(1 for line, name in calls if (line, name) == (49, "helper")) == 1  # (a set: both uses are line 49)
    out = extract(SOURCE, "t.py", "python")
    line49 = sorted((r.col, r.symbol_name) for r in out.references if r.line == 49 and r.role == "call")
    assert [name for _c, name in line49] == ["helper", "helper"]  # the lambda's own `receive()` is its parameter
    dropped = {(7, "receive"), (17, "helper"), (18, "helper"), (25, "receive"), (27, "receive"), (34, "args"),
               (34, "key"), (34, "kw"), (35, "helper"), (40, "helper"), (42, "receive"), (46, "helper"),
               (48, "helper")}  # fmt: skip
    assert not (dropped & calls), sorted(dropped & calls)


def test_javascript_scoping_is_its_own() -> None:
    # (brace_scopes.py, tested in test_brace_scopes.py: a parameter hides the function in JavaScript too)
    source = b"function helper() {}\nfunction app(helper) { helper(); }\nfunction other() { helper(); }\n"
    out = extract(source, "t.js", "javascript")
    assert [r.line for r in out.references if r.symbol_name == "helper" and r.role == "call"] == [3]


def test_scopes_come_from_the_tags_query_one_pass_over_the_tree(monkeypatch) -> None:
    # The scopes and bindings are the tags query's `@local.*` matches: one query cursor per file, not a
    # second pass of a query of their own (main: two cursors, ~1 CPU-s on the stdlib), and the same drops.
    import tree_sitter

    made: list[object] = []
    real = tree_sitter.QueryCursor

    def counted(*args: object, **kwargs: object) -> object:
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(tree_sitter, "QueryCursor", counted)
    out = extract(SOURCE, "m.py", "python")
    assert len(made) == 1
    kept = {(r.symbol_name, r.line) for r in out.references if r.role == "call"}
    assert ("receive", 7) not in kept and ("receive", 10) in kept and ("helper", 8) in kept
