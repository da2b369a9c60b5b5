"""Parquet export partitioned by day and repository: the scale-out path.

``DIR/day=YYYY-MM-DD/repository=NAME/data_0.parquet`` (hive layout), one row per call with its cost and
task; DuckDB, Spark, Trino or MotherDuck read the set where a team keeps its data (docs/ledger.md shows
the queries). ``repository`` is the call's project (its git root, else its working directory) made safe
for a directory name; the full paths are in the ``project``, ``repo`` and ``cwd`` columns. Re-exporting a
range replaces those partitions' files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .reports import Filters
from .store import View

EXPORT_COLUMNS = (
    "dedupe_key, id, ts, provider, model, session_id, parent_session_id, task, task_source, repo, cwd, project, "
    "git_branch, request_id, message_id, input_tokens, output_tokens, cache_creation_tokens, cache_creation_1h_tokens, "
    "cache_read_tokens, reasoning_tokens, web_search_requests, web_fetch_requests, inference_geo, service_tier, "
    "message_count, latency_ms, status, source, origin, is_sidechain, machine_id, "
    "cost_usd, priced, attribution"
)
SAFE_REPO = "regexp_replace(trim(coalesce(project, 'none'), '/'), '[^A-Za-z0-9._-]+', '_', 'g')"


def export_parquet(view: View, directory: Path, filters: Filters, *, tz: str = "UTC") -> dict[str, Any]:
    """Write the calls selected by ``filters``; return the row count and the partitions written."""
    where, params = filters.sql()
    directory.mkdir(parents=True, exist_ok=True)
    select = (
        f"SELECT {EXPORT_COLUMNS}, strftime(timezone(?, ts), '%Y-%m-%d') AS day, {SAFE_REPO} AS repository "
        f"FROM costed{where}"
    )
    count = view.con.execute(f"SELECT count(*) FROM ({select})", [tz, *params]).fetchone()[0]
    if count:
        target = str(directory).replace("'", "''")
        view.con.execute(
            f"COPY ({select}) TO '{target}' (FORMAT parquet, PARTITION_BY (day, repository), "
            "OVERWRITE_OR_IGNORE true, FILENAME_PATTERN 'calls_{i}')",
            [tz, *params],
        )
    partitions = sorted(str(p.parent.relative_to(directory)) for p in directory.glob("day=*/repository=*/*.parquet"))
    return {"rows": int(count), "directory": str(directory), "partitions": partitions}
