# ruff: noqa: PTH103, PTH118, PTH120, PLW1510
# os.path and subprocess.run without check: a bench script that walks throw-away directories.
"""Redaction against an outside corpus: gitleaks' rules and trufflehog's detector tests, built at run time.

    uv run python bench/redaction_corpus.py --gitleaks /work/.mirror/gitleaks+gitleaks/repo \\
        --trufflehog /work/.mirror/trufflesecurity+trufflehog/repo [--channels N] [--json out.json]

Nothing of the corpus is committed: the samples are read from the two projects' git directories (``git
show HEAD:path``) each run. gitleaks: every rule function in ``cmd/generate/config/rules/*.go`` with its
true positives (``tps``) and false positives (``fps``); the Go expressions that build them (string
literals, ``+``, ``fmt.Sprintf``, ``utils.GenerateSampleSecrets``, ``secrets.NewSecret(<regex>)``,
base64) are evaluated here, with random parts drawn from a fixed seed. The secret of a true positive is
what the rule's own regex captures. trufflehog: every ``pkg/detectors/**/*_test.go`` case with an
``input`` and a ``want``: a case with wants is a true positive (each want's longest piece found in the
input is the secret), one with no wants a look-alike.

Formats (a gitleaks rule id or a trufflehog detector) are split in two halves by a seeded shuffle of
their names: ``dev`` (the rules were developed looking at its misses) and ``held-out`` (reported, not
looked at). Reported for each half: samples and formats whose secret survives ``redact()``; look-alikes
changed by ``redact()`` (%); placeholders kept (look-alikes holding ``EXAMPLE``, ``xxxx`` or a run of one
character). ``--channels N`` also pushes one sample of up to N formats per half through every hook
channel of the four adapters (prompt, command, output, file path, file content, MCP input and output),
``ctx mem add`` (body, title, --file, --scope, --source) and a transcript ingested by ``ctx ledger
ingest``, as real processes in a throw-away repository, and greps every file under ``.meta/`` and the
data directory (DuckDB files included) for each secret.

``--corpus fresh`` measures the corpus named in ``bench/heldout_redaction.txt`` instead (Nosey
Parker's and Kingfisher's rule examples, ``bench/redaction_fresh.py``), as one half named ``fresh``;
``--corpus semgrep`` the held-out corpus of ``bench/heldout_redaction_s11b.txt`` (semgrep-rules' annotated
secret tests, ``bench/redaction_semgrep.py``), as one half named ``semgrep``; ``--corpus secretlint`` the
held-out corpus of ``bench/heldout_redaction_s12.txt`` (secretlint's rule snapshots and ripsecrets' test data,
``bench/redaction_secretlint.py``), as one half named ``secretlint``; ``--corpus whispers`` the held-out
corpus of ``bench/heldout_redaction_s13.txt`` (Skyscanner/whispers' test fixtures,
``bench/redaction_whispers.py``), as one half named ``whispers``; ``--corpus ggeb`` the held-out corpus of
``bench/heldout_redaction_s14.txt`` (ggshield's recorded API answers and earlybird's rule examples,
``bench/redaction_ggeb.py``), as one half named ``ggeb``; ``--corpus trivy`` the held-out corpus of
``bench/heldout_redaction_s16.txt`` (trivy's secret scanner tests, ``bench/redaction_trivy.py``), as ``trivy``;
``--corpus 2ms`` the held-out corpus of ``bench/heldout_redaction_s17.txt`` (Checkmarx/2ms' rule tests,
``bench/redaction_2ms.py``), as ``2ms``; ``--corpus sonar`` the held-out corpus of
``bench/heldout_redaction_s18.txt`` (SonarSource/sonar-text's rule examples, ``bench/redaction_sonar.py``), as
``sonar``; ``--corpus ghcp`` the held-out corpus of ``bench/heldout_redaction_s19.txt`` (GitHub's custom
secret-scanning patterns' tests, ``bench/redaction_ghcp.py``), as ``ghcp``; ``--corpus octarine`` the held-out corpus
of ``bench/heldout_redaction_s20.txt`` (octarinesec/secret-detector's detector tests, ``bench/redaction_octarine.py``),
as ``octarine``; ``--corpus talisman`` the held-out corpus of ``bench/heldout_redaction_s21.txt``
(thoughtworks/talisman's detector tests, ``bench/redaction_talisman.py``), as ``talisman``; ``--corpus ibm`` the
held-out corpus of ``bench/heldout_redaction_s22.txt`` (the tests of IBM/detect-secrets' own plugins,
``bench/redaction_ibm.py``), as ``ibm``; ``--corpus bearer`` the held-out corpus of
``bench/heldout_redaction_s23.txt`` (the annotated tests of Bearer's credential rules, ``bench/redaction_bearer.py``),
as ``bearer``; ``--corpus sgcode`` the held-out corpus of ``bench/heldout_redaction_s24.txt`` (the annotated tests of
semgrep-rules' language rules for a literal credential, ``bench/redaction_sgcode.py``), as ``sgcode``.
``--peer redaction_peer:redact`` (with ``uv run --with detect-secrets``) measures detect-secrets on the same
samples in the same run, printed beside as ``peer <half>``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import string
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

SEED = 21
_PLACEHOLDER_WORD = re.compile(r"(?i)password|passwd|secret|changeme|example|placeholder|token|pass")
PLACEHOLDER = re.compile(r"EXAMPLE|[xX*]{4,}|(.)\1{7,}|your[_-]|<[^>]+>|\$\{")


@dataclass
class Sample:
    source: str  # gitleaks | trufflehog
    fmt: str  # rule id / detector name
    text: str
    secrets: list[str] = field(default_factory=list)  # empty: a look-alike


# --- a random string for a (Go) regular expression ------------------------------------------------------


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def secret(self, pattern: str) -> str:
        pattern = pattern.replace(r"\z", r"\Z")
        flags = 0
        if "(?i)" in pattern:
            pattern = pattern.replace("(?i)", "")
        try:
            tree = sre_parse.parse(pattern, flags)
        except Exception:
            raise ValueError(pattern) from None
        return self._seq(tree)

    def _seq(self, items: Any) -> str:
        return "".join(self._one(op, av) for op, av in items)

    def _charset(self, av: Any) -> str:
        chars: list[str] = []
        negate = False
        for op, val in av:
            name = str(op)
            if name == "NEGATE":
                negate = True
            elif name == "LITERAL":
                chars.append(chr(val))
            elif name == "RANGE":
                chars.extend(chr(c) for c in range(val[0], val[1] + 1))
            elif name == "CATEGORY":
                chars.extend(self._category(str(val)))
        if negate:
            chars = [c for c in string.ascii_letters + string.digits if c not in chars]
        return "".join(dict.fromkeys(chars)) or "a"

    @staticmethod
    def _category(name: str) -> str:
        if "DIGIT" in name:
            return string.digits
        if "WORD" in name:
            return string.ascii_letters + string.digits + "_"
        if "SPACE" in name:
            return " "
        return string.ascii_letters

    def _one(self, op: Any, av: Any) -> str:
        name = str(op)
        if name == "LITERAL":
            return chr(av)
        if name == "NOT_LITERAL":
            return "a" if chr(av) != "a" else "b"
        if name == "IN":
            return self.rng.choice(self._charset(av))
        if name == "ANY":
            return self.rng.choice(string.ascii_letters + string.digits)
        if name in {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}:
            low, high, sub = av
            high = min(high, low + 1) if high > 1000 else high
            return "".join(self._seq(sub) for _ in range(self.rng.randint(low, high)))
        if name == "SUBPATTERN":
            return self._seq(av[-1])
        if name == "BRANCH":
            return self._seq(self.rng.choice(av[1]))
        if name == "CATEGORY":
            return self.rng.choice(self._category(str(av)))
        return ""  # AT (anchors), assertions


# --- a tiny evaluator of the Go expressions the two projects build their samples with ------------------

_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|`[^`]*`|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\n|[A-Za-z_][A-Za-z0-9_.]*|\d+(?:\.\d+)?"
    r"|:=|\.\.\.|[{}()\[\],+=:;*&|<>!.-]",
    re.S,
)


def tokens(src: str) -> list[str]:
    return [t for t in _TOKEN.findall(src) if not t.startswith(("//", "/*"))]


def go_string(tok: str) -> str:
    if tok.startswith("`"):
        return tok[1:-1]
    body = tok[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b", "f": "\f"}
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "U":
            out.append(chr(int(body[i + 2 : i + 10], 16)))
            i += 10
        else:
            out.append(chr(int(body[i + 1 : i + 4], 8)))
            i += 4
    return "".join(out)


class Unknown(Exception):
    pass


def _sample_variants(ident: str, secret: str) -> list[str]:
    """gitleaks' GenerateSampleSecrets: the secret in the config and code forms it tests."""
    forms = [
        '{i}Token="{s}"',
        '{i}Token = "{s}"',
        "{i}Token={s}",
        "{i}Token = {s}",
        '{\n    "{i}_token": "{s}"\n}',
        '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
        "<{i}Token>\n    {s}\n</{i}Token>",
        "{i}_token: {s}",
        "{i}_token: '{s}'",
        '{i}_token: "{s}"',
        'string {i}Token = "{s}";',
        'var {i}Token string = "{s}"',
        '{i}Token := "{s}"',
        "{i}Token := `{s}`",
        'String {i}Token = "{s}";',
        'var {i}Token = "{s}"',
        '${i}Token .= "{s}"',
        "{i}Token = '{s}'",
        '{i}Token = "{s}"',
        'System.setProperty("{I}_TOKEN", "{s}")',
        '  "{i}Token" => "{s}"',
        '{i}_TOKEN = "{s}"',
        '{i}_TOKEN := "{s}"',
        '{i}_TOKEN ::= "{s}"',
        '{i}_TOKEN :::= "{s}"',
        '{i}_TOKEN ?= "{s}"',
    ]
    return [f.replace("{i}", ident).replace("{I}", ident.upper()).replace("{s}", secret) for f in forms]


