"""OpenAI's own form is enough (issue 26, 4c): consumers that are right on OpenAI's own
streams, run UNPATCHED on the repaired stream, build the right message.

Three consumers, each as its users drive it, none patched (tests/core installs no shim):
the openai SDK's ``ChatCompletionStreamState`` (``handle_chunk`` per chunk, then
``get_final_completion()``), langchain-core's ``AIMessageChunk`` sum (chunks built as
langchain-openai builds them), smolagents' ``agglomerate_stream_deltas`` (deltas built
as ``OpenAIServerModel.generate_stream`` builds them). For every scenario of the corpus
that ends without an error, and every fragmentation of the strategies: the consumer's
calls (names, parsed arguments, in order), text and, where it keeps them, ids and Gemini
signatures, are the scenario's. On the original streams each consumer is wrong on some
scenario (the test would not notice a repair that does nothing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from strategies import Streamed, examples, streamed
from support import to_openai

import streamfix
import streamfix.testing

pytestmark = pytest.mark.core

SCENARIOS = {
    name: s
    for name, s in streamfix.testing.scenarios().items()
    if s.error is None and not s.truncated and s.shape != "I3"
}
#: Read by the SDK's helper as fields OpenAI never sends: the SDK raises on Anthropic's
#: thinking blocks (no ``index``) and joins reasoning_details' strings; the openai shim
#: reads both (streamfix_openai), the repaired wire passes them on as sent.
NOT_OPENAI_FIELDS = {"f6-thinking-blocks"}

Calls = list[tuple[str, Any]]


def openai_state(chunks: list[dict[str, Any]]) -> tuple[Calls, str, list[Any]]:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state = ChatCompletionStreamState()
    for body in chunks:
        if body.get("choices") is None:
            continue
        state.handle_chunk(to_openai(body))
    message = state.get_final_completion().choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    signatures = [
        ((c.model_extra or {}).get("extra_content") or {})
        .get("google", {})
        .get("thought_signature")
        for c in message.tool_calls or []
    ]
    return calls, message.content or "", signatures


def _signature(call: Any) -> Any:
    content = (call.model_extra or {}).get("extra_content") or {}
    return content.get("google", {}).get("thought_signature")


def langchain_sum(chunks: list[dict[str, Any]]) -> tuple[Calls, str, list[Any]]:
    from langchain_core.messages import AIMessageChunk
    from langchain_core.messages.tool import tool_call_chunk

    gathered: Any = None
    for body in chunks:
        for choice in body.get("choices") or ():
            delta = choice.get("delta") or {}
            piece = AIMessageChunk(
                content=delta.get("content") or "",
                tool_call_chunks=[
                    tool_call_chunk(
                        name=(e.get("function") or {}).get("name"),
                        args=(e.get("function") or {}).get("arguments"),
                        id=e.get("id"),
                        index=e.get("index"),
                    )
                    for e in delta.get("tool_calls") or ()
                ],
            )
            gathered = piece if gathered is None else gathered + piece
    if gathered is None:
        return [], "", []
    assert not gathered.invalid_tool_calls, gathered.invalid_tool_calls
    calls = [(c["name"], c["args"]) for c in gathered.tool_calls]
    return calls, str(gathered.content), []


def smolagents_agglomerate(chunks: list[dict[str, Any]]) -> tuple[Calls, str, list[Any]]:
    from smolagents.models import (
        ChatMessageStreamDelta,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
        agglomerate_stream_deltas,
    )

    deltas = []
    for body in chunks:
        for choice in body.get("choices") or ():
            delta = choice.get("delta") or {}
            calls = [
                ChatMessageToolCallStreamDelta(
                    index=e.get("index"),
                    id=e.get("id"),
                    type=e.get("type"),
                    function=ChatMessageToolCallFunction(
                        name=(e.get("function") or {}).get("name"),
                        arguments=(e.get("function") or {}).get("arguments"),
                    ),
                )
                for e in delta.get("tool_calls") or ()
            ]
            deltas.append(
                ChatMessageStreamDelta(content=delta.get("content"), tool_calls=calls or None)
            )
    message = agglomerate_stream_deltas(deltas)
    found = [
        (c.function.name, json.loads(c.function.arguments) if c.function.arguments else {})
        for c in message.tool_calls or []
    ]
    return found, message.content or "", []


CONSUMERS: dict[str, Callable[[list[dict[str, Any]]], tuple[Calls, str, list[Any]]]] = {
    "openai-state": openai_state,
    "langchain-core": langchain_sum,
    "smolagents": smolagents_agglomerate,
}


def _expected(scenario: Any) -> tuple[Calls, str]:
    return [(c["name"], c["arguments"]) for c in scenario.calls], scenario.text


def _tools(scenario: Any) -> list[str]:
    return sorted({c["name"] for c in scenario.calls})


def _right(consumer: str, chunks: list[dict[str, Any]], scenario: Any) -> bool:
    try:
        calls, text, signatures = CONSUMERS[consumer](chunks)
    except Exception:  # a consumer that crashes on a stream got it wrong
        return False
    if (calls, text) != _expected(scenario):
        return False
    wanted = [s for s in scenario.signatures if s]
    return consumer != "openai-state" or not wanted or [s for s in signatures if s] == wanted


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_unpatched_consumers_read_the_repaired_stream_right(consumer: str, name: str) -> None:
    if consumer == "openai-state" and name in NOT_OPENAI_FIELDS:
        return  # the SDK raises on a field OpenAI never sends (module docstring)
    scenario = SCENARIOS[name]
    repaired = list(streamfix.repair(list(scenario.chunks), _tools(scenario)))
    assert _right(consumer, repaired, scenario)


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_each_consumer_is_wrong_on_some_original_stream(consumer: str) -> None:
    wrong = [
        name
        for name, scenario in SCENARIOS.items()
        if name not in NOT_OPENAI_FIELDS and not _right(consumer, list(scenario.chunks), scenario)
    ]
    assert len(wrong) >= 3, wrong


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@examples(40)
@given(data=streamed(max_calls=4))
def test_any_fragmentation(consumer: str, data: Streamed) -> None:
    response = data.response
    if response.thinking or response.details:
        return  # reasoning metadata: fields OpenAI never sends (module docstring)
    repaired = list(streamfix.repair(data.chunks))
    calls, text, _ = CONSUMERS[consumer](repaired)
    assert calls == [(c.name, c.args) for c in response.calls]
    assert text == response.content


DIALECT_SCENARIOS = {
    name: s
    for name, s in streamfix.testing.DIALECT_SCENARIOS.items()
    if s.error is None and not s.truncated
}


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@pytest.mark.parametrize("name", sorted(DIALECT_SCENARIOS))
def test_unpatched_consumers_read_a_repaired_dialect_stream_right(consumer: str, name: str) -> None:
    """Issue 25, part 4: a J-M stream (Responses, Anthropic, Gemini native, Bedrock)
    repaired is OpenAI chat chunks that each consumer reads right, signatures included:
    what a framework converting the dialect (litellm) can hand on."""
    scenario = DIALECT_SCENARIOS[name]
    repaired = list(streamfix.repair(list(scenario.chunks), _tools(scenario)))
    assert _right(consumer, repaired, scenario)
