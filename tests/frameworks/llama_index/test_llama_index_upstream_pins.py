"""llama-index's own streaming behaviours of ``llama_index.llms.openai.OpenAI``, pinned
here: the llama-index-llms-openai sdist ships no tests, so the streaming cases of
upstream's ``tests/test_openai.py`` (``test_chat_model_streaming``,
``test_stream_chat_reasoning_content``, ``test_stream_chat_vllm_reasoning_field``,
``test_astream_chat_reasoning_content``, ``test_stream_chat_no_reasoning_content``) are
rewritten as streams the replay server sends over real HTTP to llama-index's real openai
client (upstream mocks the client), with upstream's expectations: the last response's
text and role, its ``ThinkingBlock`` and ``TextBlock``, and the responses carrying a
``thinking_delta``, one per reasoning chunk, in order.

Each runs stock, with the wire alone and with the wire and the ``llama_index`` shim: the
same, and as upstream expects (the streams are OpenAI's own form; the reasoning text rides
on ``reasoning_content`` or, as vLLM sends it, ``reasoning``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from support import shim_fixture

import streamfix
from streamfix import testing
from streamfix.testing import ReplayServer

llama_openai = pytest.importorskip("llama_index.llms.openai")
llms = pytest.importorskip("llama_index.core.llms")
types = pytest.importorskip("llama_index.core.base.llms.types")

_stock_both = shim_fixture("openai", "llama_index", autouse=True, name="_stock_both")


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-pin",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "pin",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


STREAMS: dict[str, list[dict[str, Any]]] = {
    "pin-chat-streaming": [
        _chunk({"role": "assistant"}),
        _chunk({"content": "\n\n"}),
        _chunk({"content": "2"}),
        _chunk({}, "stop"),
    ],
    "pin-reasoning-content": [
        _chunk({"role": "assistant"}),
        _chunk({"content": None, "reasoning_content": "Let me think"}),
        _chunk({"content": None, "reasoning_content": " about this."}),
        _chunk({"content": "The answer"}),
        _chunk({"content": " is 42."}),
        _chunk({}, "stop"),
    ],
    "pin-vllm-reasoning": [
        _chunk({"role": "assistant"}),
        _chunk({"content": None, "reasoning": "Let me think"}),
        _chunk({"content": None, "reasoning": " about this."}),
        _chunk({"content": "The answer"}),
        _chunk({}, "stop"),
    ],
}


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    scenarios = {
        name: testing.Scenario(name, "pin", name, "openai", tuple(chunks))
        for name, chunks in STREAMS.items()
    }
    with ReplayServer(scenarios=scenarios) as replay:
        yield replay


@pytest.fixture(params=["stock", "wire", "wire-and-shim"])
def patches(request: pytest.FixtureRequest) -> str:
    wanted = {"stock": [], "wire": ["openai"], "wire-and-shim": ["openai", "llama_index"]}
    streamfix.install(*wanted[request.param])
    return str(request.param)


def _llm(server: ReplayServer) -> Any:
    return llama_openai.OpenAI(
        model="gpt-4o", api_key="sk-streamfix-test", api_base=server.openai_base_url, max_retries=0
    )


def _messages() -> list[Any]:
    return [llms.ChatMessage(role="user", content="test")]


def _stream(server: ReplayServer, name: str) -> list[Any]:
    return list(_llm(server).stream_chat(_messages(), model=name))


def _blocks(response: Any, kind: str) -> list[Any]:
    return [b for b in response.message.blocks if isinstance(b, getattr(types, kind))]


def _thinking_deltas(responses: list[Any]) -> list[str]:
    return [
        r.additional_kwargs["thinking_delta"]
        for r in responses
        if r.additional_kwargs.get("thinking_delta")
    ]


def test_chat_model_streaming(server: ReplayServer, patches: str) -> None:
    responses = _stream(server, "pin-chat-streaming")
    assert responses[-1].message.blocks[-1].text == "\n\n2"
    assert responses[-1].message.role == "assistant"
    completions = list(_llm(server).stream_complete("test prompt", model="pin-chat-streaming"))
    assert completions[-1].text == "\n\n2"


def test_stream_chat_reasoning_content(server: ReplayServer, patches: str) -> None:
    responses = _stream(server, "pin-reasoning-content")
    final = responses[-1]
    assert [b.content for b in _blocks(final, "ThinkingBlock")] == ["Let me think about this."]
    assert [b.text for b in _blocks(final, "TextBlock")] == ["The answer is 42."]
    assert _thinking_deltas(responses) == ["Let me think", " about this."]


def test_stream_chat_vllm_reasoning_field(server: ReplayServer, patches: str) -> None:
    responses = _stream(server, "pin-vllm-reasoning")
    assert [b.content for b in _blocks(responses[-1], "ThinkingBlock")] == [
        "Let me think about this."
    ]
    assert _thinking_deltas(responses) == ["Let me think", " about this."]


def test_astream_chat_reasoning_content(server: ReplayServer, patches: str) -> None:
    async def go() -> list[Any]:
        stream = await _llm(server).astream_chat(_messages(), model="pin-reasoning-content")
        return [response async for response in stream]

    responses = asyncio.run(go())
    final = responses[-1]
    assert [b.content for b in _blocks(final, "ThinkingBlock")] == ["Let me think about this."]
    assert [b.text for b in _blocks(final, "TextBlock")] == ["The answer is 42."]
    assert len(_thinking_deltas(responses)) == 2


def test_stream_chat_no_reasoning_content(server: ReplayServer, patches: str) -> None:
    responses = _stream(server, "pin-chat-streaming")
    assert _blocks(responses[-1], "ThinkingBlock") == []
    assert responses[-1].message.content == "\n\n2"