class Eval:
    """Evaluates one Go function body's sample-building statements; unknown constructs raise Unknown."""

    def __init__(self, toks: list[str], gen: Gen, env: dict[str, Any] | None = None) -> None:
        self.t = toks
        self.i = 0
        self.gen = gen
        self.env: dict[str, Any] = dict(env or {})
        self.generated: list[str] = []  # random pieces drawn, for finding the secret in a sample

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ""

    def skip_nl(self) -> None:
        while self.peek() == "\n":
            self.i += 1

    def expect(self, tok: str) -> None:
        self.skip_nl()
        if self.peek() != tok:
            raise Unknown(f"expected {tok!r}, got {self.peek()!r}")
        self.i += 1

    def expr(self) -> Any:
        self.skip_nl()
        value = self.term()
        while True:
            j = self.i
            self.skip_nl()
            if self.peek() == "+":
                self.i += 1
                right = self.term()
                if not isinstance(value, str) or not isinstance(right, str):
                    raise Unknown("+ of non-strings")
                value = value + right
            else:
                self.i = j
                return value

    def args(self) -> list[Any]:
        self.expect("(")
        out: list[Any] = []
        self.skip_nl()
        while self.peek() != ")":
            out.append(self.expr())
            self.skip_nl()
            if self.peek() == "...":
                self.i += 1
                self.skip_nl()
            if self.peek() == ",":
                self.i += 1
                self.skip_nl()
            elif self.peek() != ")":
                raise Unknown(f"in args: {self.peek()!r}")
        self.i += 1
        return out

    def list_literal(self) -> list[Any]:
        self.expect("{")
        out: list[Any] = []
        self.skip_nl()
        while self.peek() != "}":
            out.append(self.expr())
            self.skip_nl()
            if self.peek() == ":":  # a map literal: keep the values
                self.i += 1
                out[-1] = self.expr()
                self.skip_nl()
            if self.peek() == ",":
                self.i += 1
                self.skip_nl()
            elif self.peek() != "}":
                raise Unknown(f"in list: {self.peek()!r}")
        self.i += 1
        return out

    def term(self) -> Any:
        self.skip_nl()
        tok = self.peek()
        if tok[:1] in {'"', "`"}:
            self.i += 1
            return go_string(tok)
        if tok == "[":  # []string{...} / []byte(x)
            self.i += 1
            self.expect("]")
            kind = self.peek()
            self.i += 1
            if kind == "byte":
                (value,) = self.args()
                return value
            return self.list_literal()
        if tok == "map":
            while self.peek() != "{":
                self.i += 1
            return self.list_literal()
        if tok == "nil":
            self.i += 1
            return []
        if tok == "string" and self.peek(1) == "(":
            self.i += 1
            (value,) = self.args()
            return value
        if tok and (tok[0].isalpha() or tok[0] == "_"):
            self.i += 1
            if self.peek() == "(":
                return self.call(tok, self.args())
            if tok in self.env:
                return self.env[tok]
            raise Unknown(f"name {tok}")
        raise Unknown(f"token {tok!r}")

    def call(self, name: str, args: list[Any]) -> Any:
        short = name.rsplit(".", 1)[-1]
        sizes = {
            "Numeric": "[0-9]{%s}",
            "Hex": "[a-f0-9]{%s}",
            "AlphaNumeric": "[a-z0-9]{%s}",
            "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
            "AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
            "AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
        }
        if short in sizes and name.startswith("utils."):
            return sizes[short] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret":
            value = self.gen.secret(args[0])
            self.generated.append(value)
            return value
        if name == "utils.GenerateSampleSecrets":
            return _sample_variants(args[0], args[1])
        if name == "utils.GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "fmt.Sprintf":
            fmt, *rest = args
            parts = fmt.split("%s")
            if len(parts) - 1 != len(rest) or "%" in fmt.replace("%s", ""):
                raise Unknown("Sprintf format")
            out = parts[0]
            for value, part in zip(rest, parts[1:], strict=True):
                out += str(value) + part
            return out
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        if name == "strings.ToUpper":
            return args[0].upper()
        if name == "strings.ToLower":
            return args[0].lower()
        if name == "append":
            head, *rest = args
            out = list(head)
            for value in rest:
                out.extend(value if isinstance(value, list) else [value])
            return out
        if short.endswith("EncodeToString"):
            raw = args[0].encode()
            enc = name.split(".")[-2]
            if enc == "StdEncoding":
                return base64.b64encode(raw).decode()
            if enc == "RawStdEncoding":
                return base64.b64encode(raw).decode().rstrip("=")
            if enc == "URLEncoding":
                return base64.urlsafe_b64encode(raw).decode()
            return base64.urlsafe_b64encode(raw).decode().rstrip("=")
        raise Unknown(f"call {name}")


