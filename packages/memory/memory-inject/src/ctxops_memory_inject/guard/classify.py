"""Which family a shell command belongs to, so its output gets the right summarizer.

A family has a name (the config switch: ``pytest``, ``jest``, ``tsc``, ``git-diff``, ...) and a kind
(``test``, ``check``, ``build``, ``vcs``, ``search``, ``generic``) that picks the summarizer. The command
is split on ``&&``, ``||``, ``;``, ``|`` and newlines; wrappers (``uv run``, ``npx``, ``python -m``,
``env A=B``, ``time``, ...) are skipped; the first segment naming a known tool wins.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import compile as re_compile

_SPLIT = re_compile(r"&&|\|\||[;|\n]")
_ASSIGN = re_compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# fullmatch on one word; the lookbehind makes a search enter a run of non-spaces once, from its start
_PYTHON = re_compile(r"(?<!\S)(?:\S*/)?python[0-9.]*+")
_WRAPPERS = {"sudo", "time", "env", "nice", "command", "exec", "xargs"}
_RUNNERS = {  # (tool, next word) pairs that only launch the real program
    ("uv", "run"),
    ("poetry", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("pipenv", "run"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "exec"),
    ("yarn", "dlx"),
    ("npm", "exec"),
    ("bun", "x"),
}

# first word (after wrappers) -> family, kind; "python -m X" and "npx X" resolve to X
_TOOLS: dict[str, tuple[str, str]] = {
    "pytest": ("pytest", "test"),
    "py.test": ("pytest", "test"),
    "unittest": ("unittest", "test"),
    "jest": ("jest", "test"),
    "vitest": ("vitest", "test"),
    "mocha": ("mocha", "test"),
    "tox": ("pytest", "test"),
    "nox": ("pytest", "test"),
    "tsc": ("tsc", "check"),
    "vue-tsc": ("tsc", "check"),
    "mypy": ("mypy", "check"),
    "dmypy": ("mypy", "check"),
    "pyright": ("pyright", "check"),
    "basedpyright": ("pyright", "check"),
    "eslint": ("eslint", "check"),
    "ruff": ("ruff", "check"),
    "flake8": ("flake8", "check"),
    "pylint": ("pylint", "check"),
    "golangci-lint": ("golangci-lint", "check"),
    "biome": ("biome", "check"),
    "pip": ("pip", "build"),
    "pip3": ("pip", "build"),
    "make": ("make", "build"),
    "gmake": ("make", "build"),
    "cmake": ("make", "build"),
    "ninja": ("make", "build"),
    "gradle": ("gradle", "build"),
    "./gradlew": ("gradle", "build"),
    "mvn": ("maven", "build"),
    "grep": ("search", "search"),
    "egrep": ("search", "search"),
    "rg": ("search", "search"),
    "ag": ("search", "search"),
    "ack": ("search", "search"),
    "find": ("search", "search"),
    "fd": ("search", "search"),
    "tree": ("search", "search"),
}
_SUBCOMMANDS: dict[str, dict[str, tuple[str, str]]] = {
    "go": {"test": ("go-test", "test"), "vet": ("go-vet", "check"), "build": ("go-build", "build")},
    "cargo": {
        "test": ("cargo-test", "test"),
        "nextest": ("cargo-test", "test"),
        "build": ("cargo-build", "build"),
        "check": ("cargo-build", "build"),
        "clippy": ("cargo-build", "build"),
    },
    "npm": {
        "test": ("npm-test", "test"),
        "t": ("npm-test", "test"),
        "install": ("npm", "build"),
        "i": ("npm", "build"),
        "ci": ("npm", "build"),
        "run": ("npm-run", "build"),
    },
    "pnpm": {
        "test": ("npm-test", "test"),
        "install": ("pnpm", "build"),
        "i": ("pnpm", "build"),
        "add": ("pnpm", "build"),
    },
    "yarn": {"test": ("npm-test", "test"), "install": ("yarn", "build"), "add": ("yarn", "build")},
    "uv": {"sync": ("uv", "build"), "add": ("uv", "build"), "pip": ("uv", "build"), "lock": ("uv", "build")},
    "docker": {"build": ("docker-build", "build"), "compose": ("docker-build", "build")},
    "git": {
        "diff": ("git-diff", "vcs"),
        "show": ("git-diff", "vcs"),
        "log": ("git-log", "vcs"),
        "status": ("git-status", "vcs"),
        "grep": ("search", "search"),
        "ls-files": ("search", "search"),
    },
}
GENERIC = ("generic", "generic")


def _words(segment: str) -> list[str]:
    words = [w.strip("'\"()") for w in segment.split()]  # (cd web && npm test): a subshell
    while words:
        head = words[0]
        if _ASSIGN.match(head) or head in _WRAPPERS:
            words.pop(0)
        elif (head == "timeout" and len(words) > 1) or (len(words) > 1 and (head, words[1]) in _RUNNERS):
            words = words[2:]
        elif head in ("npx", "bunx", "pipx"):
            words = [w for w in words[1:] if not w.startswith("-")] if len(words) > 1 else []
        elif _PYTHON.fullmatch(head) and len(words) > 2 and words[1] == "-m":
            words = words[2:]
        else:
            break
    return words


def classify(command: str) -> tuple[str, str]:
    """``(family, kind)`` of a shell command; ``("generic", "generic")`` when no known tool is named."""
    for segment in _SPLIT.split(command):
        words = _words(segment)
        if not words:
            continue
        name = words[0].rsplit("/", 1)[-1] if not words[0].startswith("./") else words[0]
        if name in ("cd", "echo", "cat", "head", "tail", "wc", "sort", "uniq", "tee", "true", "set"):
            continue
        subs = _SUBCOMMANDS.get(name)
        if subs is not None:
            rest = [w for w in words[1:] if not w.startswith("-")]
            if rest and rest[0] in subs:
                return subs[rest[0]]
            continue
        if name in _TOOLS:
            return _TOOLS[name]
    return GENERIC
