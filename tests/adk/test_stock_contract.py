"""Stock's split of a stream into final responses is the contract where it loses nothing.

google-adk finalizes a segment at a finish reason and starts afresh (its own tests pin
this: ``test_generate_content_async_stream_reason_does_not_carry_over``). Where that keeps
every call and all the text, the patched ``LiteLlm`` gives stock's final responses; where
it loses something (``test_streaming_text_buffer_is_reset_between_aggregated_responses``:
stock keeps only the last text segment), the fix keeps everything in one final response.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import support
from google.adk.models.lite_llm import LiteLlm, LiteLLMClient
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from litellm.types.utils import ModelResponseStream

import streamfix_adk

#: The shim's fixed path against stock's split (and the text-segment loss the upstream
#: patch leaves alone: upstream's own test pins it): not run in direct mode.
pytestmark = pytest.mark.shim_only

MODEL = "openai/streamfix"
STOCK_GENERATE = LiteLlm.__dict__["generate_content_async"]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> ModelResponseStream:
    return support.to_litellm(support.chunk(delta=delta, finish=finish, model="streamfix"))


class _Client(LiteLLMClient):  # type: ignore[misc]
    def __init__(self, chunks: list[ModelResponseStream]) -> None:
        self._chunks = chunks

    async def acompletion(self, **_: Any) -> Any:
        async def stream() -> Any:
            for chunk in self._chunks:
                yield chunk.model_copy(deep=True)

        return stream()


def _finals(cls: type[LiteLlm], chunks: list[ModelResponseStream]) -> list[dict[str, Any]]:
    llm = cls(model=MODEL, llm_client=_Client(chunks))
    request = LlmRequest(
        model=MODEL,
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="go")])],
        config=types.GenerateContentConfig(),
    )

    async def collect() -> list[Any]:
        return [r async for r in llm.generate_content_async(request, stream=True)]

    return [
        r.model_dump(exclude={"usage_metadata"}) for r in asyncio.run(collect()) if not r.partial
    ]


def _texts(finals: list[dict[str, Any]]) -> list[str]:
    return [
        "".join(p["text"] or "" for p in (f["content"] or {}).get("parts") or []) for f in finals
    ]


CALL = {
    "tool_calls": [
        {
            "index": 0,
            "id": "call_a",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ]
}
REASON_DOES_NOT_CARRY_OVER = [
    _chunk(CALL),
    _chunk({}, "length"),
    _chunk({"content": "It is "}),
    _chunk({"content": "sunny."}),
]
TEXT_BUFFER_RESET = [
    _chunk({"content": "first "}),
    _chunk({}, "stop"),
    _chunk({"content": "second"}),
    _chunk({}, "stop"),
]


def test_a_call_then_text_after_a_finish_gives_stocks_final_responses() -> None:
    stock = _finals(LiteLlm, REASON_DOES_NOT_CARRY_OVER)
    calls = [
        p for f in stock for p in (f["content"] or {}).get("parts") or [] if p["function_call"]
    ]
    assert len(stock) == 2 and len(calls) == 1  # stock loses nothing: the contract
    assert "It is sunny." in _texts(stock)
    assert _finals(streamfix_adk.StreamFixLiteLlm, REASON_DOES_NOT_CARRY_OVER) == stock
    streamfix_adk.install()
    assert _finals(LiteLlm, REASON_DOES_NOT_CARRY_OVER) == stock


def test_text_segments_stock_would_lose_are_kept_in_one_final_response() -> None:
    stock = _finals(LiteLlm, TEXT_BUFFER_RESET)
    assert _texts(stock) == ["second"]  # stock: "first " reached no final response
    patched = _finals(streamfix_adk.StreamFixLiteLlm, TEXT_BUFFER_RESET)
    assert _texts(patched) == ["first second"]


def test_the_streamed_generator_frame_is_adks_own_loop() -> None:
    """google-adk's own regression test for its buffers reads the generator frame's
    ``text_parts`` (a list of fragments, not a growing string): with the patch the frame
    is still ADK's stream loop."""
    chunks = [_chunk({"content": "a"}), _chunk({"content": "b"}), _chunk({}, "stop")]
    request = LlmRequest(
        model=MODEL,
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="go")])],
        config=types.GenerateContentConfig(),
    )

    async def buffers(cls: type[LiteLlm]) -> Any:
        responses = cls(model=MODEL, llm_client=_Client(chunks)).generate_content_async(
            request, stream=True
        )
        await responses.__anext__()
        await responses.__anext__()
        frame = responses.ag_frame
        seen = frame.f_code, frame.f_locals.get("text_parts")
        await responses.aclose()
        return seen

    stock = asyncio.run(buffers(LiteLlm))
    assert stock[0] is STOCK_GENERATE.__code__
    if stock[1] is not None:  # google-adk 2.x buffers text as fragments (1.x: one string)
        assert stock[1] == ["a", "b"]
    assert asyncio.run(buffers(streamfix_adk.StreamFixLiteLlm)) == stock
    streamfix_adk.install()
    assert asyncio.run(buffers(LiteLlm)) == stock