def _function_bodies(src: str) -> list[tuple[str, list[str]]]:
    toks = tokens(src)
    out = []
    i = 0
    while i < len(toks):
        if toks[i] == "func" and i + 1 < len(toks):
            name = toks[i + 1]
            j = i
            while j < len(toks) and toks[j] != "{":
                j += 1
            depth = 0
            k = j
            while k < len(toks):
                if toks[k] == "{":
                    depth += 1
                elif toks[k] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            out.append((name, toks[j + 1 : k]))
            i = k
        i += 1
    return out


def _run_statements(ev: Eval) -> None:
    """Executes ``x := expr`` / ``x = expr`` statements, skipping the ones it cannot evaluate."""
    toks = ev.t
    i = 0
    while i < len(toks):
        start_ok = i == 0 or toks[i - 1] in {"\n", "{", "}", ";"}
        if start_ok and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", toks[i]) and i + 1 < len(toks):
            names = [toks[i]]
            j = i + 1
            while toks[j] == "," and j + 1 < len(toks):
                names.append(toks[j + 1])
                j += 2
            if toks[j] in {":=", "="} and len(names) == 1:
                ev.i = j + 1
                try:
                    ev.env[names[0]] = ev.expr()
                    i = ev.i
                    continue
                except (Unknown, ValueError, IndexError, KeyError, TypeError):
                    ev.env.pop(names[0], None)
        i += 1


