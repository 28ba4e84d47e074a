"""google-adk's own streaming tests of its native Gemini path, as a contract: the
behaviours tests/unittests/models/test_google_llm.py checks upstream
(``test_generate_content_async_stream``,
``test_generate_content_async_stream_preserves_thinking_and_text_parts``: every chunk a
partial response, then one final response with the text joined, thoughts before text)
and what ADK's aggregator gives its final response (the usage, the finish reason, the
calls after the text), pinned here (the sdist ships no tests) and held stock and
patched."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

import streamfix


@pytest.fixture(params=["stock", "patched"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "patched":
        streamfix.install("adk")
    yield request.param
    streamfix.uninstall("adk")


def _chunk(*parts: types.Part, finish: Any = None, usage: int | None = None) -> Any:
    candidate = types.Candidate(
        content=types.Content(role="model", parts=list(parts)), finish_reason=finish
    )
    metadata = (
        types.GenerateContentResponseUsageMetadata(total_token_count=usage) if usage else None
    )
    return types.GenerateContentResponse(candidates=[candidate], usage_metadata=metadata)


def _stream(chunks: list[Any]) -> list[LlmResponse]:
    """``Gemini.generate_content_async(stream=True)`` on a client streaming ``chunks``."""

    class _Models:
        async def generate_content_stream(self, **kwargs: Any) -> Any:
            async def stream() -> Any:
                for chunk in chunks:
                    yield chunk

            return stream()

    class _Client:
        vertexai = False
        aio = type("_Aio", (), {"models": _Models()})()

    class _Gemini(Gemini):  # type: ignore[misc]
        @property
        def api_client(self) -> Any:
            return _Client()

    request = LlmRequest(
        model="gemini-2.5-flash",
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="Hello")])],
        config=types.GenerateContentConfig(),
    )

    async def collect() -> list[LlmResponse]:
        llm = _Gemini(model="gemini-2.5-flash")
        return [r async for r in llm.generate_content_async(request, stream=True)]

    return asyncio.run(collect())


def test_generate_content_async_stream(mode: str) -> None:
    responses = _stream(
        [
            _chunk(types.Part.from_text(text="Hello")),
            _chunk(types.Part.from_text(text=", how")),
            _chunk(types.Part.from_text(text=" can I help you?"), finish=types.FinishReason.STOP),
        ]
    )
    assert len(responses) == 4
    assert [r.partial for r in responses[:3]] == [True, True, True]
    assert not responses[3].partial
    assert responses[3].content is not None and responses[3].content.parts
    assert responses[3].content.parts[0].text == "Hello, how can I help you?"


def test_generate_content_async_stream_preserves_thinking_and_text_parts(mode: str) -> None:
    responses = _stream(
        [
            _chunk(types.Part(text="Think1", thought=True)),
            _chunk(types.Part(text="Think2", thought=True)),
            _chunk(types.Part.from_text(text="Answer."), finish=types.FinishReason.STOP),
        ]
    )
    assert len(responses) == 4
    assert [r.partial for r in responses[:3]] == [True, True, True]
    final = responses[3]
    assert final.content is not None and final.content.parts
    assert (final.content.parts[0].text, final.content.parts[0].thought) == ("Think1Think2", True)
    assert final.content.parts[1].text == "Answer."


def test_final_response_has_usage_finish_reason_and_calls_after_text(mode: str) -> None:
    call = types.Part.from_function_call(name="get_weather", args={"city": "Paris"})
    call.thought_signature = b"sig"
    responses = _stream(
        [
            _chunk(types.Part.from_text(text="Checking.")),
            _chunk(call),
            _chunk(finish=types.FinishReason.STOP, usage=42),
        ]
    )
    final = responses[-1]
    assert [r.partial for r in responses] == [True, True, True, False]
    assert final.finish_reason == types.FinishReason.STOP and final.error_code is None
    assert final.usage_metadata is not None and final.usage_metadata.total_token_count == 42
    assert final.content is not None and final.content.parts
    text, part = final.content.parts
    assert text.text == "Checking."
    assert part.function_call is not None and part.thought_signature == b"sig"
    assert (part.function_call.name, part.function_call.args) == ("get_weather", {"city": "Paris"})
