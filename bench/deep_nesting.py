"""Growth of the scan's CPU with nesting depth, per shape and grammar: the hostile-input check of issue 21.

    nice -n 10 uv run python bench/deep_nesting.py [--low 100] [--high 800] [--only SHAPE]

Each shape is generated here (no corpus): `scan_bytes` (what a build's workers run) is timed at `--low`
and `--high` nesting levels, best of 3 CPU with the cyclic GC off; the ratio is printed beside the ratio of
the input's bytes (linear time grows like the bytes; a nested `if` needs an indentation per level, so its
bytes grow like the square of the levels).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

# the growth checks' timer (best of 3 CPU, the cyclic GC off), shared with code-scan's tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages/code/code-scan/tests"))
from cpu_timing import best_cpu_s


def _py_if(n: int) -> str:
    return "".join(" " * i + "if x:\n" for i in range(n)) + " " * n + "f()\n"


def _py_nest(n: int, head: str, body: str) -> str:
    return "def f(k: K):\n" + "".join(" " * i + f" {head}\n" + " " * i + f"  {body}\n" for i in range(n))


SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "py-if": ("python", _py_if),
    "py-if-calls": (
        "python",
        lambda n: "def f(k: K):\n" + "".join(" " * i + " if k:\n" + " " * i + "  k.m()\n" for i in range(n)),
    ),
    "py-isinstance": (
        "python",
        lambda n: (
            "def f(k: K):\n" + "".join(" " * i + " if isinstance(k, A):\n" + " " * i + "  k.m()\n" for i in range(n))
        ),
    ),
    "py-isinstance-flat": ("python", lambda n: "def f(k: K):\n" + " if isinstance(k, A):\n  k.m()\n" * n),
    "py-if-calls-flat": ("python", lambda n: "def f(k: K):\n" + " if k:\n  k.m()\n" * n),
    "ts-if-calls": (
        "typescript",
        lambda n: "function f(k: K) {\n" + "if (k instanceof A) { k.m();\n" * n + "}\n" * n + "}\n",
    ),
    "py-call-flat": ("python", lambda n: "x = f(1)\n" * n),
    "ts-callback-flat": ("typescript", lambda n: "g((x) => {\n});\n" * n),
    "py-call": ("python", lambda n: "x = " + "f(" * n + "1" + ")" * n + "\n"),
    "py-list": ("python", lambda n: "x = " + "[" * n + "]" * n + "\n"),
    "py-dict": ("python", lambda n: "x = " + "{1: " * n + "1" + "}" * n + "\n"),
    "py-paren": ("python", lambda n: "x = " + "(" * n + "1" + ")" * n + "\n"),
    "py-lambda": ("python", lambda n: "x = " + "lambda a: " * n + "a\n"),
    "py-def": ("python", lambda n: "".join(" " * i + "def f(a):\n" for i in range(n)) + " " * n + "a()\n"),
    "py-class": ("python", lambda n: "".join(" " * i + "class A:\n" for i in range(n)) + " " * n + "x = 1\n"),
    "ts-sibling-callbacks": ("typescript", lambda n: "function f() {\n" + "g((x) => { x(); });\n" * n + "}\n"),
    "ts-function": ("typescript", lambda n: "function f(a: A) {\n" * n + "}\n" * n),
    "ts-callback": ("typescript", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "js-callback": ("javascript", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "tsx-callback": ("tsx", lambda n: "g((x) => {\n" * n + "});\n" * n),
    "ts-array": ("typescript", lambda n: "const x = " + "[" * n + "]" * n + ";\n"),
    "ts-object": ("typescript", lambda n: "const x = " + "{a: " * n + "1" + "}" * n + ";\n"),
    "js-paren": ("javascript", lambda n: "const x = " + "(" * n + "1" + ")" * n + ";\n"),
    "js-call": ("javascript", lambda n: "const x = " + "f(" * n + "1" + ")" * n + ";\n"),
    "go-funclit": ("go", lambda n: "package p\nfunc f() {\n" + "g(func() {\n" * n + "})\n" * n + "}\n"),
    "go-paren": ("go", lambda n: "package p\nvar x = " + "(" * n + "1" + ")" * n + "\n"),
    "go-composite": ("go", lambda n: "package p\nvar x = " + "[]any{" * n + "}" * n + "\n"),
    "go-call": ("go", lambda n: "package p\nvar x = " + "f(" * n + "1" + ")" * n + "\n"),
    "rust-block": ("rust", lambda n: "fn f() " + "{ g();\n" * n + "}\n" * n),
    "rust-paren": ("rust", lambda n: "fn f() { let x = " + "(" * n + "1" + ")" * n + "; }\n"),
    "java-block": ("java", lambda n: "class A { void f() " + "{ g();\n" * n + "}\n" * n + "}\n"),
    "java-paren": ("java", lambda n: "class A { int x = " + "(" * n + "1" + ")" * n + "; }\n"),
    "c-block": ("c", lambda n: "void f(void) " + "{ g();\n" * n + "}\n" * n),
    "c-paren": ("c", lambda n: "int x = " + "(" * n + "1" + ")" * n + ";\n"),
    "cpp-block": ("cpp", lambda n: "void f() " + "{ g();\n" * n + "}\n" * n),
    "cpp-call": ("cpp", lambda n: "int x = " + "f(" * n + "1" + ")" * n + ";\n"),
    # nesting the bracket scan cannot see (out of step after a template in a template's `${...}`, or after a
    # regex literal holding `/*`), and depth with no brackets: the tags query's limits bound these
    "ts-template-calls": ("typescript", lambda n: "const s = `${f(``) + " + "g(" * n + "1" + ")" * n + "}`;\n"),
    "ts-template-callbacks": (
        "typescript",
        lambda n: "const s = `${f(``) + " + "f(() => " * n + "1" + ")" * n + "}`;\n",
    ),
    "ts-regex-callbacks": (
        "typescript",
        lambda n: "const r = /[/*]/;\nconst s = " + "f(function (a) { return " * n + "1" + "; })" * n + "; // */\n",
    ),
    "ts-operator-chain": ("typescript", lambda n: "const x = " + " + ".join(["a"] * n) + ";\n"),
    "py-operator-chain": ("python", lambda n: "x = " + " + ".join(["a"] * n) + "\n"),
    "py-call-chain": ("python", lambda n: "x = a" + "()" * n + "\n"),
}


def main() -> int:
    from ctxops_code_scan.scan import scan_bytes

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--low", type=int, default=100)
    ap.add_argument("--high", type=int, default=800)
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    for name, (lang, make) in SHAPES.items():
        if args.only and name not in args.only:
            continue
        row: dict[str, object] = {"shape": name}
        times = []
        sizes = []
        for n in (args.low, args.high):
            data = make(n).encode()
            sizes.append(len(data))
            times.append(best_cpu_s(lambda d=data, lg=lang: scan_bytes("m", lg, d, size=len(d), mtime_ns=0)))
        res = scan_bytes("m", lang, make(args.high).encode(), size=0, mtime_ns=0)
        row.update(
            low_s=round(times[0], 4),
            high_s=round(times[1], 4),
            cpu_x=round(times[1] / max(times[0], 1e-6), 1),
            bytes_x=round(sizes[1] / sizes[0], 1),
            status=res.file.parse_status,
        )
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