def _to_python_regex(pattern: str) -> re.Pattern[str] | None:
    flags = 0
    if "(?i)" in pattern:
        pattern = pattern.replace("(?i)", "")
        flags |= re.I
    pattern = pattern.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]").replace("(?-i:", "(?:")
    pattern = pattern.replace("(?s:", "(?:").replace("(?i:", "(?:")
    try:
        return re.compile(pattern, flags | re.S)
    except re.error:
        return None


def _rule_regex(ev: Eval, body: list[str]) -> tuple[re.Pattern[str] | None, int]:
    """The rule's ``Regex:`` (evaluated through the utils builders) and its ``SecretGroup``."""
    group = 0
    for k, tok in enumerate(body):
        if tok == "SecretGroup" and body[k + 1] == ":":
            group = int(body[k + 2])
    for k, tok in enumerate(body):
        if tok == "Regex" and body[k + 1] == ":":
            ev2 = Eval(body, ev.gen, ev.env)
            ev2.i = k + 2
            ev2.skip_nl()
            name = ev2.peek()
            try:
                ev2.i += 1
                args = ev2.args()
            except (Unknown, IndexError):
                return None, group
            if name == "regexp.MustCompile":
                src = args[0]
            elif name == "utils.GenerateUniqueTokenRegex":
                src = ("(?i)" if args[1] else "") + r"\b(" + args[0] + r")(?:[\x60'\"\s;]|\\[nr]|$)"
            elif name == "utils.GenerateSemiGenericRegex":
                ids = "|".join(args[0])
                src = (
                    r"(?i)[\w.-]{0,50}?(?:" + ids + r")(?:[ \t\w.-]{0,20})[\s'\"]{0,3}"
                    r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'\"\s=]{0,5}(" + args[1] + r")(?:[\x60'\"\s;]|\\[nr]|$)"
                )
            else:
                return None, group
            return _to_python_regex(src), group
    return None, group


def _secret_of(sample: str, rx: re.Pattern[str] | None, group: int, generated: list[str]) -> str | None:
    if rx is not None:
        match = rx.search(sample)
        if match is not None:
            if group and group <= (rx.groups or 0) and match.group(group):
                return match.group(group)
            for g in range(1, (rx.groups or 0) + 1):
                if match.group(g):
                    return match.group(g)
            return match.group(0)
    pieces = [g for g in generated if g in sample and len(g) >= 8]
    return max(pieces, key=len) if pieces else None


def git_files(gitdir: str, prefix: str, suffix: str) -> list[str]:
    out = subprocess.run(
        ["git", f"--git-dir={gitdir}", "ls-tree", "-r", "--name-only", "HEAD", prefix],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [p for p in out.splitlines() if p.endswith(suffix)]


def git_show(gitdir: str, path: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={gitdir}", "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
    ).stdout


def gitleaks_samples(gitdir: str, gen: Gen) -> tuple[list[Sample], list[str]]:
    samples: list[Sample] = []
    skipped: list[str] = []
    for path in git_files(gitdir, "cmd/generate/config/rules/", ".go"):
        if path.endswith("_test.go"):
            continue
        for name, body in _function_bodies(git_show(gitdir, path)):
            if "RuleID" not in body:
                continue
            rule_id = body[body.index("RuleID") + 2]
            rule = go_string(rule_id) if rule_id[:1] in {'"', "`"} else name
            ev = Eval(body, gen)
            _run_statements(ev)
            rx, group = _rule_regex(ev, body)
            tps = ev.env.get("tps")
            fps = ev.env.get("fps") or []
            if not isinstance(tps, list) or not tps:
                skipped.append(rule)
                continue
            for text in tps:
                if not isinstance(text, str):
                    continue
                secret = _secret_of(text, rx, group, ev.generated)
                if secret and len(secret) >= 6:
                    samples.append(Sample("gitleaks", rule, text, [credential(secret)]))
            for text in fps if isinstance(fps, list) else []:
                if isinstance(text, str) and text.strip():
                    samples.append(Sample("gitleaks", rule, text))
    return samples, skipped


def _pieces(want: str, text: str) -> list[str]:
    """The parts of a trufflehog result (often id and secret glued together) that appear in the input."""
    if want in text:
        return [want]
    out: list[str] = []
    rest = want
    while len(rest) >= 8:
        for size in range(len(rest), 7, -1):  # the longest suffix found in the input
            if rest[-size:] in text:
                out.append(rest[-size:])
                rest = rest[:-size]
                break
        else:
            rest = rest[:-1]
        rest = rest.rstrip(":|;, ")
    return out


_NOT_SECRET = re.compile(r"://|@|\.[a-z]{2,6}(?::\d+)?$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


_URI_USERINFO = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@]*:(.+)@[^@\s]*$")


def credential(secret: str) -> str:
    """The credential of a result: for ``scheme://user:password@host...`` (trufflehog's uri, ldap, jdbc, ...
    report the whole URL) the password, which is what must not reach disk; the scheme, user and host are
    kept by design. Any other secret as it is."""
    match = _URI_USERINFO.match(secret)
    if not match:
        return secret
    from urllib.parse import unquote  # a detector's parsed URL percent-encodes the password it found

    return unquote(match.group(1))


def _the_secret(pieces: list[str]) -> str:
    """Of the pieces of a result (an id, a host, a key), the longest that is not a URL, host or e-mail; a URL
    with a password in it stands for its password."""
    keys = [p for p in pieces if not _NOT_SECRET.search(p)]
    return credential(max(keys or pieces, key=len))


def trufflehog_samples(gitdir: str, gen: Gen) -> tuple[list[Sample], list[str]]:
    samples: list[Sample] = []
    skipped: list[str] = []
    for path in git_files(gitdir, "pkg/detectors/", "_test.go"):
        if "integration" in path or path.count("/") < 3:
            continue
        parts = path.split("/")
        detector = "/".join(parts[2:-1])
        src = git_show(gitdir, path)
        toks = tokens(src)
        env_ev = Eval(toks, gen)
        _run_statements(env_ev)  # package-level var (...) blocks and consts
        # var ( a = x \n b = y ) blocks: the statement runner sees them after "(" too
        for k, tok in enumerate(toks):
            if tok == "(" and k and toks[k - 1] in {"var", "const"}:
                sub = Eval(toks[k + 1 :], gen, env_ev.env)
                _run_statements(sub)
                env_ev.env.update(sub.env)
        found = False
        k = 0
        while k < len(toks):
            if toks[k] == "input" and toks[k + 1] == ":":
                ev = Eval(toks, gen, env_ev.env)
                ev.i = k + 2
                try:
                    text = ev.expr()
                except (Unknown, ValueError, IndexError, KeyError, TypeError):
                    k += 1
                    continue
                m = k + 2
                wants: Any = None
                while m < len(toks) and not (toks[m] == "input" and toks[m + 1] == ":"):
                    if toks[m] == "want" and toks[m + 1] == ":":
                        ev2 = Eval(toks, gen, env_ev.env)
                        ev2.i = m + 2
                        try:
                            wants = ev2.expr()
                        except (Unknown, ValueError, IndexError, KeyError, TypeError):
                            wants = "?"
                        break
                    m += 1
                if isinstance(text, str) and text.strip() and wants != "?":
                    found = True
                    if isinstance(wants, list) and wants:
                        found_pieces = [_pieces(credential(w), text) for w in wants if isinstance(w, str)]
                        secrets = [_the_secret(p) for p in found_pieces if p]
                        secrets = [s for s in secrets if len(s) >= 6]
                        if secrets:
                            samples.append(Sample("trufflehog", detector, text, secrets))
                    elif wants is None or wants == []:
                        samples.append(Sample("trufflehog", detector, text))
            k += 1
        if not found:
            skipped.append(detector)
    return samples, skipped


# --- measuring ----------------------------------------------------------------------------------------


def needles(secret: str) -> list[str]:
    """What of ``secret`` must not be found: the secret and, from 20 characters, its last 12 (its random tail).
    A multi-line secret (a PEM block) is looked for line by line, its armour (``-----END PRIVATE KEY-----``)
    left out: a JSON file holds its lines with escaped line breaks, and the armour is no secret. A block written
    in a string literal with escaped breaks (``'-----BEGIN ...-----\\r\\nMIIC...'``) is split at them too."""
    if "-----BEGIN" in secret and ("\n" in secret or "\\n" in secret):
        lines = [ln.strip() for ln in secret.replace("\\r", "").replace("\\n", "\n").splitlines()]
        return [ln for ln in lines if len(ln) >= 12 and not ln.startswith("-----")] or [secret]
    return [secret, secret[-12:]] if len(secret) >= 20 else [secret]


def leaked(secret: str, out: str) -> bool:
    """The secret, or what ``needles`` looks for of it, is still in ``out``."""
    return any(needle in out for needle in needles(secret))


def split(formats: list[str]) -> tuple[set[str], set[str]]:
    names = sorted(set(formats))
    random.Random(SEED).shuffle(names)
    half = len(names) // 2
    return set(names[:half]), set(names[half:])


def _timed(redact: Any, text: str, hangs: list[str], sample: Sample) -> str:
    """``redact(text)``, or ``text`` unchanged when it runs over 5 s (a super-linear pattern: counted)."""
    import signal

    def stop(*_: Any) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(5)
    try:
        return str(redact(text))
    except TimeoutError:
        hangs.append(f"{sample.source}:{sample.fmt}")
        return text
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _placeholder_test() -> Any:
    """The redactor's own placeholder test; loaded from this tree when measuring an older redactor."""
    try:
        from ctxops_contracts.redaction.names import is_placeholder_token
    except ImportError:  # an older install (main before the move): the file of this tree
        import importlib.util

        path = os.path.join(os.path.dirname(__file__), "..", "contracts", "src", "ctxops_contracts", "redaction")
        spec = importlib.util.spec_from_file_location("_bench_names", os.path.join(path, "names.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        is_placeholder_token = module.is_placeholder_token
    return is_placeholder_token


def measure(samples: list[Sample], redact: Any) -> dict[str, Any]:
    """Misses, look-alikes redacted and placeholders kept. A true positive whose secret is a documentation
    sample (``EXAMPLE``, ``xxxx``, a run of one character or of the alphabet: the same test the redactor
    uses, ``is_placeholder_token``) is counted with the placeholders, which are to be kept, not as a miss."""
    is_placeholder_token = _placeholder_test()

    tp = [s for s in samples if s.secrets]
    fp = [s for s in samples if not s.secrets]
    miss_formats: dict[str, list[str]] = defaultdict(list)
    miss = 0
    hangs: list[str] = []
    # a password that is itself a placeholder word (``http://username:password@host``) counts there too
    placeholder_tps = [
        s for s in tp if any(is_placeholder_token(x) or _PLACEHOLDER_WORD.fullmatch(x) for x in s.secrets)
    ]
    tp = [s for s in tp if s not in placeholder_tps]
    for s in tp:
        out = _timed(redact, s.text, hangs, s)
        bad = [x for x in s.secrets if leaked(x, out)]
        if bad:
            miss += 1
            miss_formats[f"{s.source}:{s.fmt}"].append(s.text if len(s.text) < 300 else s.text[:300] + "...")
    fp_changed = [s for s in fp if _timed(redact, s.text, hangs, s) != s.text]
    placeholders = [s for s in fp if PLACEHOLDER.search(s.text)]
    kept = [s for s in placeholders if _timed(redact, s.text, hangs, s) == s.text]
    fmt_total = {f"{s.source}:{s.fmt}" for s in tp}
    return {
        "secrets": len(tp),
        "formats": len(fmt_total),
        "missed_secrets": miss,
        "missed_formats": len(miss_formats),
        "lookalikes": len(fp),
        "lookalikes_redacted": len(fp_changed),
        "lookalikes_redacted_pct": round(100 * len(fp_changed) / max(1, len(fp)), 1),
        "placeholders": len(placeholders),
        "placeholders_kept": len(kept),
        "hangs": sorted(set(hangs)),
        "placeholder_secrets": len(placeholder_tps),
        "placeholder_secrets_kept": sum(1 for s in placeholder_tps if _timed(redact, s.text, hangs, s) == s.text),
        "misses": dict(sorted(miss_formats.items())),
        "fp_examples": [f"{s.source}:{s.fmt}: {s.text[:200]}" for s in fp_changed],
    }


# --- the channels ---------------------------------------------------------------------------------------


def _events_for(agent: str, cwd: str, secret_text: str, path_secret: str, n: int) -> list[dict[str, Any]]:
    """Hook payloads of ``agent`` that carry ``secret_text`` in every field the adapter reads."""
    fname = os.path.join(cwd, f"notes/{path_secret}.txt")
    sid = f"bench-{n}"
    if agent == "claude-code":
        return [
            {"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": secret_text},
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": f"b{n}",
                "tool_input": {"command": f"echo {secret_text!r}"},
                "tool_response": {"stdout": secret_text + "\n" + "line\n" * 400, "stderr": "", "exit_code": 0},
            },
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "PostToolUse",
                "tool_name": "Write",
                "tool_use_id": f"w{n}",
                "tool_input": {"file_path": fname, "content": secret_text},
                "tool_response": {"filePath": fname, "success": True},
            },
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "PostToolUse",
                "tool_name": "Read",
                "tool_use_id": f"r{n}",
                "tool_input": {"file_path": fname},
                "tool_response": {"file": {"filePath": fname, "content": secret_text}},
            },
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "PostToolUse",
                "tool_name": "mcp__srv__lookup",
                "tool_use_id": f"m{n}",
                "tool_input": {"query": secret_text},
                "tool_response": [{"type": "text", "text": secret_text}],
            },
        ]
    if agent == "codex":
        return [
            {"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": secret_text},
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "PostToolUse",
                "tool_name": "shell",
                "tool_input": {"command": ["bash", "-lc", f"cat {fname}"]},
                "tool_response": secret_text,
            },
        ]
    if agent == "gemini":
        return [
            {"session_id": sid, "cwd": cwd, "hook_event_name": "BeforeAgent", "prompt": secret_text},
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "AfterTool",
                "tool_name": "write_file",
                "tool_input": {"file_path": fname, "content": secret_text},
                "tool_response": {"llmContent": secret_text},
            },
            {
                "session_id": sid,
                "cwd": cwd,
                "hook_event_name": "AfterTool",
                "tool_name": "run_shell_command",
                "tool_input": {"command": f"echo {secret_text!r}"},
                "tool_response": {"llmContent": secret_text},
            },
        ]
    return [
        {
            "conversation_id": sid,
            "workspace_roots": [cwd],
            "hook_event_name": "beforeSubmitPrompt",
            "prompt": secret_text,
        },
        {
            "conversation_id": sid,
            "workspace_roots": [cwd],
            "hook_event_name": "afterShellExecution",
            "command": f"echo {secret_text!r}",
            "output": secret_text,
        },
        {
            "conversation_id": sid,
            "workspace_roots": [cwd],
            "hook_event_name": "afterFileEdit",
            "file_path": fname,
            "edits": [{"old_string": "", "new_string": secret_text}],
        },
        {
            "conversation_id": sid,
            "workspace_roots": [cwd],
            "hook_event_name": "afterMCPExecution",
            "tool_name": "lookup",
            "tool_input": json.dumps({"q": secret_text}),
            "result_json": json.dumps({"text": secret_text}),
        },
    ]


