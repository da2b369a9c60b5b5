"""Shared mechanics of the storage contract between the lines, stdlib only (no msgspec on this path).

- ``repo``: the repository root, one answer for every line (symlinks resolved once).
- ``locks``: a cross-platform exclusive file lock with a deadline.
- ``files``: atomic writes and whole-line JSONL appends with fsync.
- ``retry``: one retry loop with backoff and a deadline.
- ``layout``: the ``.meta/`` layout, its ignore file, and the per-user data directory.
- ``cli``: the one CLI grammar of ``ctx``, ``cq`` and every ``python -m`` entry point.
- ``bpe``: the bundled offline tokenizer of ``bpe-openai`` without its slow package import.
- ``tasks``: the task a repository is on (``ctx task start/stop``), as intervals to attribute usage by time.
"""
