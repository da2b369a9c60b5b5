"""What an ingest run did: counts, and every line it refused with the reason (never fatal)."""

from __future__ import annotations

from collections import Counter

MAX_EXAMPLES = 20
_COUNTS = (
    "files_seen",
    "files_read",
    "files_restarted",
    "bytes_read",
    "lines_read",
    "records",
    "duplicates",
    "invalid_json",
    "rejected",
    "no_usage",
    "naive_timestamps",
    "incomplete_tails",
    "grown_outputs",
    "dropped_fields",
    "loaded",
)


class IngestReport:
    """Counts of one run (a plain class, not a dataclass: a re-run with nothing new builds only this one, and
    ``dataclasses`` with its ``inspect`` costs a no-op ingest several milliseconds to import)."""

    files_seen: int
    files_read: int
    files_restarted: int
    bytes_read: int
    lines_read: int
    records: int
    duplicates: int
    invalid_json: int
    rejected: int
    no_usage: int
    naive_timestamps: int
    incomplete_tails: int
    grown_outputs: int
    dropped_fields: int  # wrong-typed fields read as none: their calls were kept
    loaded: int
    workers: int  # processes that parsed files besides this one (0: all parsed here)
    reasons: Counter[str]
    examples: list[str]

    def __init__(self, **counts: int) -> None:
        unknown = set(counts) - {*_COUNTS, "workers"}
        if unknown:
            raise TypeError(f"IngestReport got unexpected fields: {', '.join(sorted(unknown))}")
        for name in (*_COUNTS, "workers"):
            setattr(self, name, counts.get(name, 0))
        self.reasons = Counter()
        self.examples = []

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IngestReport):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"IngestReport({', '.join(f'{k}={v!r}' for k, v in self.as_dict().items())})"

    def refuse(self, kind: str, where: str, reason: str) -> None:
        """Count a refused line; keep a few examples with their location."""
        if kind == "invalid_json":
            self.invalid_json += 1
        else:
            self.rejected += 1
        self.reasons[reason.split(":", maxsplit=1)[0]] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {reason}")

    def drop_field(self, where: str, reason: str) -> None:
        """Count a field read as none because its value could not be true (the call itself is kept)."""
        self.dropped_fields += 1
        self.reasons["field dropped: " + reason.split(":", maxsplit=1)[0]] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: field dropped, call kept: {reason}")

    def merge(self, other: IngestReport) -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.reasons.update(other.reasons)
        self.examples.extend(other.examples[: max(0, MAX_EXAMPLES - len(self.examples))])

    def as_dict(self) -> dict[str, object]:
        return {
            "files_seen": self.files_seen,
            "files_read": self.files_read,
            "files_restarted": self.files_restarted,
            "bytes_read": self.bytes_read,
            "lines_read": self.lines_read,
            "records": self.records,
            "duplicates": self.duplicates,
            "invalid_json": self.invalid_json,
            "rejected": self.rejected,
            "no_usage": self.no_usage,
            "naive_timestamps": self.naive_timestamps,
            "incomplete_tails": self.incomplete_tails,
            "grown_outputs": self.grown_outputs,
            "dropped_fields": self.dropped_fields,
            "loaded": self.loaded,
            "workers": self.workers,
            "reasons": dict(self.reasons),
            "examples": list(self.examples),
        }

    def summary(self) -> str:
        parts = [
            f"{self.files_read}/{self.files_seen} files read",
            f"{self.lines_read} lines",
            f"{self.records} new records",
            f"{self.duplicates} duplicates skipped",
        ]
        if self.workers:
            parts.append(f"parsed by {self.workers} worker processes")
        if self.files_restarted:
            parts.append(f"{self.files_restarted} rewritten files re-read")
        if self.invalid_json:
            parts.append(f"{self.invalid_json} invalid JSON lines")
        if self.rejected:
            parts.append(f"{self.rejected} rejected lines")
        if self.naive_timestamps:
            parts.append(f"{self.naive_timestamps} timestamps without zone (read as UTC)")
        if self.grown_outputs:
            parts.append(f"{self.grown_outputs} messages whose later lines carried a larger output count (kept)")
        if self.dropped_fields:
            parts.append(f"{self.dropped_fields} wrong-typed fields dropped (their calls kept)")
        if self.incomplete_tails:
            parts.append(f"{self.incomplete_tails} incomplete last lines left for later")
        return ", ".join(parts)