def path_safe(secret: str) -> str:
    return "".join(c if c not in "/\\\0\n" else "_" for c in secret)[:200]


def channel_check(chosen: list[Sample], ctx: str) -> dict[str, Any]:
    """Every chosen sample through every channel by real processes; then every file grepped for each secret."""
    import tempfile

    root = tempfile.mkdtemp(prefix="ctxops-redaction-bench-")
    repo = os.path.join(root, "repo")
    data = os.path.join(root, "data")
    os.makedirs(os.path.join(repo, "notes"))
    env = {**os.environ, "CTXOPS_DATA_DIR": data, "HOME": os.path.join(root, "home")}
    os.makedirs(env["HOME"])
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run([ctx, "init", "--agent", "claude-code"], cwd=repo, env=env, capture_output=True)
    procs = 0
    transcript = os.path.join(root, "home", ".claude", "projects", "p", "s.jsonl")
    os.makedirs(os.path.dirname(transcript))
    lines = []
    for n, sample in enumerate(chosen):
        secret = sample.secrets[0]
        text = sample.text
        for agent in ("claude-code", "codex", "gemini", "cursor"):
            for payload in _events_for(agent, repo, text, path_safe(secret), n):
                subprocess.run(
                    [ctx, "hook", agent], input=json.dumps(payload), text=True, cwd=repo, env=env, capture_output=True
                )
                procs += 1
        name = path_safe(secret)
        subprocess.run(
            [ctx, "mem", "add", f"remember {text}", "--title", f"t {secret}", "--file", f"notes/{name}.txt",
             "--scope", f"notes/{name}/**", "--source", f"s:{secret}"],
            cwd=repo, env=env, capture_output=True,
        )  # fmt: skip
        procs += 1
        lines.append(_transcript_line(n, repo, text, path_safe(secret)))
    with open(transcript, "w") as handle:
        handle.write("\n".join(json.dumps(line) for line in lines) + "\n")
    subprocess.run([ctx, "ledger", "ingest", "--claude-dir", os.path.join(root, "home", ".claude")],
                   cwd=repo, env=env, capture_output=True)  # fmt: skip
    procs += 1
    leaks: dict[str, list[str]] = defaultdict(list)
    blobs = []
    for base in (os.path.join(repo, ".meta"), data, env["HOME"] + "/.cache"):
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                full = os.path.join(dirpath, name)
                if full == transcript or _own_code_cache(name):
                    continue
                try:
                    with open(full, "rb") as handle:
                        blobs.append((full, handle.read()))
                except OSError:
                    pass
                blobs.append((full + " (name)", full.encode()))
    for sample in chosen:
        for secret in sample.secrets:
            wanted = [needle.encode() for needle in needles(secret)]
            for full, blob in blobs:
                if any(needle in blob for needle in wanted):
                    leaks[f"{sample.source}:{sample.fmt}"].append(full.replace(root, ""))
    return {
        "samples": len(chosen),
        "processes": procs,
        "files": len(blobs),
        "leaked_formats": dict(leaks),
        "root": root,
    }


