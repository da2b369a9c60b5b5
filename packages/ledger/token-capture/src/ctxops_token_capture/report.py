"""What an ingest run did: counts, and every line it refused with the reason (never fatal)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

MAX_EXAMPLES = 20


@dataclass
class IngestReport:
    files_seen: int = 0
    files_read: int = 0
    files_restarted: int = 0
    bytes_read: int = 0
    lines_read: int = 0
    records: int = 0
    duplicates: int = 0
    invalid_json: int = 0
    rejected: int = 0
    no_usage: int = 0
    naive_timestamps: int = 0
    incomplete_tails: int = 0
    grown_outputs: int = 0
    loaded: int = 0
    workers: int = 0  # processes that parsed files besides this one (0: all parsed here)
    reasons: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def refuse(self, kind: str, where: str, reason: str) -> None:
        """Count a refused line; keep a few examples with their location."""
        if kind == "invalid_json":
            self.invalid_json += 1
        else:
            self.rejected += 1
        self.reasons[reason.split(":", maxsplit=1)[0]] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {reason}")

    def merge(self, other: IngestReport) -> None:
        for name in (
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
            "loaded",
        ):
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
        if self.incomplete_tails:
            parts.append(f"{self.incomplete_tails} incomplete last lines left for later")
        return ", ".join(parts)
