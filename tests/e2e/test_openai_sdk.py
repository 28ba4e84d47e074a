"""The real ``openai`` SDK against the server: streamed + ``streamfix.assemble`` equals the
non-streamed response of the same scenario, for every OpenAI-dialect scenario."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from conftest import USER, assembled_calls, expected_calls

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

OPENAI = streamfix.testing.scenarios("openai")
COMPLETE = sorted(n for n, s in OPENAI.items() if s.error is None and not s.truncated)


def _client(server: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
    )


def _non_streamed_calls(message: Any) -> list[tuple[Any, ...]]:
    calls = []
    for call in message.tool_calls or []:
        extra = (call.model_extra or {}).get("extra_content") or {}
        signature = extra.get("google", {}).get("thought_signature")
        calls.append((call.id, call.function.name, json.loads(call.function.arguments), signature))
    return calls


@pytest.mark.parametrize("name", COMPLETE)
def test_streamed_assembles_to_non_streamed(streamfix_server: ReplayServer, name: str) -> None:
    client = _client(streamfix_server)
    stream = client.chat.completions.create(model=name, messages=USER, stream=True)
    chunks = list(stream)
    assert len(chunks) == len(OPENAI[name].chunks)  # one SDK chunk per SSE event
    streamed = streamfix.assemble(chunks)
    whole = client.chat.completions.create(model=name, messages=USER)
    choice = whole.choices[0]
    assert assembled_calls(streamed) == _non_streamed_calls(choice.message)
    assert assembled_calls(streamed) == expected_calls(OPENAI[name])
    assert streamed.content == (choice.message.content or "")
    assert streamed.finish_reason == choice.finish_reason


def test_async_sdk_with_aassemble(streamfix_server: ReplayServer) -> None:
    async def run() -> streamfix.AssembledMessage:
        client = openai.AsyncOpenAI(
            base_url=streamfix_server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
        )
        stream = await client.chat.completions.create(
            model="b3-same-index", messages=USER, stream=True
        )
        return await streamfix.aassemble(stream)

    message = asyncio.run(run())
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time"]


def test_truncated_stream_and_its_non_streamed_twin(streamfix_server: ReplayServer) -> None:
    client = _client(streamfix_server)
    stream = client.chat.completions.create(model="e4-truncated", messages=USER, stream=True)
    with pytest.raises(streamfix.TruncatedToolCallError) as caught:
        streamfix.assemble(stream)
    assert caught.value.message is not None
    assert [c.name for c in caught.value.message.tool_calls] == ["get_weather"]
    assert caught.value.partial_arguments == {1: '{"zone": "Eur'}
    whole = client.chat.completions.create(model="e4-truncated", messages=USER)
    assert whole.choices[0].finish_reason == "length"
    tool_calls = whole.choices[0].message.tool_calls or []
    assert tool_calls[1].function.arguments == '{"zone": "Eur'


def test_error_mid_stream_and_its_non_streamed_twin(streamfix_server: ReplayServer) -> None:
    """The openai SDK raises the in-stream error object itself (``openai.APIError`` with the
    provider's text); the raw chunks fed to streamfix give its ``ProviderStreamError``."""
    client = _client(streamfix_server)
    stream = client.chat.completions.create(model="e5-error", messages=USER, stream=True)
    assembler = streamfix.ToolCallAssembler()
    with pytest.raises(openai.APIError, match="upstream overloaded"):
        for chunk in stream:
            assembler.feed(chunk)
    assert assembler.finish().content == "Let me check"
    with pytest.raises(streamfix.ProviderStreamError) as caught:
        streamfix.assemble(OPENAI["e5-error"].chunks)
    assert caught.value.provider_message == "upstream overloaded"
    with pytest.raises(openai.InternalServerError, match="upstream overloaded"):
        client.chat.completions.create(model="e5-error", messages=USER)