# --corpus NAME read by a module beside this one: (module, its reader, the sources it holds, whether the reader
# takes ``_the_secret``)
SINGLE_CORPORA: dict[str, tuple[str, str, tuple[str, ...], bool]] = {
    "fresh": ("redaction_fresh", "fresh_samples", ("noseyparker", "kingfisher"), True),
    "semgrep": ("redaction_semgrep", "semgrep_samples", ("semgrep",), True),
    "secretlint": ("redaction_secretlint", "heldout_samples", ("secretlint", "ripsecrets"), False),
    "whispers": ("redaction_whispers", "whispers_samples", ("whispers",), False),
    "ggeb": ("redaction_ggeb", "ggeb_samples", ("ggshield", "earlybird"), False),
    "trivy": ("redaction_trivy", "trivy_samples", ("trivy",), False),
    "2ms": ("redaction_2ms", "twoms_samples", ("2ms",), False),
    "sonar": ("redaction_sonar", "sonar_samples", ("sonar",), False),
    "ghcp": ("redaction_ghcp", "ghcp_samples", ("ghcp",), False),
    "octarine": ("redaction_octarine", "octarine_samples", ("octarine",), False),
    "talisman": ("redaction_talisman", "talisman_samples", ("talisman",), False),
    "ibm": ("redaction_ibm", "ibm_samples", ("ibm",), False),
    "bearer": ("redaction_bearer", "bearer_samples", ("bearer",), False),
    "sgcode": ("redaction_sgcode", "sgcode_samples", ("sgcode",), False),
}


