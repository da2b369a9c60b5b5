"""The SDK wrapper records usage of real Anthropic and OpenAI clients without changing their results."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from ctxops_contracts import UsageRecord
from ctxops_token_capture.sdk import instrument
from ctxops_token_capture.totals import totals


@pytest.fixture
def sink() -> list[UsageRecord]:
    return []


def _anthropic(upstream: Any, records: list[UsageRecord] | None) -> anthropic.Anthropic:
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=upstream.url, max_retries=0)
    return instrument(client, sink=records.append) if records is not None else client


def test_anthropic_sync_result_is_unchanged_and_recorded(upstream: Any, sink: list[UsageRecord]) -> None:
    plain = _anthropic(upstream, None).messages.create(
        model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    wrapped = _anthropic(upstream, sink).messages.create(
        model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    assert wrapped.content[0].text == plain.content[0].text == "Hello there."  # type: ignore[union-attr]
    assert wrapped.usage.output_tokens == upstream.sent[1]["usage"]["output_tokens"]
    (record,) = sink
    assert record.origin == "sdk" and record.source == "provider-reported"
    assert record.message_id == wrapped.id and record.request_id == upstream.sent[1]["request_id"]
    assert record.output_tokens == wrapped.usage.output_tokens
    assert record.cache_read_tokens == wrapped.usage.cache_read_input_tokens


def test_anthropic_streaming_helpers_and_raw_streams(upstream: Any, sink: list[UsageRecord]) -> None:
    client = _anthropic(upstream, sink)
    with client.messages.stream(
        model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "The order total is wrong because of rounding."
    events = list(
        client.messages.create(
            model="claude-test", max_tokens=10, stream=True, messages=[{"role": "user", "content": "hi"}]
        )
    )
    assert events[0].type == "message_start" and events[-1].type == "message_stop"
    assert [r.output_tokens for r in sink] == [final.usage.output_tokens, upstream.sent[1]["usage"]["output_tokens"]]
    assert all(r.source == "provider-reported" and r.input_tokens > 0 for r in sink)


def test_anthropic_async_client(upstream: Any, sink: list[UsageRecord]) -> None:
    async def run() -> str:
        client = instrument(
            anthropic.AsyncAnthropic(api_key="k", base_url=upstream.url, max_retries=0), sink=sink.append
        )
        message = await client.messages.create(
            model="claude-test", max_tokens=5, messages=[{"role": "user", "content": "x"}]
        )
        stream = await client.messages.create(
            model="claude-test", max_tokens=5, stream=True, messages=[{"role": "user", "content": "x"}]
        )
        async for _event in stream:
            pass
        await client.close()
        return message.id

    message_id = asyncio.run(run())
    assert sink[0].message_id == message_id
    assert len(sink) == 2 and sink[1].output_tokens == upstream.sent[1]["usage"]["output_tokens"]


def test_errors_are_raised_as_before_and_recorded(upstream: Any, sink: list[UsageRecord]) -> None:
    with pytest.raises(anthropic.APIStatusError) as caught:
        _anthropic(upstream, sink).messages.create(
            model="overloaded", max_tokens=5, messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.status_code == 529
    (record,) = sink
    assert record.status == 529 and record.output_tokens == 0


def test_openai_chat_and_responses(upstream: Any, sink: list[UsageRecord]) -> None:
    client = instrument(
        openai.OpenAI(api_key="sk-test", base_url=upstream.url + "/v1", max_retries=0), sink=sink.append
    )
    chunks = list(
        client.chat.completions.create(
            model="gpt-test",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": "hi"}],
        )
    )
    assert chunks[-1].usage is not None
    completion = client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}])
    assert completion.choices[0].message.content == "Hi!"
    events = list(client.responses.create(model="gpt-5", input="hello", stream=True))
    assert events[-1].type == "response.completed"
    assert [r.provider for r in sink] == ["openai"] * 3
    assert sink[0].output_tokens == chunks[-1].usage.completion_tokens
    assert sink[1].input_tokens + sink[1].cache_read_tokens == completion.usage.prompt_tokens  # type: ignore[union-attr]
    assert sink[2].reasoning_tokens == 16


def test_default_sink_writes_jsonl_that_totals_pick_up(upstream: Any, data_root: Path) -> None:
    client = instrument(anthropic.Anthropic(api_key="k", base_url=upstream.url, max_retries=0))
    assert instrument(client) is client  # instrumenting twice is a no-op
    client.messages.create(model="claude-test", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    result = totals(["origin"], root=data_root)
    assert [(r["origin"], r["calls"]) for r in result.rows] == [("sdk", 1)]


def test_instrument_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="Anthropic or OpenAI"):
        instrument(object())
