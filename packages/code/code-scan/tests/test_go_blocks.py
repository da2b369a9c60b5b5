"""Go locals by block (`go_blocks.py`): each use reads the declaration whose scope holds it, as go/types does."""

from __future__ import annotations

import pytest
from cpu_timing import best_cpu_s
from ctxops_code_scan.extract import extract

SRC = b"""package x

type A struct{}
type B struct{}

var p = B{}

func f(ok bool, as []A) {
\tif ok {
\t\tv := A{}
\t\tv.M()
\t} else {
\t\tv := B{}
\t\tv.M()
\t}
\tw := A{}
\tif ok {
\t\tw.M()
\t\tw := B{}
\t\tw.M()
\t}
\tw.M()
\tp.M()
\t{
\t\tp := A{}
\t\tp.M()
\t}
\tfor _, e := range as {
\t\te.M()
\t}
\tfor _, e := range as {
\t\te.M()
\t\tfunc(e B) {
\t\t\te.M()
\t\t}(B{})
\t}
\tu := mk()
\t{
\t\tu := u.Next()
\t\tu.M()
\t}
\tz.M()
\tz := A{}
}
"""


def _receivers(src: bytes) -> dict[int, str | None]:
    out = extract(src, "x/x.go", "go")
    return {r.line: r.receiver_type for r in out.references if r.role == "call" and r.qualifier}


def test_each_use_reads_the_declaration_around_it() -> None:
    got = _receivers(SRC)
    assert (got[11], got[14]) == ("A", "B")  # `v` of each arm (main: none, two readings of one name)
    assert (got[18], got[20], got[22]) == ("A", "B", "A")  # before the inner `w`, the inner, after its block
    assert (got[23], got[26]) == ("B", "A")  # the package's `p` (a B), then the block's
    assert (got[29], got[32]) == ("A[]#[]", "A[]#[]")
    assert got[34] == "B"  # the literal's parameter hides the range variable
    assert got[40] == "=mk#Next()"  # `u := u.Next()`: its value reads the outer `u`
    assert got[42] == "^z"  # before any declaration of `z`: the package's name


TYPE_SWITCH = b"""package x

type A struct{}
type I interface{ M() }

func f(v I) {
	switch m := v.(type) {
	case A:
		m.M()
	case *A:
		m.M()
	case A, *A:
		m.M()
	case nil:
		m.M()
	default:
		m.M()
	}
}
"""


def test_type_switch_variable_is_the_type_of_a_one_type_clause() -> None:
    # go/types declares one `m` per clause: a T in `case T:`, the switch's I in the others (no type read)
    assert _receivers(TYPE_SWITCH) == {9: "A", 11: "A", 13: None, 15: None, 17: None}


@pytest.mark.parametrize(
    "shape",
    [
        # one name declared in thousands of sibling blocks, each used
        lambda n: "".join("\tif ok {\n\t\tx := A{}\n\t\tx.M()\n\t}\n" for _ in range(n)),
        # one name shadowed in nested blocks (capped by depth.py), used after each block closes
        lambda n: "\tx := A{}\n" + "\t{ x := B{}\n" * min(n, 400) + "\tx.M() }\n" * min(n, 400) + "\tx.M()\n" * n,
        # thousands of names declared in one block, each used after all of them
        lambda n: "".join(f"\tx{i} := A{{}}\n" for i in range(n)) + "".join(f"\tx{i}.M()\n" for i in range(n)),
    ],
)
def test_block_locals_extract_linearly(shape) -> None:  # type: ignore[no-untyped-def]
    def best(n: int) -> float:
        src = "package x\n\nfunc f(ok bool) {\n" + shape(n) + "}\n"
        return best_cpu_s(lambda: extract(src.encode(), "x/x.go", "go"))

    assert best(4_000) < 64 * best(250)


def test_embedded_field_is_named_by_its_type() -> None:
    # `struct { html.Config }`: a field `Config` of type html.Config (go/types); not an anonymous struct's
    src = b"package x\n\ntype W struct {\n\thtml.Config\n\t*B\n\tn struct{ Other }\n}\n"
    rows = {
        (owner.rsplit(" ", 1)[-1] if owner else None, name): e for owner, name, e in extract(src, "x/x.go", "go").types
    }
    assert rows[("W#", "Config")] == "html.Config"
    assert ("W#", "Other") not in rows


