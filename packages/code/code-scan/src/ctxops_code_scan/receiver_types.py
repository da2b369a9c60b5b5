"""Python receiver types from annotations and constructor calls: the class `x` is in `x.method()`.

No inference: only what a file states. A parameter annotated with a class (`machine: OrderStateMachine`,
also `Optional[X]`, `X | None`, `"X"`), a local assigned once from a call (`m = OrderStateMachine()`),
an attribute assigned in `__init__` from a call or an annotated parameter (`self.machine = machine`),
and a class-level annotated field (`machine: OrderStateMachine`). A constructor is a call of a capitalised
name (PEP 8 class names); annotations are taken as written. The name is kept as written; the code
graph resolves it through the file's classes and imports, and keeps only names that turn out to be classes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .generic_identity import IDENTITY_ROW, identity_position, is_typevar, passed_names
from .object_shapes import group_rows, literal_members, repeated_members, result_members
from .operators import DUNDER_STEPS
from .overloads import ACCEPTED_BY, BUILTINS, pick
from .symbol_ids import first_definition
from .ts_patterns import pattern_names, stated_base
from .type_exprs import (
    MAX_DEPTH,
    SELF_NAMES,
    Chain,
    bound_names,
    chain_of,
    go_results,
    go_type,
    is_class_name,
    join,
    split_top_level,
    step_name,
    ts_type,
    type_args,
)

_MAX_DEF_DEPTH = 400  # parents from a `return` up to its def (depth.py bounds the nesting below this)
_MAX_CLOSURES = 32  # functions around a closure whose names it may read (depth.py bounds the nesting too)
_NO_VALUE = frozenset({"none", "null", "undefined"})  # `x = None` / `let x = null`: the real value comes later

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
_DOTTED_ANY = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,3}")
_CONFLICT = ""  # a name bound to two different types: no type
_ARMS: Chain = (False, "?:", ())  # TypeScript: a local holding a conditional (`arms_type`); no type of its own
_MAX_BINDINGS = 8  # different values of one attribute the other methods bind before it has no type
# One binding of an attribute: ("t", type, None), ("c", class, None) a class object, ("x", method id, chain)
_Binding = tuple[str, str, "Chain | None"]
_ENUM_BASES = ("Enum", "Flag")  # (`class Color(Enum): RED = Spec(...)`: `Color.RED` is a Color)
# `Wrapper[X]` is an X as a checker reads it (`Annotated[X, ...]`: its first argument)
_WRAPPERS = frozenset({"Optional", "Final", "ClassVar", "Annotated", "Required", "NotRequired", "ReadOnly"})
# Generic types of the standard library whose instances are not their argument (containers, callables,
# `Type[X]` the class itself): no class of the repository.
_NOT_INSTANCE = frozenset(
    [
        "List",
        "Dict",
        "Set",
        "FrozenSet",
        "Tuple",
        "Sequence",
        "MutableSequence",
        "Mapping",
        "MutableMapping",
        "Iterable",
        "Iterator",
        "Generator",
        "AsyncGenerator",
        "AsyncIterator",
        "AsyncIterable",
        "Callable",
        "Type",
        "Literal",
        "Awaitable",
        "Coroutine",
        "Collection",
        "Container",
        "Deque",
        "DefaultDict",
        "OrderedDict",
        "Counter",
        "ChainMap",
        "AbstractSet",
        "MutableSet",
        "KeysView",
        "ValuesView",
        "ItemsView",
        "MappingView",
        "Generic",
        "Protocol",
        "TypeGuard",
        "TypeIs",
        "Concatenate",
        "Unpack",
        "Reversible",
        "ContextManager",
        "AsyncContextManager",
        "AbstractContextManager",
        "AbstractAsyncContextManager",
        "Pattern",
        "Match",
        "IO",
        "TextIO",
        "BinaryIO",
        "Union",
    ]
)


def _top_level(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside Python's brackets (a `<` in an annotation is no bracket)."""
    return split_top_level(text, sep, "[(")


def plain_type(text: str) -> str | None:
    """`X` from `X`, `"X"`, `Optional[X]`, `X | None`, `Union[X, None]`, `Final[X]`, `ClassVar[X]`,
    `Annotated[X, ...]`, `mod.X`, and a generic class's instance `X[int]` (`Result[object]`); None for anything
    else (unions of classes, containers and other generics of the standard library: `list[X]`, `Type[X]`)."""
    t = text
    for _ in range(4):
        t = t.strip().strip("'\"").strip()
        if "|" in t:
            parts = [p.strip("'\" ") for p in _top_level(t, "|")]
            parts = [p for p in parts if p != "None"]
            if len(parts) != 1:
                return None
            t = parts[0]
            continue
        if "[" not in t or not t.endswith("]"):
            break
        head, _, inner = t[:-1].partition("[")
        head = head.strip()
        base = head.rpartition(".")[2]
        if base in _WRAPPERS:
            t = _top_level(inner, ",")[0] if base == "Annotated" else inner
        elif base == "Union":
            parts = [p.strip("'\" ") for p in _top_level(inner, ",")]
            parts = [p for p in parts if p != "None"]
            if len(parts) != 1:
                return None
            t = parts[0]
        elif base[:1].isupper() and base not in _NOT_INSTANCE:
            t = head  # an instance of a generic class of the repository (the graph checks it is one)
            break
        else:
            return None
    return t if _DOTTED.fullmatch(t) and t != "None" else None


# Containers whose element (`for x in xs`, `xs[i]`, `xs.pop()`) is their (first) type argument: `K[]`;
# mappings whose value (`d[k]`, `d.get(k)`, `d.values()`) is their second: `K{}` (type_eval.py's steps).
_SEQUENCES = frozenset(
    [
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Iterator",
        "Collection",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "AbstractSet",
        "MutableSet",
        "deque",
        "Deque",
        "Generator",
        "AsyncIterator",
        "AsyncIterable",
        "AsyncGenerator",
        "Reversible",
    ]
)
_MAPPINGS = frozenset(["dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"])


_SCRIPT_VALUES = frozenset({"void", "boolean", "string", "number", "bigint", "any", "unknown", "never", "object"})
_PROMISES = frozenset({"Promise", "PromiseLike"})  # (TypeScript results whose await is their type argument)
AWAITED = "await"  # the types row of what awaiting a function's result gives (type_eval.py's `m()await` step)
_AWAITABLES = frozenset({"Awaitable", "Coroutine", "Future", "Task"})


def promised(text: str) -> str | None:
    """TypeScript `: Promise<K>` (or `PromiseLike<K>`) -> `K`; None for any other result."""
    t = text.strip().lstrip(":").strip()
    args = type_args(t) if t.split("<", 1)[0].strip() in _PROMISES else None
    return args[0] if args is not None and len(args) == 1 else None


def awaited_type(text: str) -> str | None:
    """What `await` of a value stated `text` gives, as a checker reads `__await__`: X of `Awaitable[X]`,
    `Future[X]`, `Task[X]`, `Coroutine[_, _, X]`, or of a one-argument generic of the repository
    (`AwaitableOrContextManager[X]`; awaited by the code, so an awaitable); None for anything else."""
    t = text.strip().strip("'\"").strip()
    if "[" not in t or not t.endswith("]") or "|" in t:
        return None
    head, _, inner = t[:-1].partition("[")
    base = head.strip().rpartition(".")[2]
    args = _top_level(inner, ",")
    if base == "Coroutine" and len(args) == 3:
        return plain_type(args[2])
    if len(args) != 1 or base in _WRAPPERS or base == "Union":
        return None
    if base in _AWAITABLES or (base[:1].isupper() and base not in _NOT_INSTANCE):
        return plain_type(args[0])
    return None


def tuple_items(text: str) -> list[str | None] | None:
    """Python `tuple[A, B]` / `Tuple[A, B]` (a fixed length, no `...`): each item's type (`annotation_type`;
    None where it reads none, `Self` included); None for anything else."""
    t = text.strip().strip("'\"").strip()
    head, _, inner = t[:-1].partition("[") if t.endswith("]") else (t, "", "")
    if head.strip().rpartition(".")[2] not in ("tuple", "Tuple") or not inner.strip():
        return None
    args = [a.strip() for a in _top_level(inner, ",")]
    if "..." in args or any(not a for a in args):
        return None
    return [typ if (typ := annotation_type(a)) != "Self" else None for a in args]


def container_type(text: str) -> str | None:
    """`K[]` from `list[K]`, `Sequence[K]`, `tuple[K, ...]`, `Iterator[K]` (also `| None`, `Optional[...]`);
    `K{}` from `dict[str, K]`, `Mapping[str, K]`; None for anything else."""
    t = text.strip().strip("'\"").strip()
    if "|" in t:
        parts = [p for p in _top_level(t, "|") if p.strip("'\" ") != "None"]
        if len(parts) != 1:
            return None
        t = parts[0].strip("'\" ")
    head, _, inner = t[:-1].partition("[") if t.endswith("]") else (t, "", "")
    base = head.strip().rpartition(".")[2]
    if base == "Optional":
        return container_type(inner)
    args = _top_level(inner, ",") if inner else []
    if (base in _SEQUENCES and args) or (base in ("tuple", "Tuple") and len(args) == 2 and args[1] == "..."):
        elem = plain_type(args[0])
    elif base in _MAPPINGS and len(args) == 2:
        value = plain_type(args[1])
        return value + "{}" if value and value[:1].isupper() else None
    else:
        return None
    return elem + "[]" if elem and elem.rpartition(".")[2][:1].isupper() else None


def class_object_type(text: str) -> str | None:
    """`X` from `type[X]`, `Type[X]`, `"type[X]"`, `type[X] | None`: a class object, whose call makes an X
    (`Cache: type[Cache]`; `self.Cache()` is a Cache). None for a union of classes and anything else."""
    t = text.strip().strip("'\"").strip()
    if "|" in t:
        parts = [p.strip("'\" ") for p in _top_level(t, "|") if p.strip("'\" ") != "None"]
        if len(parts) != 1:
            return None
        t = parts[0]
    head, _, inner = t[:-1].partition("[") if t.endswith("]") else (t, "", "")
    if head.strip().rpartition(".")[2] not in ("type", "Type") or not inner:
        return None
    return plain_type(inner)


# What a generator states it yields first: `Iterator[K]`, `Generator[K, None, None]` (a generator fixture's value)
_GENERATORS = frozenset(["Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator"])


def fixture_value_type(text: str) -> str | None:
    """The value a pytest fixture stating `-> text` gives a test: what it yields when it states a generator
    (`-> Iterator[Client]`: a Client), else the stated class (`-> Client`)."""
    t = text.strip().strip("'\"").strip()
    head, _, inner = t[:-1].partition("[") if t.endswith("]") else (t, "", "")
    if head.strip().rpartition(".")[2] in _GENERATORS:
        args = _top_level(inner, ",") if inner else []
        return plain_type(args[0]) if args else None
    return annotation_type(t)


def annotation_type(text: str) -> str | None:
    """What an annotation states a value is: a class (`plain_type`), else a container of one."""
    return plain_type(text) or container_type(text)


def constructor_type(value: Any) -> str | None:
    """`X` when `value` is a call of a (dotted) capitalised name `X(...)`, by convention a class (the graph
    checks that it is one); `x = make_x()` is left out, which keeps most locals off the books."""
    if value is None or value.type != "call":
        return None
    fn = value.child_by_field_name("function")
    if fn is not None and fn.type == "subscript":  # `Ruler[RuleFunc]()`: a generic class made for one type
        fn = fn.child_by_field_name("value")
    if fn is None or fn.type not in ("identifier", "attribute"):
        return None
    raw: bytes = fn.text
    if not raw.rpartition(b".")[2].lstrip(b"_")[:1].isupper() or raw.startswith((b"self.", b"cls.")):
        return None  # (`self.Cache()` calls an attribute: its row `Cache()` tells what it makes)
    text = raw.decode("utf-8", "replace")
    return text if _DOTTED.fullmatch(text) else None


def value_type(value: Any) -> str | None:
    """What a call gives: `=X` for `X(...)`, the graph's reading of the name (a class's instance, or a
    function's result: a capitalised factory, `d = PaddedString(...)`, is no class); None for anything else."""
    typ = constructor_type(value)
    if typ is not None:
        return "=" + typ
    if value is None or value.type != "call":
        return None
    fn = value.child_by_field_name("function")
    if fn is None or fn.type != "identifier":
        return None
    raw: bytes = fn.text
    return "=" + raw.decode("utf-8", "replace")


