"""Building a UsageRecord for one observed call (proxy and SDK wrapper share this)."""

from __future__ import annotations

from datetime import UTC, datetime

from ctxops_contracts import UsageRecord, new_ulid
from ctxops_contracts.redaction import redact

from .machine import this_machine
from .wire import Api, Observed, RequestInfo, settle_usage

PROVIDERS = {"anthropic": "anthropic", "openai-chat": "openai", "openai-responses": "openai", "gemini": "google"}


def call_record(
    *,
    api: Api,
    origin: str,
    started: datetime,
    latency_ms: float,
    status: int | None,
    request: RequestInfo,
    seen: Observed,
    request_id: str | None,
    session_id: str | None = None,
    error: str | None = None,
    started_perf: float | None = None,
) -> UsageRecord:
    """One UsageRecord for a call; keyed like transcripts (message id + request id) when both are known."""
    succeeded = status is not None and 200 <= status < 300 and error is None
    usage, estimated = settle_usage(seen, request, succeeded=succeeded)
    provider = PROVIDERS[api]
    record_id = new_ulid()
    known = seen.message_id and request_id
    key = f"{provider}:{seen.message_id}:{request_id}" if known else f"{origin}:{record_id}"
    # both when both: a client that hung up after the status line must not hide the upstream's own error
    problem = "; ".join(p for p in (seen.error, error) if p) or None
    return UsageRecord(
        id=record_id,
        ts=started.astimezone(UTC),
        provider=provider,
        model=seen.model or request.model or "unknown",
        session_id=session_id,
        request_id=request_id,
        message_id=seen.message_id,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_tokens=usage.cache_creation_tokens,
        cache_creation_1h_tokens=min(usage.cache_creation_1h_tokens, usage.cache_creation_tokens),
        cache_read_tokens=usage.cache_read_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        web_search_requests=usage.web_search_requests,
        web_fetch_requests=usage.web_fetch_requests,
        inference_geo=usage.inference_geo,
        service_tier=usage.service_tier,
        message_count=request.message_count,
        latency_ms=round(latency_ms, 3),
        ttft_ms=(
            round((seen.first_text_at - started_perf) * 1000, 3)
            if seen.first_text_at is not None and started_perf is not None
            else None
        ),
        status=status,
        error=redact(problem) if problem else None,  # an upstream error may echo the caller's key
        source="estimated" if estimated else "provider-reported",
        origin="proxy" if origin == "proxy" else "sdk",
        dedupe_key=key,
        machine_id=this_machine(),
    )