def _literals(n: int) -> bytes:
    """n package-level literals `func(c *Context)` and n functions whose literal `func(name string)` reads the
    function's own `c` (a local `c` and `name` declared twice elsewhere: their spans are read)."""
    out = ["package x\n\ntype Context struct{}\n\nfunc local() {\n\tc, name := 1, 2\n\tc, name := 3, 4\n}\n"]
    for i in range(n):
        out.append(f"var cmd{i} = Command{{\n\tAction: func(c *Context) error {{\n\t\treturn nil\n\t}},\n}}\n")
        out.append(f"func check{i}(c *Context) {{\n\teach(func(name string) {{\n\t\tc.Bool(name) // use\n\t}})\n}}\n")
    return "".join(out).encode()


def test_a_literals_parameter_hides_only_in_its_own_body() -> None:
    # each literal's parameters with its own body (a query's captures come in no order: read from the literal)
    src = _literals(12)
    uses = [i for i, line in enumerate(src.decode().splitlines(), 1) if line.endswith("// use")]
    got = _receivers(src)
    assert [got[i] for i in uses] == ["Context"] * 12


def test_a_use_past_the_walk_bound_has_no_type() -> None:
    # one name shadowed 70 blocks deep, used after they close: its declaration is past 64 spans out, so the
    # use gets no type rather than a guess (10 deep: the outer declaration's)
    def src(depth: int) -> bytes:
        inner = "\t{ x := B{}\n" * depth + "\t_ = x }\n" * depth
        return f"package x\n\nfunc f() {{\n\tx := A{{}}\n{inner}\tx.M()\n}}\n".encode()

    def at_m(depth: int) -> str | None:
        refs = extract(src(depth), "x/x.go", "go").references
        return next(r.receiver_type for r in refs if r.symbol_name == "M")

    assert at_m(10) == "A"
    assert at_m(70) is None


def test_a_local_named_like_the_receiver_hides_it() -> None:
    # `for n := n.first; ...`: in the loop `n` is the local (a *Item), not the method's receiver (go/types)
    src = b"""package x

type List struct{ first *Item }
type Item struct{}

func (n *List) Walk() {
\tn.Len()
\tfor n := n.first; n != nil; {
\t\tn.Visit()
\t}
\tn.Len()
}

func (n *List) Other() {
\tfor n := n.first; n != nil; {
\t\tn.Visit()
\t}
}
"""
    refs = extract(src, "x/x.go", "go").references
    got = {r.line: (r.qualifier, r.receiver_type) for r in refs if r.role == "call"}
    assert (got[7], got[9], got[11]) == (("self", None), ("n", "List#first"), ("self", None))
    assert got[16] == ("n", "List#first")


def _far_apart(n: int) -> bytes:
    """`n` functions declaring `v` in two blocks, each after a function of plain statements (no local)."""
    plain = "() {\n" + "\tif true {\n\t\tcall()\n\t}\n" * 20 + "}\n\n"
    two = "(ok bool) {\n\tif ok {\n\t\tv := A{}\n\t\tv.M()\n\t} else {\n\t\tv := B{}\n\t\tv.M()\n\t}\n}\n\n"
    body = "".join(f"func g{i}" + plain + f"func f{i}" + two for i in range(n))
    return f"package x\n\ntype A struct{{}}\ntype B struct{{}}\n\n{body}".encode()


def test_each_block_is_found_whatever_the_gaps_between_declarations() -> None:
    # 80 functions with locals between 80 without: more gaps than the query's ranges, so some ranges span
    # several functions; each `v` still reads its own block's declaration
    got = _receivers(_far_apart(80))
    assert sorted(t for t in got.values() if t is not None) == ["A"] * 80 + ["B"] * 80


def test_the_blocks_query_skips_code_without_declarations() -> None:
    # the blocks of the functions with no local are never walked (main queried every block of the file)
    import tree_sitter
    from ctxops_code_scan.go_blocks import GoScopes
    from ctxops_code_scan.languages import ts_language

    src = _far_apart(3)
    root = tree_sitter.Parser(ts_language("go")).parse(src).root_node
    binds = []
    query = tree_sitter.Query(
        ts_language("go"), "(short_var_declaration left: (expression_list (identifier) @name)) @bind.local"
    )
    for _pattern, caps in tree_sitter.QueryCursor(query).matches(root):
        binds.append(caps)
    scopes = GoScopes(root, binds)
    assert scopes.blocks is not None
    assert len(scopes.blocks) <= 3 * 4  # (each f: its body, the if, its two blocks; each g's 41 not read; main: 135)