def annotated_params(params: Any) -> dict[str, str]:
    """Parameter name -> plain annotated type, for the parameters annotated with a class."""
    out: dict[str, str] = {}
    for child in params.named_children:
        if child.type not in ("typed_parameter", "typed_default_parameter"):
            continue
        name = child.child_by_field_name("name") or (child.named_children[0] if child.named_child_count else None)
        typ = child.child_by_field_name("type")
        if name is None or typ is None or name.type != "identifier":
            continue
        plain = annotation_type(typ.text.decode("utf-8", "replace"))
        if plain is not None:
            out[name.text.decode("utf-8", "replace")] = plain
    return out


def default_typed_params(params: Any) -> dict[str, str]:
    """Parameter name -> K, for the unannotated parameters whose default is a call of a (dotted) capitalised
    name (`prioritizer=ForestSumVisitor()`): a checker reads such a parameter as the default's type. `None`, a
    literal or any other default gives nothing."""
    out: dict[str, str] = {}
    for child in params.named_children:
        if child.type != "default_parameter":
            continue
        name = child.child_by_field_name("name")
        made = constructor_type(child.child_by_field_name("value"))
        if name is not None and name.type == "identifier" and made is not None:
            out[name.text.decode("utf-8", "replace")] = made
    return out


def name_default_params(params: Any) -> dict[str, str]:
    """Parameter name -> N, for the unannotated parameters whose default is a bare name (`_c=converter`,
    `converter=converter`): the default is read where the def is, so a nested function's parameter is what N is
    in the function around it."""
    out: dict[str, str] = {}
    for child in params.named_children:
        if child.type != "default_parameter":
            continue
        name = child.child_by_field_name("name")
        value = child.child_by_field_name("value")
        if name is not None and name.type == "identifier" and value is not None and value.type == "identifier":
            out[name.text.decode("utf-8", "replace")] = value.text.decode("utf-8", "replace")
    return out


def class_object_params(params: Any) -> dict[str, str]:
    """Parameter name -> K, for the parameters annotated with a class object (`cls: type[K] = K`)."""
    out: dict[str, str] = {}
    for child in params.named_children:
        if child.type not in ("typed_parameter", "typed_default_parameter"):
            continue
        name = child.child_by_field_name("name") or (child.named_children[0] if child.named_child_count else None)
        typ = child.child_by_field_name("type")
        if name is None or typ is None or name.type != "identifier":
            continue
        made = class_object_type(typ.text.decode("utf-8", "replace"))
        if made is not None:
            out[name.text.decode("utf-8", "replace")] = made
    return out


def _bind(table: dict[str, str], name: str, typ: str) -> None:
    old = table.get(name)
    table[name] = typ if old is None or old == typ else _CONFLICT


def _bind_chain(table: dict[str, Chain | None], name: str, chain: Chain | None) -> None:
    """A name bound twice to different values (or once to something unknown) has no chain. (Two calls of one
    function with different arguments, `x = make(a)` and `x = make(b)`, are one value: the call without the
    argument, `=make`; where make's overloads differ, that gives nothing, as it should.)"""
    old = table.get(name, chain)
    if old is not None and chain is not None and old != chain and _unargued(old) == _unargued(chain):
        table[name] = _unargued(chain)
        return
    if old is not None and chain is not None and old != chain and _entry_values(old) & _entry_values(chain):
        # `for (const [i, c] of xs.entries())` beside `const c = xs[j]`: one element (the entries' form is
        # right for an array and a Map; `m.get(k)` beside `for (const [k, v] of m)`: a value, `get()` kept)
        table[name] = max(old, chain, key=lambda c: (c[2][-2:] == ("entries()", "of[1]"), c[2][-1:] == ("get()",)))
        return
    table[name] = chain if name not in table or table[name] == chain else None


def _entry_values(chain: Chain) -> set[tuple[str, ...]]:
    """What an element or value step at the end of `chain` may equal: `xs.entries()`' second item is `xs[]`
    (an array) or `xs.get()` (a Map); `m` iterated (`of[1]`) is `m.get()`."""
    steps = chain[2]
    head = (str(chain[0]), chain[1])
    if steps[-2:] == ("entries()", "of[1]"):
        return {(*head, *steps[:-2], "[]"), (*head, *steps[:-2], "get()")}
    if steps[-1:] == ("of[1]",):
        return {(*head, *steps[:-1], "get()")}
    if steps[-1:] in (("[]",), ("get()",)):
        return {(*head, *steps)}
    return set()


