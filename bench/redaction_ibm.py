"""The twelfth held-out redaction corpus named in ``bench/heldout_redaction_s22.txt``: the tests of the seven
plugins IBM's fork of detect-secrets adds (Box, Cloudant, DB2, GitHub Enterprise, IBM Cloud IAM, IBM COS HMAC,
SoftLayer), read from the mirrored git directory at the named commit.

Each ``parametrize('payload, should_flag', ...)`` row (db2: ``'token, payload, should_flag'``) is a sample;
its payload is evaluated from the syntax tree (literals, ``+``, ``str.format``, module constants), nothing of
the file run. The secret of a true row is db2's token, else ``redaction_octarine.secret_of``.
"""

from __future__ import annotations

import ast
import subprocess
from typing import Any

from redaction_octarine import secret_of

IBM = ("/work/.mirror/IBM+detect-secrets/repo", "076672a9a01abdfc7ecee2e7d14f08cdccb73976")
FILES = ("box", "cloudant", "db2", "gh_enterprise", "ibm_cloud_iam", "ibm_cos_hmac", "softlayer")
_COLUMNS = {"payload, should_flag", "token, payload, should_flag"}


class _NotLiteral(Exception):
    pass


def _git(*args: str) -> str:
    gitdir, _ = IBM
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, check=True).stdout


def _eval(node: ast.expr, names: dict[str, Any]) -> Any:
    """A string expression of literals, ``+``, ``.format(...)`` and known names; raises otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool, bytes)):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _eval(node.left, names) + _eval(node.right, names)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not any(isinstance(a, ast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    ):
        base = _eval(node.func.value, names)
        if not isinstance(base, str):
            raise _NotLiteral
        args = [_eval(a, names) for a in node.args]
        return base.format(*args, **{str(k.arg): _eval(k.value, names) for k in node.keywords})
    raise _NotLiteral


def _constants(tree: ast.Module) -> dict[str, Any]:
    names: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                names[stmt.targets[0].id] = _eval(stmt.value, names)
            except (_NotLiteral, KeyError, IndexError, ValueError):
                names.pop(stmt.targets[0].id, None)
    return names


def _rows(tree: ast.Module) -> list[tuple[int, str, ast.expr]]:
    """(line, columns, row) of every parametrize decorator with the named columns."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "parametrize" or len(node.args) < 2:
            continue
        cols = node.args[0]
        if not (isinstance(cols, ast.Constant) and cols.value in _COLUMNS):
            continue
        table = node.args[1]
        if isinstance(table, (ast.List, ast.Tuple)):
            out += [(row.lineno, str(cols.value), row) for row in table.elts]
    return out


def ibm_samples(sample_type: Any) -> tuple[list[Any], list[str]]:
    _, commit = IBM
    samples: list[Any] = []
    skipped: list[str] = []
    for stem in FILES:
        tree = ast.parse(_git("show", f"{commit}:tests/plugins/{stem}_test.py"))
        names = _constants(tree)
        for line, cols, row in _rows(tree):
            fmt = f"{stem}_test/L{line}"
            try:
                values = [_eval(e, names) for e in row.elts] if isinstance(row, ast.Tuple) else []
            except (_NotLiteral, KeyError, IndexError, ValueError):
                values = []
            if len(values) != len(cols.split(", ")) or not all(isinstance(v, (str, bool)) for v in values):
                skipped.append(f"ibm:{fmt}")
                continue
            *head, flag = values
            text = head[-1]
            if not isinstance(text, str) or not text or not isinstance(flag, bool):
                skipped.append(f"ibm:{fmt}")
                continue
            if not flag:
                samples.append(sample_type("ibm", fmt, text, []))
                continue
            secret = head[0] if cols.startswith("token") else secret_of(text)
            if not isinstance(secret, str) or len(secret) < 8 or secret not in text:
                skipped.append(f"ibm:{fmt}")
                continue
            samples.append(sample_type("ibm", fmt, text, [secret]))
    return samples, skipped


if __name__ == "__main__":  # the reader's list, read before any run of the redactor
    from redaction_preview import preview

    preview(ibm_samples)
