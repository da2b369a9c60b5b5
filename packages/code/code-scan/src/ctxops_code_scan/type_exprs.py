"""Type expressions: what a receiver, a function's result or an attribute is, as far as a file can say.

A file often cannot name the class of `client.get(url).json()` itself, but it can say how to find it:
"the result of method `get` of whatever `client` is, where `client` is the pytest fixture `client`".
Such a statement is a *type expression*, a string the code graph evaluates across files:

    expr  := head ('#' step)*
    head  := Name | mod.Name     an instance of the class named so in the file (as written)
           | '=' name            the result of calling `name` (a function or class of the file, or imported)
           | '^' name            the value of the module-level name `name` (of the file, or imported)
           | '@' name            the pytest fixture `name` (the file's own, or a conftest.py above it)
           | 'Self'              the class the expression is evaluated for (`self`, `cls(...)`, `-> Self`)
           | '&' f '#' i.j       TypeScript: parameter j of the callback passed as argument i of function f
                                 (or of class f's constructor), as f's signature states it
           | Name '[]'           TypeScript: an array of Name (its element steps give a Name)
           | '%' sources         TypeScript, a callee's row only: its callback's parameter is its own type
                                 parameter, which each call instantiates (receiver_types.py `_ts_recipe`)
    step  := attr                an attribute (an annotated or assigned attribute, or a property)
           | method '()'         the result of calling a method
           | method '&' i.j      TypeScript: parameter j of the callback passed as argument i of the method
A callback's step `i.j` / `method&i.j` may end in `%<byte>@<path>`: the call at that byte of that file,
whose context (`ts_call_context`: type arguments, arguments, declared type) rows `%<byte>.<source>` of
the file hold.
           | '[]'                an element (`xs[i]`, `for (x of xs)`)
A private name `#x` is written `~x` in a step ('#' separates steps).

`Holder#machine` (the annotated field `machine` of `Holder`) is the simplest case. Every hop needs a
statement in the code (an annotation, a constructor call, a `return`); nothing is guessed from names.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from .operators import operator_step
from .overloads import argument_of

# (member, object) fields of a member access: Python, Go, TypeScript
_MEMBER = {
    "attribute": ("attribute", "object"),
    "selector_expression": ("field", "operand"),
    "member_expression": ("property", "object"),
}
# Expressions whose value is their one child's: `await x`, `(x)`, TypeScript's `x!`
_WRAPPERS = frozenset({"parenthesized_expression", "non_null_expression"})
# Members of a union that give no method of a class: `K | null`, `K | boolean` call K's methods.
_NOT_A_CLASS = frozenset({"", "null", "undefined", "void", "boolean", "true", "false", "string", "number", "bigint"})
_LITERALS = frozenset({"null", "undefined", "number", "string", "true", "false", "array", "object"})
MAX_STEPS = 6  # (issue 24: `opts.router._def._config.transformer.input.deserialize()` is six)
MAX_DEPTH = 4  # locals defined through locals, at most this deep
Chain = tuple[bool, str, tuple[str, ...]]  # (the root is called, root name, steps)
SELF_NAMES = frozenset({"Self", "typing.Self", "t.Self", "te.Self", "typing_extensions.Self"})
FIXTURE_FILES = ("conftest.py",)
# `copy.deepcopy(x)` is typed `(x: T) -> T`; `cast(K, x)` is a K (the names a module imports them by)
_IDENTITY_HELPERS = frozenset({"copy.deepcopy", "copy.copy", "deepcopy"})
_CAST_HELPERS = frozenset({"cast", "typing.cast", "t.cast", "typing_extensions.cast"})
# `type(self)` / `self.__class__`: the receiver's own class, by the node kind of the callee
_SELF_CLASS = {"call": ("type(self)", "type(cls)"), "attribute": ("self.__class__",)}
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,3}")


def chain_of(node: Any, *, arms: bool = True) -> Chain | None:
    """`a.b(x).c` -> (False, 'a', ('b()', 'c')); `f(x).y` -> (True, 'f', ('y',)); None for anything else
    (literals, lambdas), or for chains longer than MAX_STEPS. An operator is its dunder's call (`operators.py`).
    ``arms`` False: a conditional expression or `or` gives None (an arm's own arms are not read)."""
    steps: list[str] = []
    awaited = False  # (the call below is awaited; its step reads the function's `await` row)
    while node is not None:
        kind = node.type
        if kind in ("identifier", "field_identifier", "package_identifier", "this"):
            if len(steps) > MAX_STEPS:
                return None
            return False, _text(node), tuple(reversed(steps))
        if kind == "attribute":
            attr = node.child_by_field_name("attribute")
            if attr is None:
                return None
            steps.append(_text(attr))
            node = node.child_by_field_name("object")
        elif kind in ("selector_expression", "member_expression"):  # Go `x.f`, TypeScript `x.f`
            attr = node.child_by_field_name("field" if kind == "selector_expression" else "property")
            if attr is None:
                return None
            steps.append(step_name(_text(attr)))
            node = node.child_by_field_name("operand" if kind == "selector_expression" else "object")
        elif kind in ("call", "call_expression"):
            fn = node.child_by_field_name("function")
            if fn is None:
                return None
            if kind == "call" and _text(fn) in _SELF_CLASS.get(fn.type, ()):
                # `type(self)(...)`, `self.__class__(...)`: a new instance of the receiver's own class (a
                # checker's `Self`; not `cls.__class__`, the metaclass)
                return None if len(steps) > MAX_STEPS else (False, "self", tuple(reversed(steps)))
            if kind == "call" and (helper := _identity_helper(node, fn)) is not None:
                if isinstance(helper, str):  # `cast(K, x)`: what the code states
                    return None if len(steps) > MAX_STEPS else (False, ":" + helper, tuple(reversed(steps)))
                node, awaited = helper, False  # `copy.deepcopy(x)`: x's type (typeshed: `deepcopy(x: T) -> T`)
                continue
            if fn.type == "identifier":
                if len(steps) > MAX_STEPS:
                    return None
                argument = argument_of(node) if kind == "call" else None  # (Python: an overload's pick)
                return True, _text(fn) + ("?" + argument if argument else ""), tuple(reversed(steps))
            if kind == "call" and fn.type in ("call", "subscript", "parenthesized_expression"):
                steps.append("__call__()")  # `Word("A")("name")`: calling an instance is its class's `__call__`
                node, awaited = fn, False
                continue
            if fn.type == "member_expression" and _text(fn) in ("Object.values", "Object.entries"):
                # `Object.values(r)` / `Object.entries(r)`: r's values (a record's `K{}`, an array's `K[]`), the steps
                # `values{}` / `entries{}` (no class's method: on an instance they give nothing)
                listed = node.child_by_field_name("arguments")
                args = [a for a in listed.named_children if a.type != "comment"] if listed is not None else []
                if len(args) != 1:
                    return None
                steps.append(_text(fn).partition(".")[2] + "{}")
                node, awaited = args[0], False
                continue
            fields = _MEMBER.get(fn.type)
            if fields is None:
                return None
            attr = fn.child_by_field_name(fields[0])
            if attr is None:
                return None
            steps.append(step_name(_text(attr)) + ("()await" if awaited else "()"))
            awaited = False
            node = fn.child_by_field_name(fields[1])
        elif kind == "non_null_expression" and _is_binary(node):
            # tree-sitter reads `a - b!.f()` as `(a - b)!`; `!` binds tighter than any operator: it is `b!`
            node = node.named_children[0].child_by_field_name("right")
        elif kind in ("await", "await_expression") and node.named_child_count == 1:
            node = node.named_children[0]  # `await c.get()`: what awaiting get's result gives (its `await` row)
            awaited = node.type in ("call", "call_expression")
        elif kind in _WRAPPERS and node.named_child_count == 1:
            node = node.named_children[0]  # TypeScript `await c.get()`: the async method's annotation
        elif kind == "binary_expression":  # TypeScript `a ?? b`, `a || b`: a default for a (of a's type)
            op = node.child_by_field_name("operator")
            if op is None or op.type not in ("??", "||"):
                return None
            left = node.child_by_field_name("left")
            node = left if left is not None and left.type not in _LITERALS else node.child_by_field_name("right")
        elif kind == "new_expression":  # `new K(...)`: an instance of K
            ctor = node.child_by_field_name("constructor")
            if ctor is None or ctor.type != "identifier" or len(steps) > MAX_STEPS:
                return None
            return True, _text(ctor), tuple(reversed(steps))
        elif kind in ("as_expression", "type_assertion"):  # `x as K`, `<K>x`: what the code states
            stated = node.named_children[-1 if kind == "as_expression" else 0] if node.named_child_count == 2 else None
            if stated is not None and stated.type == "type_arguments":  # (`<K>x`: the one type in its brackets)
                stated = stated.named_children[0] if stated.named_child_count == 1 else None
            typ = ts_type(_text(stated)) if stated is not None else None
            if typ is None or typ == "Self" or len(steps) > MAX_STEPS:
                return None
            return False, ":" + typ, tuple(reversed(steps))
        elif kind == "subscript_expression":  # `xs[i]`: an element (the graph reads `K[]` element steps)
            steps.append("[]")
            node = node.child_by_field_name("object")
        elif kind == "index_expression":  # Go `xs[i]`, `m[k]`: an element, as above
            steps.append("[]")
            node = node.child_by_field_name("operand")
        elif kind == "type_assertion_expression":  # Go `x.(T)`, `x.(*T)`: what the code states
            stated = node.child_by_field_name("type")
            typ = go_type(_text(stated)) if stated is not None else None
            if typ is None or len(steps) > MAX_STEPS:
                return None
            return False, ":" + typ, tuple(reversed(steps))
        elif kind == "subscript":  # Python `xs[i]`, `d[k]`: an element, a value (`K[]`, `K{}`)
            steps.append("__getitem__()")
            node = node.child_by_field_name("value")
        elif kind in ("conditional_expression", "boolean_operator") and arms:
            # Python `A(..) if c else b`, `a or B`: the one class both arms give (`_one_arm`)
            found = _one_arm(node)
            if found is None or len(steps) + len(found[2]) > MAX_STEPS:
                return None
            return found[0], found[1], found[2] + tuple(reversed(steps))
        elif (operated := operator_step(node)) is not None:  # Python `a + b`: `a.__add__(b)`'s result
            if len(steps) >= MAX_STEPS:
                return None  # (a 10,000-term `a + b + ...` stops here, not at its far end)
            steps.append(operated[0])
            node = operated[1]
        else:
            return None
    return None


def _one_arm(node: Any) -> Chain | None:
    """Python: the value of `A(..) if c else b` / `a or B` when both arms give one class, as a checker joins
    them: a `None` arm drops out (an Optional's member is the other arm's), two calls of one name are that call
    (`A(x) if c else A(y)`), and a name the condition narrows by `isinstance(name, K)` is a K beside a call
    `K(...)` (`Field(f) if not isinstance(f, Field) else f`). None otherwise; an arm's own arms are not read
    (no recursion into nested conditionals)."""
    if node.type == "boolean_operator":
        op = node.child_by_field_name("operator")
        if op is None or op.type != "or":
            return None
        pair = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        narrowed: tuple[int, str, str] | None = None
    else:
        if node.named_child_count != 3:
            return None
        cons, cond, alt = node.named_children
        pair = [cons, alt]
        narrowed = _isinstance_narrowing(cond)
    chains: list[Chain] = []
    for i, arm in enumerate(pair):
        if arm is None:
            return None
        if arm.type == "none":
            continue  # (an Optional: the member is the other arm's)
        if narrowed is not None and narrowed[0] == i and arm.type == "identifier" and _text(arm) == narrowed[1]:
            chains.append((False, ":" + narrowed[2], ()))
            continue
        found = chain_of(arm, arms=False)
        if found is None:
            return None
        chains.append(found)
    if not chains:
        return None
    first = chains[0]
    if all(c == first for c in chains):
        return first
    plain = {(c[0], c[1].partition("?")[0], c[2]) if c[0] else c for c in chains}
    if len(plain) == 1:
        return plain.pop()  # (two calls of one function or class with different arguments)
    stated = {c[1][1:] for c in chains if not c[0] and c[1].startswith(":") and not c[2]}
    made = {c[1].partition("?")[0] for c in chains if c[0] and not c[2]}
    if len(stated) == 1 and stated == made and len(chains) == 2:
        return False, ":" + stated.pop(), ()  # (a call of K beside a name narrowed to a K)
    return None


def _isinstance_narrowing(cond: Any) -> tuple[int, str, str] | None:
    """(arm, name, K) when a conditional's condition is `isinstance(name, K)` (arm 0, the `if` arm) or `not
    isinstance(name, K)` (arm 1, the `else` arm), K a plain class name; None otherwise."""
    arm = 0
    if cond.type == "not_operator":
        cond = cond.child_by_field_name("argument")
        arm = 1
    if cond is None or cond.type != "call":
        return None
    fn = cond.child_by_field_name("function")
    args = cond.child_by_field_name("arguments")
    if fn is None or args is None or _text(fn) != "isinstance" or args.named_child_count != 2:
        return None
    name, cls = args.named_children
    if name.type != "identifier" or cls.type != "identifier":
        return None
    return arm, _text(name), _text(cls)


def _identity_helper(call: Any, fn: Any) -> Any:
    """Python helpers whose result has a type a checker reads from the call (typeshed states it): the
    argument node whose type `copy.deepcopy(x)` / `copy.copy(x)` / `deepcopy(x)` returns, or the class name
    `typing.cast(K, x)` / `cast("K", x)` states; None for any other call."""
    name = _text(fn) if fn.type in ("identifier", "attribute") else ""
    if name not in _IDENTITY_HELPERS and name not in _CAST_HELPERS:
        return None
    args = call.child_by_field_name("arguments")
    listed = [a for a in (args.named_children if args is not None else []) if a.type not in ("comment",)]
    positional = [a for a in listed if a.type not in ("keyword_argument", "list_splat", "dictionary_splat")]
    if name in _IDENTITY_HELPERS:
        return positional[0] if len(positional) >= 1 and len(listed) <= 2 else None
    if len(positional) != 2 or len(listed) != 2:
        return None
    stated = positional[0]
    written = _text(stated)
    if stated.type == "string":
        written = written.strip("\"'")
    elif stated.type not in ("identifier", "attribute"):
        return None
    return written if _DOTTED_NAME.fullmatch(written) else None


def step_name(name: str) -> str:
    """A member's name as a step: a private `#x` is `~x` ('#' separates steps)."""
    return "~" + name[1:] if name.startswith("#") else name


def _is_binary(node: Any) -> bool:
    return bool(node.named_child_count == 1 and node.named_children[0].type == "binary_expression")


def join(head: str, steps: tuple[str, ...] | list[str]) -> str | None:
    """`head#s1#s2`, or None past MAX_STEPS."""
    if len(steps) > MAX_STEPS:
        return None
    return "#".join((head, *steps))


def go_result(text: str) -> str | None:
    """The type a Go function gives: `*T`, `T`, `pkg.T`, `[]*T` (`T[]`), the first of `(T, error)` / `(T,
    bool)` (what `x, ok := f()` binds to x); None for anything else."""
    items = go_results(text)
    return items[0] if items else None


_GO_NOT_NAMES = frozenset({"chan", "func", "map", "struct", "interface"})


def go_results(text: str) -> list[str | None]:
    """Each result of a Go function, by position, as `go_type` reads it: `([]byte, Segment)` -> [None,
    'Segment']; named results share a written type (`(a, b *T)` -> ['T', 'T']), as go/types reads them."""
    t = text.strip()
    if not (t.startswith("(") and t.endswith(")")):
        return [go_type(t)]
    parts = split_top_level(t[1:-1], ",", "([{")
    split = [p.partition(" ") for p in parts]
    named = any(rest and first.isidentifier() and first not in _GO_NOT_NAMES for first, _, rest in split)
    written: list[str | None] = [go_type(p) for p in parts]
    if named:
        written = []
        waiting = 0  # names written before their type (`a, b T`): they take the next written type
        for _, _, rest in split:
            if not rest:
                waiting += 1
                continue
            written.extend([go_type(rest)] * (waiting + 1))
            waiting = 0
        written.extend([None] * waiting)
    return [None if x in _GO_BASIC or x == "error" else x for x in written]  # (no methods of theirs to find)


_GO_BASIC = frozenset(
    {
        *("any", "bool", "byte", "rune", "string", "uintptr"),
        *("int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"),
        *("float32", "float64", "complex64", "complex128"),
    }
)


def go_type(text: str) -> str | None:
    """A Go type as written, as a type expression: `*T`, `T`, `pkg.T`, `T[int]` -> `T` / `pkg.T`; a slice,
    an array or a map of them (`[]*T`, `[N]T`, `map[K]*T`: what indexing or `range` gives) -> `T[]`; None for
    anything else (functions, channels, nested containers, anonymous structs)."""
    t = text.strip().lstrip("*").strip()
    element = False
    if t.startswith("map["):
        depth = 0
        for i, ch in enumerate(t):
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    t, element = t[i + 1 :].strip(), True
                    break
        else:
            return None
    elif t.startswith("["):
        close = t.find("]")
        if close < 0:
            return None
        t, element = t[close + 1 :].strip(), True
    t = t.lstrip("*").strip()
    if element and t.startswith(("[", "map[")):
        inner = go_type(t)  # `[][]T`, `map[K][]T`: an element is itself a `T[]`
        return None if inner is None or inner.endswith("[][]") else inner + "[]"
    t = t.split("[", 1)[0].strip()  # a generic type's arguments: `List[T]` is a List
    parts = t.split(".")
    if not (1 <= len(parts) <= 2 and all(p.isidentifier() for p in parts)) or (element and t in _GO_BASIC):
        return None  # (`[]int`: its elements have no methods to find)
    return t + "[]" if element else t


# Containers of the standard library: what an element (`Set<K>`, read as `K[]`) or a value (`Map<_, K>`,
# read as `K{}`: `get()`, `forEach` and `values()` give a K) is.
_TS_SETS = ("Set", "ReadonlySet", "WeakSet", "Iterable", "IterableIterator")
_TS_MAPS = ("Map", "ReadonlyMap", "WeakMap", "Record")  # (`Record<_, K>`: `r[k]`, `Object.values(r)`)
_TS_ARRAYISH = frozenset(("Array", "ReadonlyArray", *_TS_SETS, *_TS_MAPS))


# Utility types whose members are their argument's own (tsc's symbol for `p.m` on a `Partial<K>` is K's `m`)
_SAME_MEMBERS = frozenset(("Partial", "Readonly", "Required"))


_CLOSING = {"<": ">", "(": ")", "[": "]", "{": "}"}


def split_top_level(text: str, sep: str, brackets: str = "<([{") -> list[str]:
    """`text` split at `sep` outside `brackets` (and their closers), each part stripped: `K, V<X, Y>` ->
    ['K', 'V<X, Y>']."""
    closers = "".join(_CLOSING[b] for b in brackets)
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in brackets:
            depth += 1
        elif ch in closers:
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def type_args(t: str) -> list[str] | None:
    """`Map<K, V<X>>` -> ['K', 'V<X>'] (top-level commas only); None when `t` has no type arguments."""
    if "<" not in t or not t.endswith(">"):
        return None
    return split_top_level(t.split("<", 1)[1][:-1], ",")


def ts_type(annotation: str) -> str | None:
    """`: Observable<T>` -> `Observable`; `: this` -> `Self`; `K | null` (`| undefined`, `| boolean`) -> `K`; `K[]`,
    `Array<K>` and `Set<K>` -> `K[]`, `Map<_, K>` -> `K{}` (the graph reads their element steps); None for other
    unions, literals, functions."""
    t = annotation.strip().lstrip(":").strip()
    if "|" in t:
        if _union_parts(t)[0].replace("=>", "\0").count("\0") > _nested_arrows(_union_parts(t)[0]):
            return None  # `() => A | B` is a function (its result the union), no union with a function in it
        parts = [p for p in _union_parts(t) if p not in _NOT_A_CLASS and not _is_function_type(p)]
        if len(parts) > 1:
            # `A | B`: a method called on it is each member's (the graph reads every member)
            members = [ts_type(p) for p in parts]
            if any(m is None or m == "Self" or "|" in m or "+" in m for m in members):
                return None
            return "|".join(dict.fromkeys(m for m in members if m))
        if not parts:
            return None
        t = parts[0]
    if "&" in t and len(meet := split_top_level(t, "&")) > 1:
        # `A & B` -> `A+B`: a member is the part's that declares it (the graph reads each part; unlike a union's
        # member, one part without it is no doubt); a part that is no class (`{ x?: K }`, `K[]`) leaves it unread
        read = [ts_type(p) for p in meet]
        if any(p is None or p == "Self" or "|" in p or "+" in p or p.endswith(("[]", "{}")) for p in read):
            return None
        return "+".join(dict.fromkeys(p for p in read if p))
    t = t.removeprefix("readonly ").strip()
    suffix = ""
    if t.startswith("{") and (value := _index_signature(t)) is not None:
        typ = ts_type(value)  # `{ [k: string]: K }`: a record of K, as `Record<string, K>`
        return typ + "{}" if typ and typ.replace(".", "_").isidentifier() else None
    same = type_args(t) if t.split("<", 1)[0].strip() in _SAME_MEMBERS else None
    if same is not None and len(same) == 1:
        return ts_type(same[0])  # `Partial<K>`: K's members (optional), each declared by K
    if t.endswith("[]"):
        t, suffix = t[:-2].strip(), "[]"
    else:
        generic = t.split("<", 1)[0].strip()
        args = type_args(t) if generic in _TS_ARRAYISH else None
        if args is not None:
            if len(args) != (2 if generic in _TS_MAPS else 1):
                return None
            t, suffix = args[-1], "{}" if generic in _TS_MAPS else "[]"
            if t.endswith("[]") or t.split("<", 1)[0].strip() in _TS_ARRAYISH:
                return None  # (a container of containers: no element steps for it)
    t = t.split("<", 1)[0].strip()
    if t == "this":
        return None if suffix else "Self"
    parts = t.split(".")
    if not (1 <= len(parts) <= 2 and all(p.replace("$", "_").isidentifier() for p in parts)):
        return None  # (JavaScript names may hold `$`: `core.$constructor`)
    return t + suffix


def _index_signature(t: str) -> str | None:
    """`{ [k: string]: K }` (the type literal's one member an index signature) -> 'K'; None otherwise."""
    inner = t[1:-1].strip().rstrip(";").strip() if t.endswith("}") else ""
    close = inner.find("]") if inner.startswith("[") else -1
    key = inner[1:close].partition(":") if close > 0 else ("", "", "")
    rest = inner[close + 1 :].lstrip() if close > 0 else ""
    if not key[0].strip().isidentifier() or key[2].strip() not in ("string", "number") or not rest.startswith(":"):
        return None
    value = rest[1:].strip()
    return value if value and len(split_top_level(value, ";")) == 1 and len(split_top_level(value, ",")) == 1 else None


def ts_call_context(call: Any, args: list[Any], expr_of: Any) -> dict[str, str]:
    """TypeScript: what a call states about its callee's type parameters, by source (the keys a callee's
    recipe names, receiver_types.py `_ts_recipe`): `t<p>` the explicit type argument p (`f<K>(...)`),
    `a<k>` argument k's type expression (`expr_of(chain, byte)`), `r` and `r:<R>:<q>` the type the call's
    value is declared with (`const x: R<K> = f(...)`, `return f(...)` in a function stated to give `R<K>`)
    and its type argument q. '?' where the source is there but says nothing this can follow."""
    out: dict[str, str] = {}
    written = call.child_by_field_name("type_arguments")
    if written is not None:
        for p, arg in enumerate(a for a in written.named_children if a.type != "comment"):
            out[f"t{p}"] = _plain(ts_type(_text(arg)))
    for k, arg in enumerate(args):
        chain = chain_of(arg) if arg.type not in ("arrow_function", "function_expression", "function") else None
        found = expr_of(chain, arg.start_byte) if chain is not None else None
        out[f"a{k}"] = found if found and "%" not in found else "?"
    stated = _declared(call)
    if stated is not None:
        out["r"] = _plain(ts_type(stated))
        base = stated.split("<", 1)[0].strip().rpartition(".")[2]
        for q, arg in enumerate(type_args(stated) or ()):
            out[f"r:{base}:{q}"] = _plain(ts_type(arg))
    return out


def _plain(typ: str | None) -> str:
    return typ if typ and typ != "Self" else "?"


def _declared(call: Any) -> str | None:
    """The type a call's value is declared with, as written: `const x: R<K> = call`, or the stated result of
    the function a `return call` is in."""
    node, parent = call, call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "variable_declarator" and parent.child_by_field_name("value") == node:
        typ = parent.child_by_field_name("type")
        return _text(typ).lstrip(":").strip() if typ is not None else None
    if parent.type == "return_statement":
        holder = parent.parent
        while holder is not None and holder.type not in _TS_FUNCTIONS:
            holder = holder.parent
        typ = holder.child_by_field_name("return_type") if holder is not None else None
        return _text(typ).lstrip(":").strip() if typ is not None else None
    return None


def _union_parts(t: str) -> list[str]:
    """The members of a union type as written (`|` at the top level only)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(t):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and t[i - 1 : i] == "="):
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(t[start:i].strip())
            start = i + 1
    parts.append(t[start:].strip())
    return [p for p in parts if p]


def _nested_arrows(t: str) -> int:
    """How many `=>` of `t` are inside brackets (`(() => void)`: one; `() => A`: none)."""
    depth, found = 0, 0
    for i, ch in enumerate(t):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and t[i - 1 : i] == "="):
            depth -= 1
        elif ch == "=" and t[i + 1 : i + 2] == ">" and depth > 0:
            found += 1
    return found


def _is_function_type(t: str) -> bool:
    """`(() => void)`, `(x: T) => U`: a function has no methods of a class (its own: call, apply, bind)."""
    return "=>" in t and t.startswith("(")


# Nodes that start a function: narrowing (below) does not reach into one (TypeScript resets it there for
# anything but constants).
_TS_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function",
        "generator_function_declaration",
        "class_body",
    }
)


def ts_narrowed(node: Any, name: str) -> str | None:
    """TypeScript: the class `name` is narrowed to where `node` is: `if (name instanceof K) { ... }`,
    `name instanceof K && ...`, `name instanceof K ? ... : ...` (in the consequence, within one function)."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in _TS_FUNCTIONS:
        cond = None
        if parent.type in ("if_statement", "ternary_expression") and child == parent.child_by_field_name("consequence"):
            cond = parent.child_by_field_name("condition")
        elif parent.type == "binary_expression" and child == parent.child_by_field_name("right"):
            op = parent.child_by_field_name("operator")
            if op is not None and op.type == "&&":
                cond = parent.child_by_field_name("left")
        found = _instance_of(cond, name) if cond is not None else None
        if found is not None:
            return found
        child, parent = parent, parent.parent
    return None


# (a node's `parent` costs tree-sitter a walk down from the root: each is asked once per file, in `memo`)
_NARROW_DEPTH = 64
_NARROWED_ARGS = frozenset({"identifier", "member_expression"})


def ts_maybe_narrowed(node: Any, name: str, memo: dict[int, Any]) -> bool:
    """TypeScript: whether `name` (a local, or the last member of `this.shape`) may be narrowed where `node`
    is, by anything that may pick some
    parts of a union (`s.kind === 'c'`, a guard `isCircle(s)`, `instanceof` and its else branch): a condition
    around `node` that names it (`if`, `? :`, `&&`, `||`, `switch`), or before it in an enclosing block an `if`
    that names it in its condition (an early return) or a call passing it (`assertIsK(s)`), within one
    function. Over-approximate on purpose: the graph only drops a union's parts that disagree there. `memo`
    (one per file) keeps each condition's and each block's names; the walk up stops after _NARROW_DEPTH nodes
    (saying "may be": nesting beyond that is hostile), so a file costs linear time."""
    child, parent = node, _parent(node, memo)
    depth = 0
    while parent is not None and parent.type not in _TS_FUNCTIONS:
        depth += 1
        if depth > _NARROW_DEPTH:
            return True
        cond = None
        if parent.type in ("if_statement", "ternary_expression", "switch_statement"):
            field = "value" if parent.type == "switch_statement" else "condition"
            cond = parent.child_by_field_name(field)
            if cond is not None and cond == child:
                cond = None
        elif parent.type == "binary_expression" and child == parent.child_by_field_name("right"):
            op = parent.child_by_field_name("operator")
            if op is not None and op.type in ("&&", "||", "??"):
                cond = parent.child_by_field_name("left")
        elif parent.type in ("statement_block", "program", "switch_body", "switch_case", "else_clause"):
            first = memo.get(parent.id)
            if first is None:
                first = memo[parent.id] = _narrowing_statements(parent, memo)
            at = first.get(name)
            if at is not None and at < child.start_byte:
                return True
        if cond is not None and name in _names_in(cond, memo):
            return True
        child, parent = parent, _parent(parent, memo)
    return False


def _parent(node: Any, memo: dict[int, Any]) -> Any:
    key = -1 - node.id  # (node ids are positive: their own keys hold names)
    if key not in memo:
        memo[key] = node.parent
    return memo[key]


def _names_in(node: Any, memo: dict[int, Any]) -> frozenset[str]:
    """The identifiers in `node`, not inside a function it holds (memoized by node)."""
    found = memo.get(node.id)
    if found is None:
        names: set[str] = set()
        todo = [node]
        while todo:
            cur = todo.pop()
            if cur.type in ("identifier", "property_identifier"):  # (`this.shape.kind`: `shape` too)
                names.add(_text(cur))
            elif cur.type not in _TS_FUNCTIONS:
                todo.extend(cur.named_children)
        found = memo[node.id] = frozenset(names)
    return found


def _narrowing_statements(block: Any, memo: dict[int, Any]) -> dict[str, int]:
    """For a block: each name an `if` condition names, or a call statement passes (`assertIsK(x)`), and where
    the first such statement ends."""
    first: dict[str, int] = {}
    for stmt in block.named_children:
        names: frozenset[str] = frozenset()
        if stmt.type == "if_statement":
            cond = stmt.child_by_field_name("condition")
            names = _names_in(cond, memo) if cond is not None else frozenset()
        elif stmt.type == "expression_statement" and stmt.named_child_count == 1:
            call = stmt.named_children[0]
            args = call.child_by_field_name("arguments") if call.type == "call_expression" else None
            if args is not None:
                passed = [a for a in args.named_children if a.type in _NARROWED_ARGS]
                names = frozenset(n for a in passed for n in _names_in(a, memo))
        for n in names:
            first.setdefault(n, stmt.end_byte)
    return first


def _instance_of(cond: Any, name: str) -> str | None:
    """K when condition `cond` holds only if `name instanceof K` (alone or in a chain of `&&`)."""
    while cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if cond.type != "binary_expression":
        return None
    op = cond.child_by_field_name("operator")
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op is None or left is None or right is None:
        return None
    if op.type == "instanceof":
        if left.type == "identifier" and _text(left) == name and right.type == "identifier":
            return _text(right)
        return None
    if op.type == "&&":
        return _instance_of(left, name) or _instance_of(right, name)
    return None


# Nodes that start a scope of their own: a checker's narrowing of a local does not reach into one.
_PY_SCOPES = frozenset({"function_definition", "lambda", "class_definition", "module"})
_PY_CLASS = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


_ISINSTANCE = b"isinstance"
_NARROW_WINDOW = 512
_ARG_SPLIT = re.compile(r"[\s(\\#]+")  # what may stand around the name: `(`, blanks, `\\` + newline, a comment


def py_narrowable(source: bytes) -> frozenset[str] | None:
    """The names `py_narrowed` can find narrowed anywhere in `source`: each `isinstance(name, K)` has `name`
    between `isinstance` and the next comma, among `(`, blanks, line continuations and comments. A cheap test that
    keeps most calls off the walk up the tree (a file without `isinstance` narrows nothing); None when a
    comma is too far to tell (every name is then walked)."""
    names: set[str] = set()
    at = source.find(_ISINSTANCE)
    while at >= 0:
        start = at + len(_ISINSTANCE)
        comma = source.find(b",", start, start + _NARROW_WINDOW)
        if comma < 0:
            return None
        names.update(_ARG_SPLIT.split(source[start:comma].decode("utf-8", "replace")))
        at = source.find(_ISINSTANCE, comma)
    return frozenset(names)


def py_narrowed(node: Any, name: str, memo: dict[tuple[int, str], Any]) -> str | None:
    """Python: the class the local `name` is narrowed to where `node` is, as a checker narrows it: in the body
    of `if isinstance(name, K):` (or an `elif`, or `isinstance(name, K) and ...` in the condition), in the
    value of `... if isinstance(name, K) else ...`, and after `assert isinstance(name, K)` or a guard `if not
    isinstance(name, K): raise ...` in the same block. None when `name` may be bound again in the narrowed
    region (a loop could bring the new value back to `node`; after an assert, between it and `node`):
    certain means certain. `memo` (one per file) keeps each block's asserts and each
    region's rebinding test, so a file's calls cost linear time, not a block's length each."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in _PY_SCOPES:
        cond = region = None
        if parent.type in ("if_statement", "elif_clause") and child == parent.child_by_field_name("consequence"):
            cond, region = parent.child_by_field_name("condition"), child
        elif parent.type == "boolean_operator" and child == parent.child_by_field_name("right"):
            op = parent.child_by_field_name("operator")
            if op is not None and op.type == "and":
                cond, region = parent.child_by_field_name("left"), child
        elif parent.type == "conditional_expression" and parent.named_child_count == 3:
            if child == parent.named_children[0]:
                cond, region = parent.named_children[1], child
        elif parent.type == "block":
            asserted = memo.get((parent.id, ""))
            if asserted is None:
                asserted = memo[(parent.id, "")] = _asserted(parent, memo)
            first = asserted.get(name)  # (where the first assert on `name` is, the class all of them state)
            if first is not None and first[0] < child.start_byte and first[1]:
                # no statement from the assert through the one holding `node` may bind `name` (a later one
                # cannot reach `node` without passing the assert again, even in a loop)
                starts, _ = _block_bindings(parent, name, memo)
                i = bisect.bisect_right(starts, child.start_byte)
                return None if i and starts[i - 1] >= first[0] else str(first[1])
        found = _isinstance_of(cond, name) if cond is not None else None
        if found is not None and region is not None:
            return None if _rebinds(region, name, memo) else found
        child, parent = parent, parent.parent
    return None


# Statements a reaching assignment may not pass through without a look at what they bind; loops bring a
# later binding back to the top of their body.
_PY_LOOPS = frozenset({"for_statement", "while_statement"})


def py_assigned(node: Any, name: str, memo: dict[tuple[int, str], Any]) -> Any:
    """Python: the value of the assignment `name = value` that reaches `node` on every path, as a checker
    types a local at each use by the assignment before it (`h = Headers(...)`, later `h = MutableHeaders(...)`):
    the last statement before `node` in its block, or in a block around it, that may bind `name`, when it is
    a plain assignment and nothing between (an earlier branch of the same `try`/`if`, a loop around `node`
    that binds `name`, the statement holding `node`) may bind it. None otherwise. Each block's bindings are
    indexed once per file (`memo`): a call costs a bisection per block around it, not a block's length."""
    if name in ("self", "cls"):
        return None  # (never assigned in practice: most receivers, kept off the walk)
    child, parent = node, node.parent
    stmt_seen = False
    # (the module's own statements are a block too: a module-level read sees the binding before it)
    while parent is not None and (parent.type not in _PY_SCOPES or parent.type == "module"):
        if parent.type in ("block", "module"):
            if not stmt_seen:
                stmt_seen = True
                own = _plain_assignment(child)  # `n = n.copy()`: the right side reads the earlier binding
                if own is None and (augmented := _augmented_assignment(child)) is not None:
                    own = augmented[0], augmented[1].child_by_field_name("right")  # `n += x`: likewise
                region = own[1] if own is not None and own[0] == name else child
                if _rebinds(region, name, memo):
                    return None  # `k.run(k := Other())`
            starts, found = _block_bindings(parent, name, memo)
            i = bisect.bisect_left(starts, child.start_byte) - 1
            if i >= 0:
                return found[i]
            if parent.type == "module":
                return None
        else:
            if parent.type in _PY_LOOPS and _rebinds(parent, name, memo):
                return None
            branch = parent.type == "if_statement" and child.type in ("elif_clause", "else_clause")
            for sibling in parent.children:  # what ran before `child` in the same statement
                if sibling.start_byte >= child.start_byte:
                    break
                ran = sibling
                if branch and sibling.type in ("block", "elif_clause"):  # another branch: only its test ran
                    ran = sibling.child_by_field_name("condition") if sibling.type == "elif_clause" else None
                if ran is not None and ran.is_named and _rebinds(ran, name, memo):
                    return None
        child, parent = parent, parent.parent
    return None


def py_narrowed_default(node: Any, name: str, memo: dict[tuple[int, str], Any]) -> str | None:
    """Python: K when the binding of `name` reaching `node` (a read in a function's own body, not in a nested
    block) is `if not isinstance(name, K): name = K(...)` with no other branch: both paths give a K, as a
    checker joins the narrowed name and the constructor (bottle's `AppStack.push(value=None)`). None
    otherwise."""
    child, block = node, node.parent
    while block is not None and block.type != "block":
        if block.type in _PY_SCOPES:
            return None
        child, block = block, block.parent
    if block is None or block.parent is None or block.parent.type != "function_definition":
        return None
    if _rebinds(child, name, memo):
        return None
    starts, _ = _block_bindings(block, name, memo)
    i = bisect.bisect_left(starts, child.start_byte) - 1
    stmt = _statements_at(block, memo).get(starts[i]) if i >= 0 else None
    if stmt is None or stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    cond, body = stmt.child_by_field_name("condition"), stmt.child_by_field_name("consequence")
    narrowed = _isinstance_narrowing(cond) if cond is not None else None
    if narrowed is None or narrowed[0] != 1 or narrowed[1] != name or body is None:
        return None
    _, values = _block_bindings(body, name, memo)
    if len(values) != 1 or values[0] is None or values[0].type != "call":
        return None  # (one plain `name = ...` in the branch, nothing else there binding it)
    fn = values[0].child_by_field_name("function")
    return narrowed[2] if fn is not None and _text(fn) == narrowed[2] else None


def _statements_at(block: Any, memo: dict[tuple[int, str], Any]) -> dict[int, Any]:
    """A block's statements by where they start, built once per block."""
    found: dict[int, Any] | None = memo.get((block.id, "#"))
    if found is None:
        found = memo[(block.id, "#")] = {stmt.start_byte: stmt for stmt in block.named_children}
    return found


# A block asked about this many names has every statement's names read once, for all names at once; below
# it each name is looked up alone, reading only the statements whose text holds it (most hold none).
_LAZY_NAMES = 8


def _block_bindings(block: Any, name: str, memo: dict[tuple[int, str], Any]) -> tuple[list[int], list[Any]]:
    """The statements of `block` that may bind `name`: their starts, and for each the value of a plain
    `name = value` (None for any other binding). Built once per block and name for the first few names asked
    (a statement without the name in its text binds no such name, unread), then for all names at once."""
    index: dict[str, tuple[list[int], list[Any]]] | None = memo.get((block.id, "@"))
    if index is None:
        asked: dict[str, tuple[list[int], list[Any]]] = memo.setdefault((block.id, "?"), {})
        found = asked.get(name)
        if found is not None:
            return found
        if len(asked) < _LAZY_NAMES:
            asked[name] = found = _name_bindings(block, name, memo)
            return found
        index = {}
        for stmt in block.named_children:
            value = _plain_assignment(stmt) or _augmented_assignment(stmt)
            for bound in _statement_names(stmt, memo):
                starts, values = index.setdefault(bound, ([], []))
                starts.append(stmt.start_byte)
                values.append(value[1] if value is not None and value[0] == bound else None)
        memo[(block.id, "@")] = index
    return index.get(name, ([], []))


def _name_bindings(block: Any, name: str, memo: dict[tuple[int, str], Any]) -> tuple[list[int], list[Any]]:
    """`_block_bindings` for one name. (The tree's text is UTF-8, so a name is in a statement's text exactly
    when its encoding is in the statement's bytes.)"""
    encoded = name.encode("utf-8")
    starts: list[int] = []
    values: list[Any] = []
    for stmt in block.named_children:
        if encoded in stmt.text and name in _statement_names(stmt, memo):
            value = _plain_assignment(stmt) or _augmented_assignment(stmt)
            starts.append(stmt.start_byte)
            values.append(value[1] if value is not None and value[0] == name else None)
    return starts, values


def _statement_names(stmt: Any, memo: dict[tuple[int, str], Any]) -> frozenset[str]:
    key = (stmt.id, "=")
    bound = memo.get(key)
    if bound is None:
        bound = memo[key] = bound_names(_text(stmt))
    return bound


def _plain_assignment(stmt: Any) -> tuple[str, Any] | None:
    """(name, value) of a statement `name = value` (no annotation, no chained or augmented assignment)."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    assign = stmt.named_children[0]
    if assign.type != "assignment" or assign.child_by_field_name("type") is not None:
        return None
    left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier" or right.type == "assignment":
        return None
    return _text(left), right


def _augmented_assignment(stmt: Any) -> tuple[str, Any] | None:
    """(name, the statement's `augmented_assignment` node) of a statement `name += value` (any operator): the
    reaching binding whose type is the in-place dunder's result (extract.py `_py_flow`)."""
    if stmt.type != "expression_statement" or stmt.named_child_count != 1:
        return None
    assign = stmt.named_children[0]
    left = assign.child_by_field_name("left") if assign.type == "augmented_assignment" else None
    if left is None or left.type != "identifier" or assign.child_by_field_name("right") is None:
        return None
    return _text(left), assign


def _asserted(block: Any, memo: dict[tuple[int, str], Any]) -> dict[str, tuple[int, str | None]]:
    """`assert isinstance(x, K)` statements of a block, and guards `if not isinstance(x, K): raise ...` (below),
    read once: x -> (where the first is, K), K None when two state different classes."""
    out: dict[str, tuple[int, str | None]] = {}
    for stmt in block.named_children:
        if stmt.type == "if_statement":
            test = _guard_test(stmt, memo)
            if test is None:
                continue
        elif stmt.type != "assert_statement" or not stmt.named_child_count:
            continue
        else:
            test = stmt.named_children[0]
        args = test.child_by_field_name("arguments") if test.type == "call" else None
        listed = args.named_children if args is not None and args.type == "argument_list" else []
        if not listed or listed[0].type != "identifier":
            continue
        name = _text(listed[0])
        cls = _isinstance_of(test, name)
        if cls is None:
            continue
        old = out.get(name)
        out[name] = (stmt.start_byte, cls) if old is None else (old[0], cls if old[1] == cls else None)
    return out


_EXITS = frozenset({"raise_statement", "return_statement", "continue_statement", "break_statement"})
_NO_RETURN = frozenset({"NoReturn", "Never", "typing.NoReturn", "typing.Never", "t.NoReturn", "te.Never"})


def _guard_test(stmt: Any, memo: dict[tuple[int, str], Any]) -> Any:
    """The `isinstance(x, K)` call of a guard `if not isinstance(x, K): ...` (no `elif` or `else`) whose body
    ends in `raise`, `return`, `continue`, `break` or a call of a function this file states `-> NoReturn`
    (pyfakefs' `self.raise_os_error(...)`): what follows runs only with `x` a K, as a checker narrows it after
    the branch that never falls through. None for any other statement."""
    cond, body = stmt.child_by_field_name("condition"), stmt.child_by_field_name("consequence")
    if cond is None or body is None or stmt.child_by_field_name("alternative") is not None:
        return None
    while cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if cond.type != "not_operator" or (test := cond.child_by_field_name("argument")) is None:
        return None
    while test.type == "parenthesized_expression" and test.named_child_count == 1:
        test = test.named_children[0]
    last = body.named_children[-1] if body.named_child_count else None
    if last is None or not (last.type in _EXITS or _never_returns(last, memo)):
        return None
    return test


def _never_returns(stmt: Any, memo: dict[tuple[int, str], Any]) -> bool:
    """A statement that is a call of a function or method (`fail(...)`, `self.fail(...)`) whose every definition
    in this file states `-> NoReturn` / `-> Never`."""
    call = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_child_count == 1 else None
    fn = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if fn is None or fn.type not in ("identifier", "attribute"):
        return False
    name = _text(fn).rpartition(".")[2]
    return name in _no_return_names(stmt, memo)


def _no_return_names(node: Any, memo: dict[tuple[int, str], Any]) -> frozenset[str]:
    """The names every `def` of the file (`node`'s tree) states `-> NoReturn`/`-> Never`; one query per file."""
    found: frozenset[str] | None = memo.get((-1, "noreturn"))
    if found is not None:
        return found
    import tree_sitter

    root = node
    while root.parent is not None:  # (at most the nesting depth, once per file)
        root = root.parent
    never: set[str] = set()
    other: set[str] = set()
    for _, caps in tree_sitter.QueryCursor(_defs_query()).matches(root):
        ret = caps.get("ret")
        stated = ret is not None and _text(ret[0]).strip("'\" ") in _NO_RETURN
        (never if stated else other).add(_text(caps["name"][0]))
    found = memo[(-1, "noreturn")] = frozenset(never - other)
    return found


@functools.cache
def _defs_query() -> Any:
    import tree_sitter

    from .languages import ts_language

    return tree_sitter.Query(
        ts_language("python"), "(function_definition name: (identifier) @name return_type: (_)? @ret)"
    )


def _isinstance_of(cond: Any, name: str) -> str | None:
    """K when `cond` holds only if `isinstance(name, K)` (alone or in a chain of `and`)."""
    while cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if cond.type == "boolean_operator":
        op = cond.child_by_field_name("operator")
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if op is None or op.type != "and" or left is None or right is None:
            return None
        return _isinstance_of(left, name) or _isinstance_of(right, name)
    if cond.type != "call":
        return None
    fn, args = cond.child_by_field_name("function"), cond.child_by_field_name("arguments")
    if fn is None or args is None or _text(fn) != "isinstance" or args.type != "argument_list":
        return None
    listed = args.named_children
    if len(listed) != 2 or listed[0].type != "identifier" or _text(listed[0]) != name:
        return None
    if listed[1].type not in ("identifier", "attribute"):
        return None  # a tuple of classes: a union, no one class
    cls = _text(listed[1])
    return cls if _PY_CLASS.fullmatch(cls) else None


def _rebinds(region: Any, name: str, memo: dict[tuple[int, str], Any]) -> bool:
    """True when `name` may be bound in `region` (an assignment, augmented or not, `for`, `with ... as`, `:=`,
    `del`, an import, a nested definition), erring on the side of yes. The names a region may bind are read
    once per region: a block's many names each looked up, not each a search of the block."""
    key = (region.id, "=")
    bound = memo.get(key)
    if bound is None:
        data: bytes = region.text
        # (no word of a text that does not hold it: the region left unread for the first few names asked;
        # past them its words are read once, so a region asked about many names costs its length once)
        skipped = memo.get((region.id, "?="), 0)
        if skipped < _LAZY_NAMES and name.encode("utf-8") not in data:
            memo[(region.id, "?=")] = skipped + 1
            return False
        bound = memo[key] = bound_names(data.decode("utf-8", "replace"))
    return name in bound


_ASSIGN = re.compile(r"(?<![=!<>])(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)")
_BINDERS = re.compile(r"\bfor\b(.*?)\bin\b|\b(?:as|del|import|def|class|global|nonlocal)\b(.*)")
_WORDS = re.compile(r"[A-Za-z_]\w*")


def bound_names(text: str) -> frozenset[str]:
    """Every word left of an `=` (or `:=`) on a line, between `for` and `in`, and after `as`, `del`, `import`,
    `def`, `class`, `global`, `nonlocal`: a superset of the names the text binds, in one pass. Left of an
    `=`, a word right after a `.` (an attribute) or right before a `.` or `[` (`item.trivia.indent = x`,
    `item[0] = x` store into the object `item` names) binds nothing."""
    names: set[str] = set()
    for whole in text.splitlines():
        line = _code_part(whole) if "#" in whole else whole
        for part in line.split(";") if "=" in line else ():  # (`y = 1; x = 2`: each statement's `=`)
            m = _ASSIGN.search(part)
            if m is not None:
                end = m.start()
                for w in _WORDS.finditer(part, 0, end):
                    a, b = w.span()
                    if (a and part[a - 1] == ".") or (b < end and part[b] in ".["):
                        continue
                    names.add(w.group())
        for m in _BINDERS.finditer(line):
            names.update(_WORDS.findall(m.group(1) or m.group(2) or ""))
    return frozenset(names)


def _code_part(line: str) -> str:
    """`line` without its comment: up to the first `#` outside a string (an even count of each quote before
    it; a `#` inside a string leaves the line whole, erring on the side of binding)."""
    double = single = 0
    for at, ch in enumerate(line):  # (one pass: a line of many `#` in a string stays linear)
        if ch == '"':
            double += 1
        elif ch == "'":
            single += 1
        elif ch == "#" and double % 2 == 0 and single % 2 == 0:
            return line[:at]
    return line


def is_class_name(name: str) -> bool:
    """By convention (PEP 8) a class: the last dotted part starts with a capital (after the underscores of a
    private class, `_Link`)."""
    return name.rpartition(".")[2].lstrip("_")[:1].isupper()


def is_fixture_file(path: str) -> bool:
    """pytest collects fixtures of test modules and of conftest.py files."""
    name = path.rpartition("/")[2]
    return name in FIXTURE_FILES or (name.startswith("test_") and name.endswith(".py")) or name.endswith("_test.py")


def fixture_params(params: Any, parametrized: frozenset[str] = frozenset()) -> list[str]:
    """Plain parameters (no annotation, no default): pytest fills them with fixtures of the same name, except
    the ones `@pytest.mark.parametrize` fills (`parametrized`)."""
    out: list[str] = []
    for child in params.named_children:
        if child.type == "identifier":
            name = _text(child)
            if name not in ("self", "cls", "request") and name not in parametrized:
                out.append(name)
    return out


def _decorators(node: Any) -> list[Any]:
    """The decorators' expressions of a function or class definition (none when it has none)."""
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [d.named_children[0] for d in parent.named_children if d.type == "decorator" and d.named_child_count]


def py_self_name(node: Any, params: Any) -> str | None:
    """Python: the name a method's first parameter gives the instance when it is not `self` or `cls` (mako's
    nested `def visitDefTag(s, node)`), as a checker binds the first parameter whatever its name; None for a
    `@staticmethod`, an annotated first parameter (its stated type is read as any parameter's) or none."""
    first = params.named_children[0] if params.named_child_count else None
    if first is None or first.type != "identifier" or _text(first) in ("self", "cls"):
        return None
    if any(d.type == "identifier" and _text(d) == "staticmethod" for d in _decorators(node)):
        return None
    return _text(first)


_MAX_WALK_UP = 512  # (depth.py cuts a file past 48 indentation levels or 128 brackets: a walk ends well before)


def py_as_self(returned: Any, self_name: str) -> Chain | None:
    """Python: a method's returned value read through its first parameter under another name as `self`'s
    (`def clone(s): return s.__class__(...)`, `return s`: a checker's `Self`, as `return self` is); None when
    the value is no chain rooted at that name, or the method is a `@classmethod` (its first parameter is the
    class object)."""
    found = chain_of(returned)
    if found is None or found[0] or found[1] != self_name:
        return None
    fn = returned.parent
    for _ in range(_MAX_WALK_UP):  # (the `def` the `return` sits in: depth.py bounds the nesting)
        if fn is None or fn.type == "function_definition":
            break
        fn = fn.parent
    if fn is None or fn.type != "function_definition":
        return None
    if any(d.type == "identifier" and _text(d) == "classmethod" for d in _decorators(fn)):
        return None
    steps = found[2][1:] if found[2][:1] == ("__class__()",) else found[2]  # (`s.__class__(...)`: a new Self)
    return False, "self", steps


_CONTEXT_MANAGERS = frozenset(
    {"contextmanager", "contextlib.contextmanager", "asynccontextmanager", "contextlib.asynccontextmanager"}
)


def is_context_manager(node: Any) -> bool:
    """Python: whether a function's outermost decorator is `@contextmanager` (or the async one), so calling
    it makes a context manager whose `with ... as v` binds what the generator yields."""
    found = _decorators(node)
    return bool(found) and found[0].type in ("identifier", "attribute") and _text(found[0]) in _CONTEXT_MANAGERS


def decorator_chain(node: Any) -> Chain | None:
    """Python: what a function's name is bound to when its outermost decorator is a plain name `d` (`@generate
    def xy(): ...` binds `xy = generate(xy)`): the call `d(...)`'s chain, whose result the graph reads from
    d's stated or returned type (a class `@Parser` makes a Parser). None without decorators, or when the
    outermost one is called or dotted (`@pytest.fixture(...)`, `@functools.cache`: nothing the file states)."""
    found = _decorators(node)
    if not found or found[0].type != "identifier":
        return None
    return True, _text(found[0]), ()


def _called_name(expr: Any) -> str:
    """`pytest.fixture` of `@pytest.fixture(...)` / `@pytest.fixture`: the decorator's (dotted) name."""
    if expr.type == "call":
        expr = expr.child_by_field_name("function")
    return _text(expr).strip() if expr is not None and expr.type in ("identifier", "attribute") else ""


def _keyword(call: Any, key: str) -> Any:
    """The value of keyword argument `key` of a call (None when the call does not pass it)."""
    args = call.child_by_field_name("arguments") if call.type == "call" else None
    for arg in args.named_children if args is not None else ():
        if arg.type == "keyword_argument":
            name = arg.child_by_field_name("name")
            if name is not None and _text(name) == key:
                return arg.child_by_field_name("value")
    return None


_STRING = re.compile(r"""^[rRuU]?('''|\"\"\"|'|")(.*)\1$""", re.DOTALL)


def _string_value(node: Any) -> str | None:
    """The value of a plain string literal (no f-string, no concatenation); None for anything else."""
    if node is None or node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    found = _STRING.match(_text(node))
    return found.group(2) if found else None


def _strings(node: Any) -> list[str] | None:
    """`"a, b"` -> [a, b]; `("a", "b")` / `["a", "b"]` -> [a, b]; None when the names are not all literal."""
    one = _string_value(node)
    if one is not None:
        return [n.strip() for n in one.split(",") if n.strip()]
    if node is None or node.type not in ("tuple", "list"):
        return None
    out: list[str] = []
    for item in node.named_children:
        value = _string_value(item)
        if value is None:
            return None
        out.append(value.strip())
    return out


def fixture_name(node: Any) -> str | None:
    """The name pytest registers a fixture function under (`@pytest.fixture(name="client")` renames it);
    None when `node` is no fixture."""
    for expr in _decorators(node):
        if _called_name(expr).rpartition(".")[2] == "fixture":
            alias = _string_value(_keyword(expr, "name"))
            if alias is not None and alias.isidentifier():
                return alias
            name = node.child_by_field_name("name")
            return _text(name) if name is not None else None
    return None


def parametrized_names(node: Any) -> frozenset[str]:
    """The parameters `@pytest.mark.parametrize` fills for a test function: its own decorators' and those of
    the classes around it. pytest passes such a parameter the listed values, not the fixture of that name,
    unless the parametrization is `indirect` (then the fixture gets the value and the test the fixture's)."""
    names: set[str] = set()
    scope: Any = node
    for _ in range(64):  # (a few hops per class around the test)
        if scope is None or (scope.type == "function_definition" and scope is not node):
            break  # (a function inside a function: pytest collects neither)
        if scope.type in ("function_definition", "class_definition"):
            for expr in _decorators(scope):
                if expr.type == "call" and _called_name(expr).rpartition(".")[2] == "parametrize":
                    names.update(_parametrized(expr))
        scope = scope.parent
    return frozenset(names)


def _parametrized(call: Any) -> list[str]:
    args = call.child_by_field_name("arguments")
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")] if args else []
    listed = _strings(_keyword(call, "argnames") or (positional[0] if positional else None)) or []
    indirect = _keyword(call, "indirect")
    if indirect is None or indirect.type == "false":
        return listed
    if indirect.type == "true":
        return []
    through_fixture = _strings(indirect)
    return [] if through_fixture is None else [n for n in listed if n not in through_fixture]


def _text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")