_PLAIN_MADE = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*[A-Za-z_]\w*\s*\(")


def assign_lines(text: str) -> dict[str, tuple[int, int]]:
    """Python: for each name a function's text may bind (`bound_names`, a superset), the lines binding it as
    `name = Call(...)` and the lines binding it any other way (a walrus, `for`, `as`, `global`, a def, an
    unpacking, a keyword argument: erring on the side of other), in one pass over the text."""
    out: dict[str, tuple[int, int]] = {}
    for line in text.splitlines()[1:]:  # (the `def` line: the function's own name and its parameters)
        names = bound_names(line)
        if not names:
            continue
        m = _PLAIN_MADE.match(line) if ";" not in line else None
        for name in names:
            plain, other = out.get(name, (0, 0))
            out[name] = (plain + 1, other) if m is not None and m.group(1) == name else (plain, other + 1)
    return out


def _enclosing_def(node: Any) -> Any:
    """The `function_definition` around `node` (None past MAX_DEF_DEPTH parents)."""
    for _ in range(_MAX_DEF_DEPTH):
        node = node.parent
        if node is None or node.type == "function_definition":
            return node
    return None


def _joined(results: set[str | None]) -> str | None:
    """Python: the `return`s of a function giving different classes, `=A` / `A|B` (each a call of a
    capitalised plain name): their union `A|B`, which the graph reads member by member (certain only where every
    member finds the method in one class); None when one gives something else or nothing."""
    names: list[str] = []
    for r in results:
        if r is None:
            return None
        parts = r.split("|") if "|" in r else [r.removeprefix("=")] if r.startswith("=") else []
        if not parts or any(not p.isidentifier() or not is_class_name(p) for p in parts):
            return None
        names.extend(parts)
    return "|".join(sorted(set(names)))


def _unargued(chain: Chain) -> Chain:
    """`chain` without the argument of its call (`make?$a` -> `make`)."""
    called, root, steps = chain
    return (called, root.partition("?")[0], steps) if called else chain


# A word right after `(`, `,`, `*` or a space and before `:`, `=`, `,` or `)`: a parameter's name.
_PARAM_WORD = re.compile(r"(?<=[(,*\s])(\w+)(?=\s*[:=,)])")
_WORD = re.compile(r"\w+")
_NAME_STEP = re.compile(r"[A-Za-z_]\w*")  # an attribute read, no call or index (`pp.common`)
_CONSTRUCTOR = re.compile(r"_*[A-Z]\w*\(\)")  # a capitalised class's constructor step (`pp.Group()`)


def _binds(params: str, name: str) -> bool:
    """True when a parameter list (as written) has a parameter `name`."""
    if _WORD.fullmatch(name):
        # The same test as the pattern below, from the list's words read once: a regex compiled per name
        # missed `re`'s cache and was a quarter of the Python sweep's time.
        return name in _param_words(params)
    return re.search(rf"[(,*\s]{re.escape(name)}\s*[:=,)]", params) is not None


@lru_cache(maxsize=4096)
def _own_params(params: str) -> frozenset[str]:
    """The parameters' names of a parameter list as written, `(a: K, *b, c=1)` -> {a, b, c} (not the words of
    the annotations and defaults, which `_binds` also counts)."""
    inner, depth = params, 0
    for i, ch in enumerate(params):  # (the list ends at the parenthesis matching its first: `-> K` follows)
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and ch == ")":
            inner = params[params.find("(") + 1 : i]
            break
    names = (part.strip().lstrip("*").split(":", 1)[0].split("=", 1)[0].strip() for part in _top_level(inner, ","))
    return frozenset(n for n in names if n.isidentifier())


@lru_cache(maxsize=4096)
def _param_words(params: str) -> frozenset[str]:
    return frozenset(_PARAM_WORD.findall(params))


@dataclass
class TypeFacts:
    """What one file states about types, gathered during the extraction sweep."""

    params: dict[str, dict[str, str]] = field(default_factory=dict)  # function id -> param -> type
    locals: dict[str, dict[str, str]] = field(default_factory=dict)  # function id -> local -> type
    attrs: dict[str, dict[str, str]] = field(default_factory=dict)  # class qualname -> attribute -> type
    module: dict[str, str] = field(default_factory=dict)  # module-level name -> type
    param_names: dict[str, str] = field(default_factory=dict)  # function id -> its parameter list, as written
    declared: dict[str, set[str]] = field(default_factory=dict)  # function id -> locals annotated (`x: K = ...`)
    bases: dict[str, list[str]] = field(default_factory=dict)  # class qualname -> its bases as written
    nested_classes: set[str] = field(default_factory=set)  # (Python) qualnames of classes a function defines
    # Type expressions (type_exprs.py): what the code graph evaluates across files.
    chains: dict[str, dict[str, Chain | None]] = field(default_factory=dict)  # function id -> local -> value
    # Python: every plain assignment of a local, the class it makes or None (`joined_local`), and the locals
    # bound otherwise too (`except K as x`, `for x in`, an unpacking, a decorated def, an annotation)
    made_locals: dict[tuple[str, str], list[str | None]] = field(default_factory=dict)
    # Python: per function returning a bare name, its text's binding lines per name (`assign_lines`)
    binding_lines: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    other_binds: set[tuple[str, str]] = field(default_factory=set)
    returns: dict[str, list[Chain | None]] = field(default_factory=dict)  # function id -> returned values
    stated_returns: dict[str, str] = field(default_factory=dict)  # function id -> `-> X` (or 'Self')
    # Python: functions with a `yield` (their call makes a generator), and those decorated `@contextmanager`
    generators: set[str] = field(default_factory=set)
    context_managers: set[str] = field(default_factory=set)
    # Python: what `await f()` gives: an `async def`'s result, or X of a plain def stated `-> Awaitable[X]`,
    # `-> Coroutine[_, _, X]` or `-> K[X]` (a generic awaitable of the repository: `AwaitableOrContextManager[X]`)
    async_functions: set[str] = field(default_factory=set)
    awaited_returns: dict[str, str] = field(default_factory=dict)
    # Python: a plain def's tuple result, item by item (the `[i]` rows `a, b = f()` reads): stated `-> tuple[A,
    # B]`, else every `return A(..), B(..)`'s items (None: a `return` of no tuple literal); `annotated`: the
    # functions stating any result (a stated result wins over the `return`s, as a checker reads it)
    stated_items: dict[str, list[str | None]] = field(default_factory=dict)
    returned_items: dict[str, list[list[Chain | None] | None]] = field(default_factory=dict)
    annotated: set[str] = field(default_factory=set)
    fixtures: dict[str, set[str]] = field(default_factory=dict)  # function id -> parameters filled by pytest
    class_params: dict[str, dict[str, str]] = field(default_factory=dict)  # function id -> `p: type[K]` -> K
    # Python: function id -> `p=n` -> n (a bare name's default: a nested function's `p` is the outer `n`)
    name_defaults: dict[str, dict[str, str]] = field(default_factory=dict)
    class_objects: dict[str, str] = field(default_factory=dict)  # module-level `Base: type[K] = ...` -> K
    # Python: class qualname -> attribute holding a class object (`parser: type[K]`, `factory = K`) -> K; a
    # member read through it (`self.parser.parse_options()`) is K's, as a checker reads `type[K]`'s members
    attr_classes: dict[str, dict[str, str]] = field(default_factory=dict)
    # a pytest fixture's function id -> (the name pytest knows it by, its stated result as written)
    fixture_defs: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    classes: dict[str, str | None] = field(default_factory=dict)  # function id -> its class's qualname
    attr_chains: dict[str, dict[str, tuple[str, Chain] | None]] = field(default_factory=dict)
    # Python: a class body's `name = <chain>` (`integer = Word(nums).set_name("integer")`), read at module level
    class_chains: dict[str, dict[str, Chain | None]] = field(default_factory=dict)
    # Python: a class body's `parseString = parse_string` (a plain name): class qualname -> alias -> name
    member_aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    rebound_attrs: set[str] = field(default_factory=set)  # Python: every `x.name = ...`'s name in the file
    # Python: class qualname -> attribute -> what the methods other than `__init__` bind it to (`setUp`'s
    # `self.app = K()`), at most _MAX_BINDINGS different values (None: more, or one not read)
    method_attrs: dict[str, dict[str, list[_Binding] | None]] = field(default_factory=dict)
    # Python: class qualname -> attributes an augmented assignment rebinds in a method (`self.x += y`), and
    # those a method other than `__init__` annotates (`self.x: K = ...`, a declared type the former leaves)
    augmented_attrs: dict[str, set[str]] = field(default_factory=dict)
    stated_attrs: dict[str, set[str]] = field(default_factory=dict)
    module_chains: dict[str, Chain | None] = field(default_factory=dict)
    decorated: set[tuple[str | None, str]] = field(default_factory=set)  # Python: (function or None, name)
    module_stated: dict[str, str] = field(default_factory=dict)  # `g: K = ...` at module level
    declared_attrs: dict[str, set[str]] = field(default_factory=dict)  # class -> attributes annotated in its body
    imported: set[str] = field(default_factory=set)  # names bound by `from m import name`
    # Python: `from m import name as alias` -> `m.name`; `import m as alias` -> `m` (`canonical`'s reading)
    import_from: dict[str, str] = field(default_factory=dict)
    module_of: dict[str, str] = field(default_factory=dict)
    # Python: a function's first definition id -> its `@overload`s in order: (id, first parameter as written)
    overloads: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    module_aliases: set[str] = field(default_factory=set)  # names bound by `import m` / `import m as x`
    package_scope: bool = False  # Go: a name no function binds may be a package-level name of another file
    python: bool = False  # Python's scoping: a called parameter is the parameter (`_called_param`)
    outer: dict[str, str] = field(default_factory=dict)  # nested function id -> the function it is defined in
    # TypeScript `const x = c ? a() : b()`: (function id, x) -> the arms' chains (x's chain is `_ARMS`)
    arms: dict[tuple[str, str], tuple[Chain, Chain]] = field(default_factory=dict)
    # TypeScript `for (const [k, v] of m)`: (function, v, `m#of[1]`), bound after the function's other locals
    # and only where v has no other binding in it (`settle_entries`)
    entries: list[tuple[str, str, Chain | None]] = field(default_factory=list)
    # TypeScript: function id -> `&i.j` -> the stated type of parameter j of its callback parameter i
    callbacks: dict[str, dict[str, str]] = field(default_factory=dict)
    this_types: dict[str, str] = field(default_factory=dict)  # TypeScript: function id -> `this: K`
    # TypeScript: module-level `const o = { m() {} }`: `o.m()` is a member of o itself (`^o`, the graph reads)
    object_consts: set[str] = field(default_factory=set)
    # TypeScript object shapes (object_shapes.py): a module-level function's name -> its inline object result's
    # members; `{<byte>` (a `const` local's literal) -> (its function id, its members' values)
    object_results: dict[str, dict[str, str]] = field(default_factory=dict)
    object_locals: dict[str, tuple[str, dict[str, Chain | None]]] = field(default_factory=dict)
    # TypeScript: a type's members typed by a nested object type (`documentation: {CommentProvider: K}`, whose
    # members code-scan files under the type itself), and how often each member name occurs in the type
    object_groups: dict[str, set[str]] = field(default_factory=dict)
    member_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    # TypeScript: function id or class qualname -> type parameter -> its constraint (`T extends K`: `K`;
    # "" when it has none: a `T` then names no class)
    generics: dict[str, dict[str, str]] = field(default_factory=dict)
    # TypeScript: `%<byte>.<source>` -> what the call at byte states about its callee's type parameters
    contexts: dict[str, str] = field(default_factory=dict)
    go_ranged: dict[str, set[str]] = field(default_factory=dict)  # Go: function id -> its `range` variables
    go_scopes: Any = None  # Go: the file's locals by block (`go_blocks.GoScopes`): a value's first name read there
    # Python generic identities (`generic_identity.py`): module-level TypeVar names; function id -> (its type
    # variable, the position of the parameter it types, whether the function declares it itself); a
    # module-level (or class body's: class qualname -> ...) name -> the plain names its call passes (None:
    # bound twice)
    typevars: set[str] = field(default_factory=set)
    identities: dict[str, tuple[str, int, bool]] = field(default_factory=dict)
    identity_calls: dict[str, list[tuple[str, int, str]] | None] = field(default_factory=dict)
    member_identity_calls: dict[str, dict[str, list[tuple[str, int, str]] | None]] = field(default_factory=dict)

    def add_params(self, function_id: str, params: Any, signature: str | None) -> None:
        if signature and self.python and "=" in signature:  # (an annotation below wins over a default)
            defaulted = default_typed_params(params)
            if defaulted:
                self.params[function_id] = defaulted
            named = name_default_params(params)
            if named:
                self.name_defaults[function_id] = named
        if signature and ":" in signature:  # cheap test first: most functions have no annotation
            found = annotated_params(params)
            if found:
                self.params.setdefault(function_id, {}).update(found)
            if self.python and "type" in signature.lower():
                made = class_object_params(params)
                if made:
                    self.class_params[function_id] = made
        if signature and signature != "()":
            self.param_names[function_id] = signature

    def local_binds(self, function_id: str | None, name: str) -> bool:
        """Python: the function assigns (before this point of the sweep) or takes as a parameter the first part
        of `name`: there it is the function's own name, not a class of the module (`F = make_form(...)`,
        then `F(...)`)."""
        if function_id is None or not self.python:
            return False
        root = name.lstrip("=").partition(".")[0]
        return root in self.chains.get(function_id, ()) or root in _own_params(self.param_names.get(function_id, ""))

    def add_local(self, function_id: str, name: str, value: Any) -> None:
        if value is not None and value.type in _NO_VALUE:
            return  # `x = None` first, the real value later: no type of its own
        typ = value_type(value)
        if typ is not None and self.local_binds(function_id, typ.lstrip("=")):
            typ = None  # (calling a local or a parameter: what it makes is not stated here)
        if self.python:
            made = constructor_type(value)
            plain = made is not None and "." not in made and not self.local_binds(function_id, made)
            self.made_locals.setdefault((function_id, name), []).append(made if plain else None)
        _bind(self.locals.setdefault(function_id, {}), name, typ if typ is not None else _CONFLICT)
        chain = self.scoped(chain_of(value), value) if value is not None else None
        if chain is None and not self.python and not self.package_scope and value is not None:
            chain = self._ts_arms(function_id, name, value)
        if chain is None and not self.python and not self.package_scope and value is not None:
            members = literal_members(value)
            if members is not None:  # `const d = {high: ...}`: `d.high` is its initializer's (`shaped`)
                key = "{" + str(value.start_byte)
                self.object_locals[key] = (function_id, members)
                chain = (False, key, ())
        defaulted = self._or_default(function_id, value)
        if defaulted is not None and not defaulted[0]:  # `x = x or K()` with `x: K | None`: a K
            chain = (False, ":" + defaulted[1], ())
        _bind_chain(self.chains.setdefault(function_id, {}), name, chain)

    def scoped(self, chain: Chain | None, node: Any) -> Chain | None:
        """Go: `chain` (read from `node`) with its first name as the facts hold it there (a block's local)."""
        return self.go_scopes.chain(chain, node.start_byte) if self.go_scopes is not None else chain

    def _ts_arms(self, function_id: str, name: str, value: Any) -> Chain | None:
        """TypeScript `x = c ? a() : b()`: `_ARMS`, the arms kept for `arms_type` (the compiler types a
        conditional as the union of its arms, reduced to a base when one is a subtype: the graph compares)."""
        while value.type == "parenthesized_expression" and value.named_child_count == 1:
            value = value.named_children[0]
        if value.type != "ternary_expression":
            return None
        found = [value.child_by_field_name(f) for f in ("consequence", "alternative")]
        chains = [chain_of(arm, arms=False) if arm is not None else None for arm in found]
        if chains[0] is None or chains[1] is None:
            return None
        if (function_id, name) in self.arms and self.arms[(function_id, name)] != (chains[0], chains[1]):
            return None  # (bound to two conditionals)
        self.arms[(function_id, name)] = (chains[0], chains[1])
        return _ARMS

    def arms_type(self, name: str, function_id: str | None) -> str | None:
        """TypeScript: `a;b`, the arms' type expressions of the conditional the local `name` holds (in the
        function or one around it, as a closure reads it), for the graph to compare; None otherwise."""
        fid, depth = function_id, 0
        while fid is not None and depth < MAX_DEPTH:
            arms = self.arms.get((fid, name))
            stated = name in self.params.get(fid, {}) or _binds(self.param_names.get(fid, ""), name)
            if arms is not None and not stated and self.chains.get(fid, {}).get(name) == _ARMS:
                exprs = [self.expr(c, fid) for c in arms]
                if any(e is None or ";" in e or "|" in e or e.startswith("!") for e in exprs):
                    return None
                return ";".join(e for e in exprs if e is not None)
            if stated or name in self.chains.get(fid, {}):
                return None  # (a parameter or another local of that name)
            fid, depth = self.outer.get(fid), depth + 1
        return None

    def _or_default(self, function_id: str, value: Any) -> tuple[bool, str] | None:
        """Python `p or K(...)` / `p or K` where the parameter `p` states `K | None` / `type[K] | None`: both arms
        are a K (False, K) or the class object K (True, K), as a checker joins them; None otherwise."""
        if value is None or value.type != "boolean_operator" or not self.python:
            return None
        op, left, right = (value.child_by_field_name(f) for f in ("operator", "left", "right"))
        if op is None or op.type != "or" or left is None or right is None or left.type != "identifier":
            return None
        param = _node_text(left)
        if not _binds(self.param_names.get(function_id, ""), param):
            return None
        if right.type == "identifier" and self.class_params.get(function_id, {}).get(param) == _node_text(right):
            return True, _node_text(right)
        made = constructor_type(right)
        if made is not None and self.params.get(function_id, {}).get(param) == made:
            return False, made
        return None

    def add_caught(self, function_id: str, name: str, caught: str) -> None:
        """Python `except K as e`: `e` is a K, as a checker reads it (a K raised, or a subclass's instance, which
        has K's methods); bound like an assignment of `K()` (`e` bound to something else too gives no type)."""
        _bind(self.locals.setdefault(function_id, {}), name, _CONFLICT)  # (the chain below tells the graph)
        self.other_binds.add((function_id, name))
        made: Chain | None = None
        if is_class_name(caught) and _DOTTED_ANY.fullmatch(caught):
            *module, cls = caught.split(".")
            made = (False, module[0], (*module[1:], cls + "()")) if module else (True, cls, ())  # as `K()` reads
        _bind_chain(self.chains.setdefault(function_id, {}), name, made)

    def add_declared(self, function_id: str, name: str, annotation: str) -> None:
        """Python: a local declared with a type (`hook: HookCaller | None = getattr(...)`): a checker holds
        every later assignment to the declared type, so it is the local's type for every use."""
        typ = annotation_type(annotation)
        _bind(self.params.setdefault(function_id, {}), name, typ if typ is not None else _CONFLICT)
        self.declared.setdefault(function_id, set()).add(name)
        self.other_binds.add((function_id, name))

    def add_stated(self, function_id: str, name: str, written: str) -> None:
        """Go, TypeScript: a local or parameter of a written type (`*T`, `T`, `pkg.T`, `T[int]`)."""
        # Go: `[]*T` is a `T[]` (its elements are what `range` and `xs[i]` give)
        typ = (go_type(written) or "") if self.package_scope else written.lstrip("*&").split("[", 1)[0].strip()
        # A written type holds for every use (it is the declared type), like an annotated parameter's.
        ok = _DOTTED.fullmatch(typ.removesuffix("[]")) if self.package_scope else _DOTTED.fullmatch(typ)
        _bind(self.params.setdefault(function_id, {}), name, typ if ok else _CONFLICT)

    def settle_entries(self) -> None:
        """Bind the entries' values (`entries`) whose name the function binds nowhere else: another binding
        would merge with it (and `ts_blocks` keeps a use in such a loop untyped)."""
        others = {(fid, name) for fid, name, _c in self.entries if name in self.locals.get(fid, {})}
        for fid, name, chain in self.entries:
            if (fid, name) not in others:
                self.add_local_chain(fid, name, chain)
        self.entries.clear()

    def add_local_chain(self, function_id: str, name: str, chain: Chain | None) -> None:
        """A local bound to a chain the file builds itself (`const {a} = v`: `v.a`; `for (x of xs)`: `xs[]`)."""
        _bind(self.locals.setdefault(function_id, {}), name, _CONFLICT)
        _bind_chain(self.chains.setdefault(function_id, {}), name, chain)
        self.other_binds.add((function_id, name))
        if self.package_scope:  # Go `for _, x := range xs`: a stated `x` elsewhere in the function is another x
            self.go_ranged.setdefault(function_id, set()).add(name)

    def add_decorated(self, function_id: str | None, name: str, chain: Chain) -> None:
        """Python: a function `name` decorated by `d` (`decorator_chain`), defined in the function `function_id`
        (a local) or at module level (None): the name is bound to `d(...)`'s value, as a checker reads it."""
        self.decorated.add((function_id, name))  # (calling it is read through the decorator: not `__call__`)
        if function_id is not None:
            self.other_binds.add((function_id, name))
        self.add_bound(function_id, name, chain)

    def add_bound(self, function_id: str | None, name: str, chain: Chain | None) -> None:
        """Python: a local (in `function_id`) or module-level name (None) bound to a chain the file builds
        itself (`A, B = map(K, "ab")`: each `K(...)`)."""
        if function_id is not None:
            self.add_local_chain(function_id, name, chain)
            return
        self.identity_calls[name] = None  # (a generic identity's value only when bound once, below)
        _bind(self.module, name, _CONFLICT)
        _bind_chain(self.module_chains, name, chain)

    def add_ts_generics(self, key: str, type_parameters: Any) -> None:
        """TypeScript: the type parameters of a function or class (`<T extends K, U>`)."""
        table = self.generics.setdefault(key, {})
        for param in type_parameters.named_children:
            name = param.child_by_field_name("name")
            if param.type != "type_parameter" or name is None:
                continue
            constraint = param.child_by_field_name("constraint")
            bound = constraint.named_children[-1] if constraint is not None and constraint.named_child_count else None
            table[_node_text(name)] = (ts_type(_node_text(bound)) or "") if bound is not None else ""

    def ts_generic(self, typ: str | None, *keys: str | None) -> str | None:
        """`typ` with a type parameter of the functions or classes `keys` (innermost first, then the
        functions around them and their classes) read as its constraint: `T` -> `K`, `T[]` -> `K[]`."""
        if not typ or not self.generics:
            return typ
        if "|" in typ:
            members = [self.ts_generic(m, *keys) for m in typ.split("|")]
            return None if any(m is None or "|" in m for m in members) else "|".join(dict.fromkeys(members))  # type: ignore[arg-type]
        base, suffix = (typ[:-2], typ[-2:]) if typ.endswith(("[]", "{}")) else (typ, "")
        todo = [k for k in keys if k]
        seen: set[str] = set()
        while todo:
            key = todo.pop(0)
            if key in seen:
                continue
            seen.add(key)
            table = self.generics.get(key)
            if table is not None and base in table:
                bound = table[base]
                if not bound or (suffix and bound.endswith(("[]", "{}"))):
                    return None
                return bound + suffix
            todo.extend(k for k in (self.classes.get(key), self.outer.get(key)) if k)
        return typ

    def add_ts_stated(self, function_id: str, name: str, written: str) -> None:
        """TypeScript: a local or parameter of a written type (`K`, `K<T>`, `K | null`, `K[]`)."""
        typ = self.ts_generic(ts_type(written), function_id)
        _bind(self.params.setdefault(function_id, {}), name, typ if typ and typ != "Self" else _CONFLICT)

    def add_callback_param(self, scope: str, name: str, expr: str | None) -> None:
        """TypeScript: an untyped parameter of a callback (a scope of its own, see `outer`), typed by the
        callee's signature (`expr`)."""
        _bind(self.params.setdefault(scope, {}), name, expr or _CONFLICT)

    def add_ts_callbacks(self, function_id: str, params: Any, result: str | None = None) -> None:
        """TypeScript: `f(init: (source: Observable<T>, sub: Subscriber<R>) => void)`: `&0.1` is `Subscriber`.
        A parameter typed by one of f's own type parameters (`<T>(init: (inst: T) => void)`) is what each
        call instantiates T with: `&0.0` is then a recipe `%sources` (see `_ts_recipe`)."""
        listed = _ts_params(params)
        own = self.generics.get(function_id, {})
        for i, param in enumerate(listed):
            typ = param.child_by_field_name("type")
            fn = typ.named_children[0] if typ is not None and typ.named_child_count else None
            if fn is None or fn.type != "function_type":
                continue
            inner = fn.child_by_field_name("parameters")
            for j, sub in enumerate(_ts_params(inner) if inner is not None else ()):
                written = sub.child_by_field_name("type")
                found = ts_type(_node_text(written)) if written is not None else None
                if found is not None and self.ts_generic(found, function_id) != found:
                    # a type parameter: the caller's instantiation, not its constraint, types the callback
                    if found in own:
                        recipe = _ts_recipe(found, list(own), listed, i, fn, result=result)
                        self.callbacks.setdefault(function_id, {})[f"&{i}.{j}"] = recipe
                    continue
                if found is not None and found != "Self":
                    self.callbacks.setdefault(function_id, {})[f"&{i}.{j}"] = found
        for i, param in enumerate(listed):  # `&i`: parameter i's declared type, a named one (`f(opts: Opts)`)
            typ = param.child_by_field_name("type")
            base = stated_base(_node_text(typ)) if typ is not None else None
            if base is not None and self.ts_generic(base, function_id) == base:
                self.callbacks.setdefault(function_id, {})[f"&{i}"] = base

    def add_ts_member_params(self, owner: str, params: Any, scope: str | None) -> None:
        """TypeScript: an interface's (or object type's) method or function-typed member `code(cxt: K)` /
        `code: (cxt: K) => void`: `&p.j`, the stated type of its parameter j, which a function written for
        that member in an object literal of the declared type takes (`ts_patterns.py`). A type parameter (of
        the member or its type) is instantiated by each use: no row."""
        for j, param in enumerate(_ts_params(params)):
            written = param.child_by_field_name("type")
            found = ts_type(_node_text(written)) if written is not None else None
            if found is None or found == "Self" or self.ts_generic(found, owner, scope) != found:
                continue
            self.callbacks.setdefault(owner, {})[f"&p.{j}"] = found

    def add_ts_alias_params(self, alias_qualname: str, params: Any) -> None:
        """TypeScript: a function-type alias `type GenParse = (cxt: ParseCxt) => void`: its attribute `&p.j`, the
        stated type of parameter j, which a function returned under that declared result takes."""
        for j, param in enumerate(_ts_params(params)):
            written = param.child_by_field_name("type")
            found = ts_type(_node_text(written)) if written is not None else None
            if found is not None and found != "Self" and self.ts_generic(found, alias_qualname) == found:
                _bind(self.attrs.setdefault(alias_qualname, {}), f"&p.{j}", found)

    def add_ts_patterns(self, function_id: str, params: Any, contextual: str | None) -> None:
        """TypeScript: parameters typed without a written type of their own (`ts_patterns.py`): a destructured
        parameter of a declared type (`{gen, it: {self}}: Cxt`: `Cxt#gen`, `Cxt#it#self`), and, where the
        function is a member of an object literal of a declared type, each unannotated parameter j as the
        member's (`contextual` + j: `Def#code&p.0`)."""
        for j, param in enumerate(_ts_params(params)):
            pattern, written = param.child_by_field_name("pattern"), param.child_by_field_name("type")
            if written is not None:
                if pattern.type != "object_pattern":
                    continue  # (`x: K` is read by the query's `@bind.local`)
                base = stated_base(_node_text(written))
                if base is not None and self.ts_generic(base, function_id) != base:
                    base = None  # (`{a}: T`: what each call instantiates T with)
            elif contextual is None:
                continue
            else:
                base = contextual + str(j)
            if pattern.type == "identifier":
                self.add_callback_param(function_id, _node_text(pattern), base)
            elif pattern.type == "object_pattern":
                self.add_ts_pattern(function_id, pattern, base)

    def add_ts_pattern(self, scope: str, pattern: Any, base: str | None) -> None:
        """TypeScript: the names of an object pattern read from a value of type `base` (None: unknown), each
        the member of its key path; a name that is no member read (`...rest`) has no type."""
        for name, steps in pattern_names(pattern):
            typ = join(base, steps) if base is not None and steps is not None else None
            _bind(self.params.setdefault(scope, {}), name, typ or _CONFLICT)

    def this_type(self, function_id: str | None) -> str | None:
        """TypeScript: the `this: K` parameter of a function, or of the function a callback sits in."""
        if function_id is None:
            return None
        found = self.this_types.get(function_id)
        if found is None and "@" in function_id:  # a callback scope: an arrow function keeps the `this` around it
            found = self.this_type(self.outer.get(function_id))
        return found

    def add_module(self, name: str, value: Any) -> None:
        """A module-level `name = K(...)`: the type of `name` in the file's functions that do not bind it."""
        typ = value_type(value)
        _bind(self.module, name, typ if typ is not None else _CONFLICT)
        _bind_chain(self.module_chains, name, chain_of(value))
        if self.python:
            passed = passed_names(value) if value is not None and value.type == "call" else None
            self.identity_calls[name] = passed if name not in self.identity_calls else None
            if is_typevar(value):
                self.typevars.add(name)

    def add_identity(self, function_id: str, params: Any, returns: str | None, own: set[str]) -> None:
        """Python: a module-level plain def whose result is exactly its argument's type (`generic_identity`)."""
        written = (returns or "").strip().strip("'\"").strip()
        # (whether `written` is a type variable is known at the module's end: a TypeVar may follow the def)
        found = identity_position(params, returns, {written}) if written.isidentifier() else None
        if found is not None:
            self.identities[function_id] = (found[0], found[1], found[0] in own)

    def add_module_stated(self, name: str, annotation: str) -> None:
        """`name: K = ...` at module level: the annotation is the type, whatever the value; `name: type[K] =
        ...` is a class object, which a checker reads as K where a class statement names it as a base."""
        typ = plain_type(annotation)
        if typ is not None:
            self.module_stated[name] = typ
        elif (made := class_object_type(annotation)) is not None:
            self.class_objects[name] = made

    def add_go_module_stated(self, name: str, written: str) -> None:
        """Go: `var name T` / `var name T = value` at package level: the written type, whatever the value."""
        typ = go_type(written)
        if typ is not None:
            self.module_stated[name] = typ

    def add_ts_field(self, class_qualname: str, name: str, annotation: str, class_field: bool = False) -> None:
        """TypeScript: a field `s: Subject<T>`, `s?: K | null`, `xs: K[]` (also a parameter property);
        `class_field`: one a class body declares (typed by the class's type parameter: a `<name` row)."""
        written = ts_type(annotation)
        typ = self.ts_generic(written, class_qualname)
        if typ is not None and typ != "Self":
            _bind(self.attrs.setdefault(class_qualname, {}), step_name(name), typ)
        params = list(self.generics.get(class_qualname, ()))
        if class_field and written in params:  # `provider!: P`: a subclass passing `P` an argument has that (`<i` rows)
            _bind(self.attrs.setdefault(class_qualname, {}), "<" + step_name(name), str(params.index(written)))

    def add_ts_base_args(self, class_qualname: str, arguments: list[str]) -> None:
        """TypeScript `class K extends Base<A, B>`: the rows `<0` A, `<1` B, what Base's fields typed by its
        type parameters are in K (type_eval.py reads them one depth nearer than Base's constraint)."""
        for i, written in enumerate(arguments):
            typ = self.ts_generic(ts_type(written), class_qualname)
            if typ is not None and typ != "Self" and "|" not in typ:
                _bind(self.attrs.setdefault(class_qualname, {}), f"<{i}", typ)

    def add_ts_member(self, class_qualname: str, name: str, annotation: str | None) -> None:
        """TypeScript: a member of a type or class, counted (a name two nested object types of the type declare
        is read as neither); one typed by a nested object type (`documentation: {...}`) is a group."""
        counts, name = self.member_counts.setdefault(class_qualname, {}), step_name(name)
        counts[name] = counts.get(name, 0) + 1
        if annotation is not None and annotation.strip().lstrip(":").strip().startswith("{"):
            self.object_groups.setdefault(class_qualname, set()).add(name)

    def add_ts_field_value(self, class_qualname: str, name: str, value: Any) -> None:
        """TypeScript: a field without a written type has its initializer's (`static ZERO = Long.fromInt(0)`,
        read at module level: a chain the graph evaluates); a literal, a `this` read: nothing."""
        chain = chain_of(value) if value.type in ("call_expression", "member_expression") else None
        typ = self.expr(chain, None) if chain is not None else None
        if typ is not None and not typ.startswith(("{", "Self")) and ";" not in typ:
            _bind(self.attrs.setdefault(class_qualname, {}), step_name(name), typ)

    def add_ts_module_stated(self, name: str, annotation: str) -> None:
        """TypeScript: `const name: K = ...` at module level."""
        typ = ts_type(annotation)
        if typ is not None and typ != "Self":
            self.module_stated[name] = typ

    def add_field(self, class_qualname: str, name: str, annotation: str) -> None:
        # Go fields `x *T` have the type T (`xs []*T`: `T[]`); TypeScript's `s: Subject<T>` (annotation with its
        # colon) Subject.
        typ = go_type(annotation) if self.package_scope else plain_type(annotation.lstrip(":* \t").split("<", 1)[0])
        if typ is not None and not self.package_scope:
            # Python: the declared type, whatever `__init__` assigns (`sync_bl: K`, `self.sync_bl = any_value`)
            table = self.attrs.setdefault(class_qualname, {})
            declared = self.declared_attrs.setdefault(class_qualname, set())
            table[name] = typ if name not in declared or table.get(name) == typ else _CONFLICT  # (two annotations)
            declared.add(name)
        elif typ is not None:
            _bind(self.attrs.setdefault(class_qualname, {}), name, typ)
        elif not self.package_scope and (made := class_object_type(annotation.lstrip(": \t"))) is not None:
            # `Cache: type[K]`: calling the attribute makes a K (the row `name()`, as `add_class_value`'s)
            _bind(self.attrs.setdefault(class_qualname, {}), name + "()", made)
            _bind(self.attr_classes.setdefault(class_qualname, {}), name, made)

    def add_go_underlying(self, type_qualname: str, written: str) -> None:
        """Go `type Hooks map[Level][]Hook`, `type nodes []*node`: an element of the named type (`h[k]`, `range h`)
        is what an element of its underlying type is (a row of the type named `[]`)."""
        typ = go_type(written)
        if typ is not None and typ.endswith("[]"):
            _bind(self.attrs.setdefault(type_qualname, {}), "[]", typ[:-2])

    def add_class_value(self, class_qualname: str, name: str, value: Any) -> None:
        """`storage_class = Storage` in a class body: calling the attribute (`self.storage_class()`) makes a
        Storage (the graph keeps it only if `Storage` is a class). The row's name is `storage_class()`; a member
        read through it (`self.storage_class.create()`) is Storage's. `objects = Manager()` in a class body: a
        class attribute holding a Manager, read through an instance or the class (`Contact.objects.get()`)."""
        if self.python:
            table = self.member_identity_calls.setdefault(class_qualname, {})
            passed = passed_names(value) if value.type == "call" else None
            table[name] = passed if name not in table else None
        made = constructor_type(value)
        if made is not None:
            if not any(b.rpartition(".")[2].endswith(_ENUM_BASES) for b in self.bases.get(class_qualname, ())):
                _bind(self.attrs.setdefault(class_qualname, {}), name, made)  # (an enum's member is an enum)
            return
        if value.type not in ("identifier", "attribute"):
            chain = chain_of(value)
            enum = any(b.rpartition(".")[2].endswith(_ENUM_BASES) for b in self.bases.get(class_qualname, ()))
            if chain is not None and (chain[0] or chain[2]) and not enum:  # (a call or a chain: an instance)
                _bind_chain(self.class_chains.setdefault(class_qualname, {}), name, chain)
            return
        text = _node_text(value)
        if is_class_name(text) and _DOTTED.fullmatch(text):
            _bind(self.attrs.setdefault(class_qualname, {}), name + "()", text)
            _bind(self.attr_classes.setdefault(class_qualname, {}), name, text)
        elif value.type == "identifier":  # a method alias (the graph keeps it only if `text` is a method there)
            _bind(self.member_aliases.setdefault(class_qualname, {}), name, text)

    def add_self_attr(self, class_qualname: str, method_id: str, name: str, annotation: Any, value: Any) -> None:
        """`self.name[: T] = value` inside `__init__` (an attribute declared in the class body keeps that type)."""
        typ: str | None = None
        if annotation is not None:
            typ = annotation_type(annotation.text.decode("utf-8", "replace"))
        declared = self.declared_attrs.setdefault(class_qualname, set())
        if typ is not None:
            # `self.exprs: list[K]` (with a value or none): the declared type, whatever else `__init__` assigns
            # (`self.exprs = list(exprs)`), as a checker reads the attribute in the other methods; two
            # declarations that differ give none
            typed = self.attrs.setdefault(class_qualname, {})
            typed[name] = typ if name not in declared or typed.get(name) == typ else _CONFLICT
            declared.add(name)
            return
        if name in declared or (value is not None and value.type == "none"):
            return  # (`self.x = None`: an Optional's other binding is its type, as a checker joins them)
        defaulted = self._or_default(method_id, value)
        if defaulted is not None and defaulted[0]:  # `self.cls = cls or K` with `cls: type[K] | None`
            _bind(self.attrs.setdefault(class_qualname, {}), name + "()", defaulted[1])
            _bind(self.attr_classes.setdefault(class_qualname, {}), name, defaulted[1])
            return
        if typ is None:
            typ = defaulted[1] if defaulted is not None else value_type(value)
        if typ is None and value is not None and value.type == "identifier":
            param = value.text.decode("utf-8", "replace")
            typ = self.params.get(method_id, {}).get(param)
            made = self.class_params.get(method_id, {}).get(param) if annotation is None else None
            if typ is None and made is not None:  # `self.cls = cls` with `cls: type[K]`: calling it makes a K
                _bind(self.attrs.setdefault(class_qualname, {}), name + "()", made)
                _bind(self.attr_classes.setdefault(class_qualname, {}), name, made)
                return
        if typ is not None:
            _bind(self.attrs.setdefault(class_qualname, {}), name, typ)
            return
        chain = chain_of(value) if value is not None else None
        table = self.attr_chains.setdefault(class_qualname, {})
        old = table.get(name, ())
        if chain is not None and isinstance(old, tuple) and len(old) == 2 and old[0] == method_id:
            before = old[1]
            if before != chain and _unargued(before) == _unargued(chain):  # (two calls of one function)
                chain = _unargued(chain)
                old = (method_id, chain)
        table[name] = (method_id, chain) if chain is not None and old in ((), (method_id, chain)) else None

    def add_method_attr(self, class_qualname: str, method_id: str, name: str, annotation: Any, value: Any) -> None:
        """`self.name[: T] = value` in a method other than `__init__` (`setUp`, `reset`): one binding of the
        attribute, joined with its other bindings after the sweep (`settle_attrs`). `self.name = None` drops out."""
        if annotation is not None:
            self.stated_attrs.setdefault(class_qualname, set()).add(name)
        if annotation is None and (value is None or value.type == "none"):
            return
        table = self.method_attrs.setdefault(class_qualname, {})
        found = table.get(name, [])
        if found is None:
            return  # (already two values, or one not read: no type, whatever else binds it)
        binding = self._binding(method_id, annotation, value)
        if binding is None or (binding not in found and len(found) >= _MAX_BINDINGS):
            table[name] = None
        elif binding not in found:
            found.append(binding)
            table[name] = found

    def add_augmented_attr(self, class_qualname: str, name: str) -> None:
        """`self.name += value` (any operator) in a method, `__init__` included: a binding to the operator's
        result, which the file does not state (`settle_attrs` leaves the attribute no type unless declared)."""
        self.augmented_attrs.setdefault(class_qualname, set()).add(name)

    def _binding(self, method_id: str, annotation: Any, value: Any) -> _Binding | None:
        """What one `self.name = value` binds, as `add_self_attr` reads it: ("t", type), ("c", K) a class
        object, ("x", chain) a chain read in `method_id`; None for a value not read."""
        if annotation is not None:
            typ = annotation_type(_node_text(annotation))
            return ("t", typ, None) if typ is not None else None
        defaulted = self._or_default(method_id, value)
        if defaulted is not None:
            return ("c" if defaulted[0] else "t", defaulted[1], None)
        typ = value_type(value)
        if typ is not None:
            return "t", typ, None
        if value.type == "identifier":
            param = _node_text(value)
            typ = self.params.get(method_id, {}).get(param)
            if typ:
                return "t", typ, None
            made = self.class_params.get(method_id, {}).get(param)
            if made is not None:
                return "c", made, None
        chain = chain_of(value)
        if chain is None:
            return None
        return "x", method_id, chain

    def settle_attrs(self) -> None:
        """Python, after the sweep: an attribute is what all its bindings join to, as a checker reads an
        undeclared attribute from every method: bindings of one class (None dropped) are that class, two
        classes are none; a declared type (`self.x: K`, a class body's `x: K`) wins. `__init__`'s reading,
        where no other method binds a different class, is kept as it was."""
        for cls, bound in self.method_attrs.items():
            declared = self.declared_attrs.get(cls, set())
            for name, found in bound.items():
                if name in declared or found is None:
                    continue  # (a value not read elsewhere leaves `__init__`'s reading as it was)
                keys: dict[str, _Binding] = {}
                for binding in found:
                    key = self._binding_key(binding)
                    if key is None:
                        break
                    keys.setdefault(key, binding)
                else:
                    self._join_attr(cls, name, keys)
        for cls, names in self.augmented_attrs.items():
            stated = self.declared_attrs.get(cls, set()) | self.stated_attrs.get(cls, set())
            for name in names - stated:
                self._unread_attr(cls, name)

    def _unread_attr(self, cls: str, name: str) -> None:
        """Attribute `name` of `cls` has a binding whose value is not read (an operator's result): no type,
        whatever its other bindings are, as a checker's join of them with an unknown arm is no one class."""
        attrs = self.attrs.setdefault(cls, {})
        attrs[name] = _CONFLICT
        if name + "()" in attrs:
            attrs[name + "()"] = _CONFLICT
        self.attr_chains.setdefault(cls, {})[name] = None
        self.attr_classes.get(cls, {}).pop(name, None)
        if name in self.class_chains.get(cls, {}):
            self.class_chains[cls][name] = None

    def _binding_key(self, binding: _Binding) -> str | None:
        """The type a binding gives, as a string two bindings of one type share (None: not read)."""
        kind, what, chain = binding
        if kind == "x":
            return self.expr(chain, what) if chain is not None else None
        return what if kind == "t" else what + "()"

    def _join_attr(self, cls: str, name: str, keys: dict[str, _Binding]) -> None:
        """Joins the other methods' bindings (`keys`) with `__init__`'s."""
        attrs = self.attrs.setdefault(cls, {})
        chains = self.attr_chains.setdefault(cls, {})
        held = self.attr_classes.get(cls, {})
        init: str | None
        if name in attrs:
            init = attrs[name]
        elif name in held:
            init = held[name] + "()"
        elif name in chains:
            found = chains[name]
            init = (self.expr(found[1], found[0]) or _CONFLICT) if found is not None else _CONFLICT
        else:
            init = None
        if init == _CONFLICT:
            return  # (`__init__` binds it to two values, or one not read: no type)
        if init is not None:
            keys.setdefault(init, ("t", init, None))
        if len(keys) != 1 and any(kind == "x" for kind, _, _ in keys.values()):
            # (a chain the graph reads, `self.x = self.x.load(f)`: not known here to be another class, so it
            # leaves `__init__`'s reading as a value not read does, and gives none where `__init__` binds none)
            return
        if len(keys) != 1:
            self._unread_attr(cls, name)  # (two classes: none, as a value not read)
            return
        if init is not None:
            return
        kind, what, chain = next(iter(keys.values()))
        if kind == "t":
            attrs[name] = what
        elif kind == "c":
            attrs[name + "()"] = what
            self.attr_classes.setdefault(cls, {})[name] = what
        elif chain is not None:
            chains[name] = (what, chain)

    def own_roots(self) -> tuple[str, ...]:
        """The names a method's receiver is read by: TypeScript's `this` only (there `self` and `cls` are plain
        names, `const {self} = it`: a member like any other)."""
        return ("self", "cls", "this") if self.python or self.package_scope else ("this",)

    def typed_roots(self) -> set[str]:
        """Every name a receiver's first part must be for `receiver_type` to find something."""
        roots = set(self.own_roots()) if self.attrs else set()  # (class-named receivers are handled apart)
        for table in (self.params, self.locals):
            for names in table.values():
                roots.update(n for n, t in names.items() if t)
        roots.update(n for n, t in self.module.items() if t)
        roots.update(self.object_consts)
        return roots

    def add_bases(self, class_qualname: str, superclasses: str) -> None:
        """A class's bases as written (`(Base, mod.Other)`): attributes set in a base's `__init__` of the
        same file are the subclass's too."""
        self.bases[class_qualname] = [b.strip() for b in superclasses.strip("()").split(",") if b.strip()]

    def super_type(self, class_qualname: str | None) -> str | None:
        """What `super()` is in a method of a class a function defines (the graph's `self` lookup does not
        follow such a class's bases): its one base, by qualname when the same function defines it
        (`class Child(Slots)`: `f.Slots`), else as written. None for a class of a module or class body, or
        with several bases (the MRO then decides)."""
        if class_qualname is None or class_qualname not in self.nested_classes:
            return None
        bases = [b for b in self.bases.get(class_qualname, ()) if "=" not in b]  # (`metaclass=...` is no base)
        if len(bases) != 1:
            return None
        base = bases[0].split("[", 1)[0].strip()  # (`Box[int]`: a Box)
        if not _DOTTED.fullmatch(base) or base.startswith(("self.", "cls.")):
            return None  # (`class D(self.Cache)`: an attribute, no name a graph looks up)
        sibling = class_qualname.rpartition(".")[0] + "." + base  # a class the same function defines
        return sibling if sibling in self.nested_classes else base

    def class_attr(self, class_qualname: str, name: str) -> str | None:
        """The type of attribute `name` of the class or a base of the same file (None when two disagree)."""
        typ = self._attr(class_qualname, name)
        return None if typ == _CONFLICT else typ

    def _attr(self, class_qualname: str, name: str) -> str | None:
        todo: list[str] = [class_qualname]
        seen: set[str] = set()
        while todo and len(seen) < 8:
            cls = todo.pop(0)
            if cls in seen:
                continue
            seen.add(cls)
            typ = self.attrs.get(cls, {}).get(name)
            if typ is not None:
                return typ
            todo.extend(b for b in self.bases.get(cls, ()) if b in self.attrs or b in self.bases)
        return None

    def receiver_type(self, qualifier: str, function_id: str | None, class_qualname: str | None) -> str | None:
        """The type of `qualifier` (`x`, `x.attr`, `self.attr`, `self.attr.sub`): `T`, `T#attr`, or None."""
        root, *rest = qualifier.split(".")
        if root in self.own_roots():
            if class_qualname is None or not rest:
                return None
            typ = self._attr(class_qualname, step_name(rest[0]))
            rest = rest[1:]
        elif function_id is not None:
            local = self.locals.get(function_id, {})
            is_param = _binds(self.param_names.get(function_id, ""), root)
            declared = root in self.declared.get(function_id, ())
            if root in local and not is_param and not declared:  # a reassigned parameter: its type differs
                typ = local[root]
                if typ.startswith("=") and self.python:
                    param = self._called_param(typ[1:], function_id)  # `x = factory(...)`, factory a parameter
                    if param is not None:
                        typ = param + "#__call__()" if param else _CONFLICT
            elif root in self.params.get(function_id, {}):
                typ = self.params[function_id][root]
            elif root in self.object_consts and not is_param:
                typ = "^" + root
            elif root in self.module and not is_param:
                typ = self.module[root]
            else:
                return None
        else:
            typ = "^" + root if root in self.object_consts else self.module.get(root)
        if not typ:
            return None
        if not rest:
            return typ
        return self.shaped(f"{typ}#{step_name(rest[0])}") if len(rest) == 1 else None

    # -- type expressions (evaluated by the code graph) ----------------------------------------------

    def add_function(
        self,
        function_id: str,
        class_qualname: str | None,
        returns: str | None,
        *,
        is_async: bool = False,
        yields: bool = False,
    ) -> None:
        """A function or method: its class (for `self`), and its stated return type (`-> X`). `yields`: a
        `@contextmanager` generator, whose call `with f() as v` binds what it yields (`-> Generator[K, None,
        None]`: a K), as a checker reads the decorator's stub."""
        self.classes[function_id] = class_qualname
        if is_async:
            self.async_functions.add(function_id)
        if yields:
            self.context_managers.add(function_id)
        if returns is not None:
            text = returns.strip().strip("'\"").strip()
            self.annotated.add(function_id)
            if self.python and not is_async and not yields and (items := tuple_items(text)) is not None:
                self.stated_items[function_id] = items
            read = fixture_value_type if yields else annotation_type
            typ = "Self" if text in SELF_NAMES else read(text)
            if typ is not None and (typ != "Self" or class_qualname):
                self.stated_returns[function_id] = typ
            awaited = awaited_type(text) if not is_async and not yields else None
            if awaited is not None:
                self.awaited_returns[function_id] = awaited

    def add_ts_result(self, function_id: str, class_qualname: str | None, result: str | None) -> None:
        """TypeScript: a function's or method's stated result (`m(): Observable<T>`, `: this`)."""
        self.classes[function_id] = class_qualname
        typ = self.ts_generic(ts_type(result), function_id, class_qualname) if result else None
        if typ is not None and (typ != "Self" or class_qualname):
            self.stated_returns[function_id] = typ
        inner = promised(result) if result else None  # `m(): Promise<K>`: `await x.m()` is a K
        awaited = self.ts_generic(ts_type(inner), function_id, class_qualname) if inner else None
        if awaited is not None and awaited != "Self":
            self.awaited_returns[function_id] = awaited

    def add_go_result(self, function_id: str, result: str) -> None:
        """Go: `func f() *T` / `(T, error)`: what `x := f()` holds; `([]byte, Segment)`: the rows `[i]` of each
        result, what `a, b := f()` binds to b (`_item_rows`)."""
        self.classes.setdefault(function_id, None)
        items = go_results(result)
        if items[0] is not None:
            self.stated_returns[function_id] = items[0]
        if any(x is not None for x in items[1:]):  # (the first is `x := f()`'s, read above: no row `[0]`)
            self.stated_items[function_id] = [None, *items[1:]]

    def add_return(self, function_id: str, value: Any, flowed: str | Chain | None = None) -> None:
        """`return value` / `yield value` in a function (a generator fixture yields its value). `flowed`: what
        the assignment reaching a returned local gives (extract.py `_py_flow`), read before the name's."""
        if value.type in _NO_VALUE:
            return  # `return None` beside `return K()` is Optional[K]: the K is still what calls get
        if self.python:  # `return A(..), B(..)`: each item (a returned local, `return t`, is no tuple read)
            literal = flowed is None and value.type in ("expression_list", "tuple")
            listed = [c for c in value.named_children if c.type != "comment"] if literal else []
            plain = listed and all(c.type not in ("list_splat", "parenthesized_list_splat") for c in listed)
            found = [chain_of(c) for c in listed] if plain else None
            self.returned_items.setdefault(function_id, []).append(found)
        if isinstance(flowed, str):
            flowed = (False, ":" + flowed, ())  # (a type expression already: `:` reads it as written)
        if self.python and flowed is None and value.type == "identifier" and function_id not in self.binding_lines:
            fn = _enclosing_def(value)
            self.binding_lines[function_id] = assign_lines(fn.text.decode("utf-8", "replace")) if fn else {}
        self.returns.setdefault(function_id, []).append(flowed or chain_of(value))

    def add_overload(self, function_id: str, params: Any) -> None:
        """An `@overload` of a module-level function: its first parameter's annotation, as written (None when
        it states none), in the order of the overloads."""
        first = next((p for p in params.named_children if p.type != "comment"), None)
        typ = first.child_by_field_name("type") if first is not None else None
        written = _node_text(typ) if first is not None and typ is not None and first.type.startswith("typed") else None
        self.overloads.setdefault(first_definition(function_id), []).append((function_id, written))

    def add_fixture_params(self, function_id: str, names: list[str]) -> None:
        if names:
            self.fixtures[function_id] = set(names)

    def add_fixture(self, function_id: str, name: str, returns: str | None) -> None:
        """A pytest fixture function, the name pytest registers it under and its stated result: the value
        a test's parameter of that name gets (type_rows' `@name` row, which the graph looks up)."""
        self.fixture_defs[function_id] = (name, returns)

    def _fixture(self, name: str, function_id: str) -> str:
        """`@name`: the fixture a parameter `name` gets; `@<name` when the function is itself the fixture
        `name` (it overrides one further up: pytest gives it that one, not itself)."""
        own = self.fixture_defs.get(function_id)
        return "@<" + name if own is not None and own[0] == name else "@" + name

    def add_ts_object_result(self, name: str, result: str) -> None:
        """TypeScript: a module-level function's inline object result (`f(): {high: Long}`)."""
        members = result_members(result)
        if members:
            self.object_results[name] = members

    def shaped(self, typ: str | None, depth: int = 0) -> str | None:
        """`typ` with a head that is an object shape's member read (`=f#high...`, `{<byte>#high...`) replaced by
        that member's type (None: a member it lacks or does not type)."""
        for _ in range(MAX_DEPTH + 1):
            if typ is None or not typ.startswith(("{", "=")):
                return typ
            head, _, rest = typ.partition("#")
            prop, _, more = rest.partition("#")
            if not prop:
                return typ  # (the shape itself: its member read may follow; `{<byte>` is never emitted)
            if head.startswith("{"):
                local = self.object_locals.get(head)
                chain = local[1].get(prop) if local is not None and prop else None
                value = self._expr(chain, local[0], depth + 1) if chain is not None and local is not None else None
            else:
                name = head[1:].partition("?")[0]
                members = self.object_results.get(name) if name not in self.imported else None
                if members is None:
                    return typ
                value = members.get(prop)
            if value is None or depth >= MAX_DEPTH:
                return None
            typ = f"{value}#{more}" if more else value
        return None  # (shapes within shapes past MAX_DEPTH)

    def expr(self, chain: Chain, function_id: str | None, depth: int = 0) -> str | None:
        """The type expression of `chain` read in `function_id` (None: at module level)."""
        found = self._expr(chain, function_id, depth)
        return self.shaped(found, depth) if self.object_locals or self.object_results else found

    def _expr(self, chain: Chain, function_id: str | None, depth: int = 0) -> str | None:
        called, root, steps = chain
        cls = self.classes.get(function_id) if function_id else None
        if called:
            root, _, argument = root.partition("?")  # (`f(arg)`: what the first argument is, for overloads)
            if root == "cls" and cls:
                return join("Self", steps)
            if function_id is not None and self.python and root in self.chains.get(function_id, ()):
                # calling a local: not the module's `F`; an instance made by a call is its class's `__call__`
                # (`g = pp.Group(x)`; `g("name")`), a plain function's result may be a class (`F = make_form()`)
                if (function_id, root) in self.decorated:
                    return None
                return self._called_value(self.chains[function_id][root], function_id, steps, depth)
            if not self.python and not self.package_scope and self._ts_bound(root, function_id):
                return None  # (TypeScript: calling a parameter or local, not the module's function of that name)
            made = self.class_params.get(function_id, {}).get(root) if function_id is not None else None
            if made is not None:  # `maker(...)` with `maker: type[K]`: a K
                return join(made, steps)
            if function_id is not None and self.python:
                param = self._called_param(root, function_id)
                if param is not None:  # a parameter shadows the function of that name: its type's `__call__`
                    return join(param, ("__call__()", *steps)) if param else None
            if (
                self.python
                and root in self.module_chains
                and root not in self.module_stated
                and (None, root) not in self.decorated
                and (function_id is None or not self.local_binds(function_id, root))
                and (value := self._called_value(self.module_chains[root], None, steps, depth)) is not None
            ):  # (a module-level instance called, `greet = Word(a)`; `greet("x")`: as a local above; any other
                # value, an alias of a class or function, a factory's result, is read as before: `=greet`)
                return value
            # a class's constructor or a function's result: the graph tells (an overload's by the argument)
            # (a class's constructor is no overload: `K("x")` stays `=K`)
            picked = self._argument(argument, function_id) if not is_class_name(root) else ""
            return join("=" + root + picked, steps)
        if root == "this" and self.this_types and (stated := self.this_type(function_id)) is not None:
            return join(stated, steps)
        if root in self.own_roots():
            if self.package_scope:  # Go: the receiver's type by its name (its methods may sit in other files)
                return join(cls, steps) if cls else None
            return join("Self", steps) if cls else None
        if root.startswith(":"):  # `x as K`: the type the code states
            return join(root[1:], steps)
        if root.startswith("{"):  # a `const` local's object literal: its members are read by `shaped`
            return join(root, steps)
        dotted = [root, *steps]
        # (a parameter or local named like an imported module shadows it: `def load_tests(loader, ...)`
        # beside the package's submodule `loader`)
        shadowed = function_id is not None and self.local_binds(function_id, root)
        for k in range(0 if shadowed else min(len(steps), 3), 0, -1):  # `flask.g.x`, `os.path.join()`
            alias = ".".join(dotted[:k])
            if alias in self.module_aliases:
                member, rest = dotted[k], dotted[k + 1 :]
                if member.endswith(("()", "()await")):  # (`await mod.f()`: f's result, as an async def's)
                    return join("=" + alias + "." + member.rpartition("(")[0], rest)
                return join("^" + alias + "." + member, rest)
        head = self._root(root, function_id, depth)
        return join(head, steps) if head else None

    def _called_value(
        self, bound: Chain | None, function_id: str | None, steps: tuple[str, ...], depth: int
    ) -> str | None:
        """Python: what calling a name bound to `bound` gives: its class's `__call__` when the value is an
        instance, an operator's result (`a + b`) or a capitalised class's constructor (`Word(a)`,
        `pp.Group(x)`); None otherwise (a function's or method's result may be a class, `F = make_form()`; a
        plain name may be one, `F = Form`)."""
        if bound is None or depth >= MAX_DEPTH:
            return None
        called, root, made = bound
        constructed = called and not made and is_class_name(root.partition("?")[0])
        # (an operator's result, or a capitalised class's constructor `pp.Group(...)`; not a method's result,
        # an item or a call's result, which may be a class or a function: `cls = self._registry[name]`,
        # `self.get_class()`, `f = functools.lru_cache()(f)`, ctypes' `PYFUNCTYPE(...)(addr)`)
        last = made[-1] if made else ""
        if not constructed and last not in DUNDER_STEPS and not _CONSTRUCTOR.fullmatch(last):
            return None
        head = self.expr(bound, function_id, depth + 1)
        return join(head, ("__call__()", *steps)) if head else None

    def canonical(self, written: str) -> str | None:
        """Python: the module-qualified name a written class name means in this file (`time` with `from datetime
        import time`: `datetime.time`; `int`: `builtins.int`); None when the file does not say."""
        first, dot, rest = written.partition(".")
        if first in self.import_from:
            return self.import_from[first] + dot + rest
        if dot and first in self.module_of:
            return self.module_of[first] + dot + rest
        if not dot and written in BUILTINS and written not in self.module and written not in self.module_chains:
            return "builtins." + written
        return None

    def _argument(self, argument: str, function_id: str | None) -> str:
        """`?<class>` for a call's first argument of a known class (`overloads.argument_of`'s reading), read
        where the call is; "" when unknown. (`.` is written `:` so that the graph's dotted names stay whole.)"""
        if not argument or not self.python:
            return ""
        kind, name = argument[0], argument[1:]
        own = self.chains.get(function_id, {}) if function_id else {}
        params = self.param_names.get(function_id, "") if function_id else ""
        if kind == "$":  # a local bound to one constructed value (`value = datetime(...)`; `item(value)`)
            bound = self.locals.get(function_id, {}).get(name) if function_id else None
            if not bound or _binds(params, name) or name in self.declared.get(function_id or "", ()):
                return ""
            kind, name = "=", bound.lstrip("=")
        if kind == "=":
            if name.partition(".")[0] in own or _binds(params, name.partition(".")[0]):
                return ""  # (a local or parameter named like the class: not the class)
            known = self.canonical(name)
        else:
            known = argument
        return "?" + known.replace(".", ":") if known in ACCEPTED_BY else ""

    def _called_param(self, name: str, function_id: str) -> str | None:
        """Python: when `name` is a parameter of the function (or of one around it, for a closure), its
        stated class ("" when it states none); None when no function around binds it as a parameter."""
        fid: str | None = function_id
        for _ in range(MAX_DEPTH):
            if fid is None:
                return None
            if _binds(self.param_names.get(fid, ""), name):
                if name in self.fixtures.get(fid, ()):  # calling the value pytest passes: the fixture's
                    return self._fixture(name, fid)
                return self.params.get(fid, {}).get(name) or ""
            if name in self.chains.get(fid, {}):
                return None  # a local of that function: its own value
            fid = self.outer.get(fid)
        return None

    def _ts_bound(self, name: str, function_id: str | None) -> bool:
        """TypeScript: `name` is a parameter or local of the function (or callback) or of one around it."""
        for _ in range(_MAX_CLOSURES + 1):
            if function_id is None:
                return False
            if name in self.params.get(function_id, ()) or name in self.chains.get(function_id, ()):
                return True
            if name in _own_params(self.param_names.get(function_id, "")):  # (not `_binds`: `(a: Long)` binds no Long)
                return True
            function_id = self.outer.get(function_id)
        return True  # (past the bound: not known to be the module's)

    def _root(self, name: str, function_id: str | None, depth: int) -> str | None:
        # A closure reads the names of the functions around it: up `outer`, at most _MAX_CLOSURES functions (a
        # walk of its own, not `depth`'s budget for locals defined through locals: sharing it lost ajv's `gen`
        # from the fourth nested callback on); past that, nothing (not a module-level name of that name)
        inside = function_id is not None
        for hops in range(_MAX_CLOSURES + 1):
            if function_id is None:
                break
            is_param = _binds(self.param_names.get(function_id, ""), name)
            chains = self.chains.get(function_id, {})
            if name in self.params.get(function_id, {}):  # a stated type holds for every use
                if name in self.go_ranged.get(function_id, ()):
                    return None  # (Go: also a range variable: a func literal's parameter `f` beside `range`'s `f`)
                return self.params[function_id][name] or None
            if name in chains and not is_param:
                chain = chains[name]
                if chain is None or depth >= MAX_DEPTH:
                    return None
                return self.expr(chain, function_id, depth + 1)
            if name in self.fixtures.get(function_id, ()):
                return self._fixture(name, function_id)
            if is_param:
                around = self.outer.get(function_id)
                default = self.name_defaults.get(function_id, {}).get(name)
                if default is not None and around is not None and depth < MAX_DEPTH:
                    # `def hook(v, _c=converter)` in a function taking `converter: K`: the default is read where
                    # the def is, as a closure reads it (not for a module-level def: what a checker makes of a
                    # module name's default is its declared type, which this does not read)
                    return self._root(default, around, depth + 1)
                # `maker: type[K]`: a member read through the class object is K's (`maker.create()`)
                return self.class_params.get(function_id, {}).get(name)
            outer = self.outer.get(function_id)
            if outer is not None and hops == _MAX_CLOSURES:
                return None
            function_id = outer
        if "~" in name:
            return None  # (Go: a block's local not bound here, or one whose declaration is not known)
        if name in self.object_consts:
            return "^" + name
        if name in self.module_stated:
            return self.module_stated[name]
        if name in self.module_chains:
            chain = self.module_chains[name]
            return None if chain is None or depth >= MAX_DEPTH else self.expr(chain, None, depth + 1)
        in_package = self.package_scope and inside and name not in self.module_aliases
        if name in self.imported or in_package:
            return "^" + name
        return name if is_class_name(name) and _DOTTED.fullmatch(name) else None

    def type_rows(self, class_ids: dict[str, str]) -> list[tuple[str | None, str | None, str]]:
        """(owner, name, expression): a function's result (owner its id, no name), a class's attribute
        (owner the class id), a module-level name (no owner)."""
        rows: list[tuple[str | None, str | None, str]] = []
        results_by_id: dict[str, str] = {}
        for fid, cls in self.classes.items():
            expr = self.stated_returns.get(fid)
            if expr is None and fid in self.returns and self._gives_returns(fid):
                # joined as a checker joins them: every `return` of one class gives it (`return None`
                # dropped when read), two different ones or one not read give nothing
                results = {self._returned(c, fid) for c in self.returns[fid]}
                expr = results.pop() if len(results) == 1 else _joined(results) if self.python else None
            if expr is not None and (expr != "Self" or cls):
                results_by_id[fid] = expr
        # Overloads (`@overload def item(v: bool) -> Bool` ... `-> Integer`) and redefinitions are one function
        # to a call (``first_definition``): a checker picks the result by the arguments' types, which this pass
        # does not know, so names whose definitions state different results give none (no certain answer).
        results_of: dict[str, set[str]] = {}
        for fid, expr in results_by_id.items():
            results_of.setdefault(first_definition(fid), set()).add(expr)
        agreed = ((fid, expr) for fid, expr in results_by_id.items() if len(results_of[first_definition(fid)]) == 1)
        rows.extend((fid, None, expr) for fid, expr in agreed)
        # ... except by the first argument's class, as a checker picks an overload (`?<class>` rows, the row a
        # call `=f?<class>` reads)
        for first, listed in self.overloads.items():
            if len(results_of.get(first, ())) < 2:
                continue
            firsts = [written for _, written in listed]
            for argument in ACCEPTED_BY:
                i = pick(firsts, argument, self.canonical)
                picked = results_by_id.get(listed[i][0]) if i is not None else None
                if picked is not None and picked != "Self":
                    rows.append((first, "?" + argument.replace(".", ":"), picked))
        rows.extend(self._item_rows())
        # What awaiting a call gives (a step `m()await`): an async def's result, a stated awaitable's argument
        # (TypeScript: awaiting any other result gives it, an async method's inferred one too; a bare Promise nothing)
        script = not self.python and not self.package_scope
        awaited = {
            fid: expr
            for fid, expr in results_by_id.items()
            if fid in self.async_functions
            or (script and _PROMISES.isdisjoint(expr.split("|")) and expr not in _SCRIPT_VALUES)
        }
        awaited.update(self.awaited_returns)
        awaited_of: dict[str, set[str]] = {}
        for fid, expr in awaited.items():
            awaited_of.setdefault(first_definition(fid), set()).add(expr)
        rows.extend((fid, AWAITED, e) for fid, e in awaited.items() if len(awaited_of[first_definition(fid)]) == 1)
        for fid, (name, stated) in self.fixture_defs.items():
            # (a stated result holds even when it names nothing this reads, `-> Any`: a checker stops there)
            value = fixture_value_type(stated) if stated is not None else results_by_id.get(fid)
            if value is not None and value != "Self":
                rows.append((fid, "@" + name, value))
        for cls, attrs in self.attrs.items():
            owner = class_ids.get(cls)
            if owner is not None:
                twice = repeated_members(self.member_counts.get(cls)) if cls in self.object_groups else set()
                rows.extend((owner, name, typ) for name, typ in attrs.items() if typ and name not in twice)
        rows.extend(group_rows(self.object_groups, self.member_counts, class_ids))
        for cls, held in self.attr_classes.items():
            owner = class_ids.get(cls)
            if owner is None:
                continue
            # (an attribute also assigned an instance or anything else is no class object for certain)
            other = self.attrs.get(cls, {}).keys() | self.attr_chains.get(cls, {}).keys()
            rows.extend((owner, name, k) for name, k in held.items() if k and name not in other)
        for cls, chained in self.attr_chains.items():
            owner = class_ids.get(cls)
            if owner is None:
                continue
            for name, found in chained.items():
                if found is None or name in self.attrs.get(cls, {}):
                    continue  # two different values, or a stated type beside an inferred one
                expr = self.expr(found[1], found[0])
                if expr is not None:
                    rows.append((owner, name, expr))
        for cls, valued in self.class_chains.items():
            owner = class_ids.get(cls)
            if owner is None:
                continue
            # (a name the class body binds is the class's own there, not the module's: `number = real | ...`
            # with `real = ...` above it is left alone, as is an attribute also stated or assigned elsewhere)
            elsewhere = self.attrs.get(cls, {}).keys() | self.attr_classes.get(cls, {}).keys()
            own = valued.keys() | elsewhere
            for name, chain in valued.items():
                if chain is None or name in elsewhere or name in self.attr_chains.get(cls, {}):
                    continue
                if chain[1].partition("?")[0] in own:
                    continue
                expr = self.expr(chain, None)
                if expr is not None:
                    rows.append((owner, name, expr))
        for fid, params in self.callbacks.items():
            rows.extend((fid, key, typ) for key, typ in params.items())
        rows.extend((None, key, expr) for key, expr in self.contexts.items())
        names = set(self.module_stated) | set(self.module_chains)
        for name in sorted(names):
            expr = self._root(name, None, 0) if name not in self.imported else None
            if expr is not None and not expr.startswith("^"):
                rows.append((None, name, expr))
        if self.python:
            rows.extend(self._alias_rows())
            rows.extend(self._identity_rows(class_ids))
            for cls, aliased in self.member_aliases.items():
                owner = class_ids.get(cls)
                if owner is not None:  # (the row `=alias`: calling the alias calls the member it names)
                    # (an attribute of that name assigned anywhere in the file, `ParserElement._parse =
                    # ParserElement._parseCache`, `self._parse = breaker`: bound twice, no alias for certain)
                    aliases = aliased.items()
                    rows.extend((owner, "=" + n, t) for n, t in aliases if t and n not in self.rebound_attrs)
        if self.object_locals:  # (a local object literal is no name the graph can read)
            rows = [row for row in rows if not row[2].startswith("{")]
        return rows

    def _identity_rows(self, class_ids: dict[str, str]) -> list[tuple[str | None, str | None, str]]:
        """Python: a generic identity's row `=arg` (k), and `=name` rows (`callee(k)arg`) of each name bound once
        to a call passing plain names, which the graph joins (`generic_identity.py`). Only names the module
        binds once: a type variable, a function defined once, a callee and an argument it does not rebind."""
        rows: list[tuple[str | None, str | None, str]] = []
        firsts: dict[str, int] = {}
        for fid in self.classes:
            firsts[first_definition(fid)] = firsts.get(first_definition(fid), 0) + 1
        for fid, (tv, k, own) in self.identities.items():
            once = tv not in self.imported and tv not in self.module_stated and self.module_chains.get(tv) is not None
            if (own or (tv in self.typevars and once)) and firsts.get(first_definition(fid)) == 1:
                rows.append((fid, IDENTITY_ROW, str(k)))
        rebound = self.module_chains.keys() | self.module_stated.keys()  # (a value the module binds)
        for name, passed in sorted(self.identity_calls.items()):
            if passed and name not in self.imported and name not in self.module_stated:
                if self.module_chains.get(name) is None:
                    continue
                rows.extend(
                    (None, "=" + name, f"{f}({k}){a}") for f, k, a in passed if a not in rebound and f not in rebound
                )
        for cls, table in self.member_identity_calls.items():
            owner = class_ids.get(cls)
            if owner is None:
                continue
            elsewhere = (
                self.attrs.get(cls, {}).keys()
                | self.attr_classes.get(cls, {}).keys()
                | self.attr_chains.get(cls, {}).keys()
            )
            for name, passed in sorted(table.items()):
                if not passed or name in elsewhere or name in self.rebound_attrs:
                    continue
                if self.class_chains.get(cls, {}).get(name) is None:
                    continue  # (bound twice in the body, or to no call)
                bound = table.keys() | self.member_aliases.get(cls, {}).keys()
                rows.extend(
                    (owner, "=" + name, f"{f}({k}){a}")
                    for f, k, a in passed
                    if a not in bound and f not in rebound and f not in bound
                )
        return rows

    def _item_rows(self) -> list[tuple[str | None, str | None, str]]:
        """Python: the rows `[i]` of a function whose result is a tuple, stated or returned (every `return`
        a tuple literal of the same length, each position's items of one reading): what `a, b = f()` binds
        to a and b, as a checker unpacks `tuple[A, B]`. An async def or a generator gives none (its call is
        a coroutine or a generator); definitions of one name (overloads, redefinitions) must agree."""
        items_by_id: dict[str, list[str | None]] = {}
        for fid, cls in self.classes.items():
            if fid in self.async_functions or fid in self.generators:
                continue
            items = self.stated_items.get(fid)
            if items is None and fid not in self.annotated and fid in self.returned_items:
                listed = [x for x in self.returned_items[fid] if x is not None]
                if len(listed) != len(self.returned_items[fid]) or len({len(x) for x in listed}) != 1:
                    continue  # (a `return` of no tuple literal, or tuples of different lengths)
                items = []
                for i in range(len(listed[0])):
                    read = {self.expr(c, fid) if (c := x[i]) is not None else None for x in listed}
                    items.append(read.pop() if len(read) == 1 else None)
            if items is not None:
                items_by_id[fid] = [x if x is not None and (x != "Self" or cls) else None for x in items]
        items_of: dict[tuple[str, int], set[str | None]] = {}
        for fid, items in items_by_id.items():
            for i, x in enumerate(items):
                items_of.setdefault((first_definition(fid), i), set()).add(x)
        rows: list[tuple[str | None, str | None, str]] = []
        for fid, items in items_by_id.items():
            for i, x in enumerate(items):
                if x is not None and len(items_of[(first_definition(fid), i)]) == 1:
                    rows.append((fid, f"[{i}]", x))
        return rows

    def _returned(self, chain: Chain | None, fid: str) -> str | None:
        """A `return`'s expression; for a local bound several times (Python), the union `A|B` its
        assignments make (`joined_local`)."""
        expr = self.expr(chain, fid) if chain is not None else None
        if expr is None and chain is not None and self.python and not chain[0] and not chain[2]:
            expr = self.joined_local(fid, chain[1])
        return expr

    def joined_local(self, fid: str, name: str) -> str | None:
        """Python: `A|B` when every binding of the local `name` in the function is a plain assignment of a
        call of a capitalised module-level name (`macro = Transformed(...)` in a `try`, `macro =
        Restreamed(...)` in its `except`), as a checker joins a local's reaching assignments (all of them: a
        superset of the ones reaching a use, which the graph only trusts when every class agrees); None when
        it is a parameter, bound any other way, or once."""
        made = self.made_locals.get((fid, name))
        if not made or len(made) < 2 or (fid, name) in self.other_binds or None in made:
            return None
        if name in _own_params(self.param_names.get(fid, "")) or len(set(made)) < 2:
            return None
        if self.binding_lines.get(fid, {}).get(name) != (len(made), 0):
            return None  # (bound by a line the sweep does not read as an assignment: a walrus, `global`, a def)
        return "|".join(sorted({m for m in made if m is not None}))

    def _gives_returns(self, fid: str) -> bool:
        """Whether a call of the function gives what its `return`s (and `yield`s) say: not a generator's, whose
        call makes a generator, save a pytest fixture's (the test gets what it yields) and a `@contextmanager`'s
        (`with f() as v` binds what it yields)."""
        return fid not in self.generators or fid in self.fixture_defs or fid in self.context_managers

    def _unaliased(self, chain: Chain) -> Chain | None:
        """A chain of aliases in one module followed to its end (`A = B; C = A`: C's is B's), at most MAX_DEPTH
        names; None when a name on the way is bound twice or to something that is no plain name."""
        for _ in range(MAX_DEPTH):
            if chain[0] or chain[2] or chain[1] not in self.module_chains or chain[1] in self.imported:
                return chain
            ahead = self.module_chains[chain[1]]
            if ahead is None or ahead[0] or chain[1] in self.module_stated:
                return chain  # (a value the module computes: left to the check below)
            chain = ahead
        return None

    def _alias_rows(self) -> list[tuple[str | None, str | None, str]]:
        """Python: a module-level `Alias = Name` (a plain or dotted name, bound once) is what `Name` is, as a
        checker reads it: the class object of a class (`Alias.attr` its attribute; the graph reads `^Name` as
        the class), and calling it calls `Name` (the row `Alias()`: `=Name`, a class's constructor or a
        function's result)."""
        rows: list[tuple[str | None, str | None, str]] = []
        for name, bound in sorted(self.module_chains.items()):
            if bound is None or bound[0] or name in self.imported or name in self.module_stated:
                continue
            chain = self._unaliased(bound)
            if chain is None or any(not _NAME_STEP.fullmatch(step) for step in chain[2]):
                continue  # (a call or an index on the right: a value, not an alias)
            root = chain[1]
            if not chain[2] and root not in self.module_chains and root not in self.module_stated:
                # (the row `=Alias`: a call of the alias is a call of the function or class it names, which
                # the graph lists among that one's callers; a name of the file or one it imports)
                rows.append((None, "=" + name, root))
            if root in self.module_chains or root in self.module_stated or root in ("self", "cls"):
                continue  # (a value the module binds: calling it is its `__call__`, not a constructor)
            expr = self.expr(chain, None)
            if expr is not None and root in self.imported and len(chain[2]) == 1 and is_class_name(chain[2][0]):
                # (`from pyfakefs import fake_file`; `FakeFile = fake_file.FakeFile`: the class of the module
                # imported, as `import m` reads `m.K`; the graph keeps it only if it is a class)
                expr = "^" + root + "." + chain[2][0]
            if expr is None and not chain[2]:
                expr = root  # (a function of the file, `countedArray = counted_array`: the graph decides)
            if expr is None or "#" in expr:
                continue  # (a member of a value: calling it is its `__call__`, left alone)
            if expr.startswith("^"):
                rows.append((None, name, expr))
            rows.append((None, name + "()", "=" + expr.lstrip("^=")))
        return rows


def _ts_recipe(tp: str, own: list[str], listed: list[Any], i: int, fn: Any, *, result: str | None) -> str:
    """Where a call takes the type parameter `tp` of the function from, in the compiler's order (a call
    site's `ts_call_context` names the same sources): `%t<p>` an explicit type argument (`f<K>(...)`, p the
    parameter's position), then the arguments: `a<k>` the value of argument k when parameter k is `tp`
    itself, `u<k>` when parameter k mentions `tp` otherwise (an inference this does not follow: when the
    call passes argument k, nothing is known); last `r:<R>:<q>` (or `r`) the type the call's value is
    declared with (`const x: R<K> = f(...)`) when f's result is `R<..., tp, ...>` (or `tp`). The first kind
    of source the call has decides (the graph's type_eval.py: arguments it passes must all agree)."""
    word = re.compile(rf"(?<![\w$.]){re.escape(tp)}(?![\w$])")
    sources = [f"t{own.index(tp)}"]
    ret = fn.child_by_field_name("return_type")
    if ret is not None and word.search(_node_text(ret)):
        sources.append(f"u{i}")  # the callback's own result: inferred from what it returns
    for k, param in enumerate(listed):
        typ = param.child_by_field_name("type")
        written = _node_text(typ).lstrip(":").strip() if typ is not None else ""
        if k == i or not word.search(written):
            continue
        pattern = param.child_by_field_name("pattern")
        plain = [p for p in _union_words(written) if p not in ("undefined", "null")]
        exact = plain == [tp] and pattern is not None and pattern.type != "rest_pattern"
        sources.append(f"a{k}" if exact else f"u{k}")
    stated = (result or "").lstrip(":").strip()
    if stated == tp:
        sources.append("r")
    elif word.search(stated):
        args = type_args(stated)
        base = stated.split("<", 1)[0].strip().rpartition(".")[2]
        if args is not None and tp in args and base.replace("$", "_").isidentifier():
            sources.append(f"r:{base}:{args.index(tp)}")
    return "%" + ",".join(sources)


def _union_words(written: str) -> list[str]:
    return [p.strip() for p in written.split("|")]


def _ts_params(params: Any) -> list[Any]:
    """A TypeScript parameter list's positional parameters (a `this:` parameter is not one)."""
    out = []
    for child in params.named_children:
        if child.type in ("required_parameter", "optional_parameter"):
            pattern = child.child_by_field_name("pattern")
            if pattern is not None and pattern.type != "this":
                out.append(child)
    return out


def _node_text(node: Any) -> str:
    data: bytes = node.text
    return data.decode("utf-8", "replace")