def _own_code_cache(name: str) -> bool:
    """ctxops's own start-up caches under the per-user cache directory: the compiled code of its own modules
    (core's ``codecache``, ``code-*.marshal``) and its own constant patterns (contracts' ``regex-*.marshal``).
    No payload reaches them (the patterns built from found values are compiled in memory, never cached); a
    sample word that also occurs in ctxops's source, a comment's ``hardcoded``, matched there."""
    return name.endswith(".marshal") and name.startswith(("code-", "regex-"))


def _transcript_line(n: int, repo: str, text: str, path_secret: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "sessionId": "bench",
        "cwd": repo,
        "timestamp": "2026-12-01T10:00:00Z",
        "requestId": f"req_{n}",
        "uuid": f"u{n}",
        "message": {
            "id": f"msg_{n}",
            "model": "claude-sonnet-4-5",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"t{n}",
                    "name": "Read",
                    "input": {"file_path": f"{repo}/notes/{path_secret}.txt"},
                },
                {"type": "tool_use", "id": f"c{n}", "name": "Bash", "input": {"command": text}},
            ],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }


# the corpora `--corpus` reads ("outside": gitleaks and trufflehog, in halves); `--show` lists any one's misses
CORPORA = [
    "outside",
    "fresh",
    "semgrep",
    "secretlint",
    "whispers",
    "ggeb",
    "trivy",
    "2ms",
    "sonar",
    "ghcp",
    "octarine",
    "talisman",
    "ibm",
    "bearer",
    "sgcode",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gitleaks", default="/work/.mirror/gitleaks+gitleaks/repo")
    parser.add_argument("--trufflehog", default="/work/.mirror/trufflesecurity+trufflehog/repo")
    parser.add_argument("--channels", type=int, default=0, help="formats per half pushed through every channel")
    parser.add_argument(
        "--channel-halves",
        default="dev,held-out,fresh,semgrep,secretlint,whispers,ggeb,trivy,2ms,sonar,ghcp,octarine,talisman,ibm,bearer,sgcode",
        help="halves whose samples go through the channels",
    )
    parser.add_argument(
        "--show",
        choices=["dev", "held-out", *CORPORA[1:], "peer dev", "none"],
        default="dev",
        help="list the misses of",
    )
    parser.add_argument("--halves", default="dev,held-out", help="halves to measure (dev only while tuning)")
    parser.add_argument("--json", help="write the full result here")
    parser.add_argument("--redactor", default="ctxops_contracts.redaction:redact", help="module:function to measure")
    parser.add_argument(
        "--corpus",
        choices=CORPORA,
        default="outside",
        help="outside: gitleaks and trufflehog (dev and held-out halves); fresh: the corpus of "
        "bench/heldout_redaction.txt (Nosey Parker and Kingfisher), one half named 'fresh'; semgrep: the "
        "held-out corpus of bench/heldout_redaction_s11b.txt (semgrep-rules' secret tests), half 'semgrep'; "
        "secretlint: the held-out corpus of "
        "bench/heldout_redaction_s12.txt (secretlint's snapshots, ripsecrets' tests), half 'secretlint'; "
        "whispers: the held-out corpus of bench/heldout_redaction_s13.txt (Skyscanner/whispers' fixtures); "
        "ggeb: the held-out corpus of bench/heldout_redaction_s14.txt (ggshield's cassettes, earlybird's examples); "
        "trivy: the held-out corpus of bench/heldout_redaction_s16.txt (trivy's secret scanner tests); "
        "2ms: the held-out corpus of bench/heldout_redaction_s17.txt (Checkmarx/2ms' rule tests); "
        "sonar: the held-out corpus of bench/heldout_redaction_s18.txt (SonarSource/sonar-text's rule examples); "
        "ghcp: the held-out corpus of bench/heldout_redaction_s19.txt (GitHub's custom secret-scanning patterns); "
        "octarine: the held-out corpus of bench/heldout_redaction_s20.txt (octarinesec/secret-detector's tests); "
        "talisman: the held-out corpus of bench/heldout_redaction_s21.txt (thoughtworks/talisman's detector tests); "
        "ibm: the held-out corpus of bench/heldout_redaction_s22.txt (IBM/detect-secrets' own plugins' tests); "
        "bearer: the held-out corpus of bench/heldout_redaction_s23.txt (Bearer/bearer-rules' credential rules' "
        "tests); sgcode: the held-out corpus of bench/heldout_redaction_s24.txt (semgrep-rules' language "
        "credential rules' tests)",
    )
    parser.add_argument("--peer", help="module:function of a peer redactor measured on the same samples")
    args = parser.parse_args(argv)

    import importlib

    module, _, function = args.redactor.partition(":")
    redact = getattr(importlib.import_module(module), function)
    peer = None
    if args.peer:
        sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
        module, _, function = args.peer.partition(":")
        peer = getattr(importlib.import_module(module), function)

    gen = Gen(SEED)
    started = time.perf_counter()
    if args.corpus in SINGLE_CORPORA:
        sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
        module, reader, sources, with_secret = SINGLE_CORPORA[args.corpus]
        read = getattr(importlib.import_module(module), reader)
        samples, skipped = read(Sample, _the_secret) if with_secret else read(Sample)
        skipped2: list[str] = []
        parts = [(args.corpus, {f"{s.source}:{s.fmt}" for s in samples})]
        halves = [args.corpus]
    else:
        samples, skipped = gitleaks_samples(args.gitleaks, gen)
        more, skipped2 = trufflehog_samples(args.trufflehog, gen)
        samples += more
        dev, held = split([f"{s.source}:{s.fmt}" for s in samples])
        parts = [("dev", dev), ("held-out", held)]
        sources = ("gitleaks", "trufflehog")
        halves = args.halves.split(",")
    built = time.perf_counter() - started
    result: dict[str, Any] = {"built_s": round(built, 1), "skipped_formats": len(skipped) + len(skipped2)}
    for half, names in parts:
        if half not in halves:
            continue
        part = [s for s in samples if f"{s.source}:{s.fmt}" in names]
        for key, redactor in (("", redact), ("peer ", peer)):
            if redactor is None:
                continue
            result[key + half] = measure(part, redactor)
            for source in sources:
                result[key + half][source] = {
                    k: v for k, v in measure([s for s in part if s.source == source], redactor).items()
                    if k not in {"misses", "fp_examples"}
                }  # fmt: skip
    if args.channels:
        ctx = os.path.join(os.path.dirname(sys.executable), "ctx")
        for half, names in parts:
            if half not in args.channel_halves.split(",") or half not in halves:
                continue
            first: dict[str, Sample] = {}
            placeholder = _placeholder_test()
            for s in samples:  # the formats as sessions 7 and 8 chose them (the same 40 are drawn below)
                key = f"{s.source}:{s.fmt}"
                if key in names and s.secrets and key not in first and not any(placeholder(x) for x in s.secrets):
                    first[key] = s
            for s in reversed(samples):  # within a format, a sample whose password is not a placeholder word
                key = f"{s.source}:{s.fmt}"
                if (
                    key in first
                    and s.secrets
                    and not any(placeholder(x) or _PLACEHOLDER_WORD.fullmatch(x) for x in s.secrets)
                    and any(_PLACEHOLDER_WORD.fullmatch(x) for x in first[key].secrets)
                ):
                    first[key] = s
            chosen = sorted(first.values(), key=lambda s: (s.source, s.fmt))
            random.Random(SEED).shuffle(chosen)
            result[half]["channels"] = channel_check(chosen[: args.channels], ctx)
    for half in [key + h for h in halves for key in ("", "peer ") if key + h in result]:
        r = result[half]
        print(
            f"{half:9} secrets {r['secrets']:5} in {r['formats']:4} formats: missed {r['missed_secrets']:4} "
            f"({100 * r['missed_secrets'] / max(1, r['secrets']):.1f}%) in {r['missed_formats']} formats; "
            f"look-alikes redacted {r['lookalikes_redacted']}/{r['lookalikes']} ({r['lookalikes_redacted_pct']}%); "
            f"placeholders kept {r['placeholders_kept']}/{r['placeholders']} "
            f"(+ samples with a placeholder secret kept {r['placeholder_secrets_kept']}/{r['placeholder_secrets']}); "
            f"hangs {len(r['hangs'])}"
        )
        for source in sources:
            s = r[source]
            print(
                f"   {source:10} secrets {s['secrets']:5} formats {s['formats']:4} missed {s['missed_secrets']:4} "
                f"in {s['missed_formats']} formats; look-alikes redacted {s['lookalikes_redacted']}/{s['lookalikes']}"
            )
        if "channels" in r:
            c = r["channels"]
            print(
                f"   channels: {c['samples']} formats, {c['processes']} processes, {c['files']} files: "
                f"{len(c['leaked_formats'])} formats on disk"
            )
    if args.show != "none" and args.show in result:
        r = result[args.show]
        for fmt, texts in r["misses"].items():
            print(f"MISS {fmt}: {texts[0]!r}")
        for line in r["fp_examples"]:
            print(f"FP   {line!r}")
        for fmt, where in r.get("channels", {}).get("leaked_formats", {}).items():
            print(f"DISK {fmt}: {sorted(set(where))[:4]}")
    print(f"built in {result['built_s']} s; {result['skipped_formats']} formats had no evaluable samples")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
