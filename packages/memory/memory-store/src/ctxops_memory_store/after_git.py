# ruff: noqa: PTH110, PTH118
# os.path, not pathlib: the git hooks run this after every pull, checkout and rewrite.
"""``ctx mem reconcile``: the read snapshot brought in step when git moves ``HEAD`` (issue 23, item 4).

The git hooks ``ctx init`` installs (post-merge, post-checkout, post-rewrite) run it in the foreground, so
the memory files a pull brought are folded into the snapshot before the agent's next hook: that hook then
finds the rows current (the directory's time recorded and settled, ``HEAD`` the rows' commit) and starts no
git and parses no file. Without the git hooks (not installed, ``core.hooksPath`` elsewhere, a pull by
another tool) the agent's hook does the same itself (``snapshot.open_for_read``): the answer is the same.

Bounded: the files git names (``git_changes``, one ``git diff-index``), at most ``OVERLAY_MAX`` of them;
more, and the detached sync is started (never waited for). Never waits for the store's write lock: a writer
at work leaves the fold to the next reader. Prints one word (``current``, ``behind``, ``none``).
"""

from __future__ import annotations

import os
import sys

from ctxops_contracts.shared.lazylog import get_logger

log = get_logger(__name__)


def reconcile(root: str) -> str:
    """Fold what git changed in ``ROOT/.meta/memory`` into the snapshot and settle it for the next reader.

    ``current``: the snapshot describes the directory; ``behind``: it does not yet (too many files, a writer
    held the lock; the detached sync was asked for); ``none``: no snapshot here (a store of at most
    ``MIN_FILES`` files, or none), nothing to do."""
    from ctxops_contracts.shared.confine import meta_is_safe
    from ctxops_contracts.shared.layout import INDEX_DIR, MEMORY_DIR, META_DIR

    from . import snapshot

    if not meta_is_safe(root):  # a symlinked or foreign .meta: nothing read from it, nothing written
        return "none"
    memory_dir = os.path.join(root, META_DIR, MEMORY_DIR)
    index_dir = os.path.join(root, META_DIR, INDEX_DIR)
    if not os.path.exists(snapshot.path_for(index_dir)):
        return "none"
    found = snapshot.open_for_read(index_dir, memory_dir, small_ok=True)
    if found is None:  # more than the overlay: the detached sync rebuilds the rows
        snapshot.request_sync(root, index_dir)
        return "behind"
    try:
        behind = found.behind
    finally:
        found.close()
    if behind:  # a writer held the lock: its catalog or the next reader folds the files
        snapshot.request_sync(root, index_dir)
        return "behind"
    # The racy window: once the file system's clock is past the directory's time (one tick), say so, so the
    # agent's hook trusts the rows without listing 50,000 names.
    snapshot.settle_racy(index_dir, memory_dir)
    return "current"


def main(argv: list[str]) -> int | None:
    """``ctx mem reconcile [--root ROOT] [--json]`` without argparse (the git hooks' path); None for anything
    else (``--help``, an unknown option, no repository): the full CLI answers, its errors the grammar's."""
    explicit: str | None = None
    json_mode = False
    rest = list(argv)
    if "reconcile" not in rest:
        return None
    rest.remove("reconcile")
    while rest:
        arg = rest.pop(0)
        if arg == "--json":
            json_mode = True
        elif arg == "--root" and rest and not rest[0].startswith("-"):
            explicit = rest.pop(0)
        elif arg.startswith("--root=") and len(arg) > 7:
            explicit = arg[7:]
        else:
            return None
    from ctxops_contracts.shared.repo import NotARepository, find_root

    try:
        root = find_root(explicit=explicit)
    except (NotARepository, OSError):
        return None
    report(root, json_mode=json_mode)
    return 0


def report(root: str, *, json_mode: bool) -> None:
    """Reconcile and print the state (a word, or ``{"snapshot": WORD}``); a failure is logged, never raised:
    the git hook never fails a pull over it, and the agent's hook folds the files itself."""
    try:
        state = reconcile(root)
    except (OSError, ValueError) as exc:
        log.warning("memory snapshot not reconciled: %s", exc)
        state = "behind"
    if json_mode:
        from ctxops_contracts.shared import jsonlite

        sys.stdout.write(jsonlite.dumps({"snapshot": state}) + "\n")
    else:
        sys.stdout.write(state + "\n")
    sys.stdout.flush()
