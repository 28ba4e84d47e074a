"""The openai SDK's own stream helper over real HTTP: ``client.chat.completions.stream``
(sync and async) against the replay server, for every OpenAI-dialect scenario, stock
and patched; the patched helper's final completion equals the non-streamed response of
the same scenario (``client.chat.completions.parse``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from conftest import USER
from support import shim_fixture

import streamfix.testing
from streamfix.testing import ReplayServer

OPENAI = streamfix.testing.scenarios("openai")
COMPLETE = sorted(n for n, s in OPENAI.items() if s.error is None and not s.truncated)
# Where the SDK's helper (stock) already gives the non-streamed calls.
STOCK_RIGHT = {"text", "a1-one-chunk", "b1-interleaved", "d3-escapes-split", "g3-shared-id"}
STOCK_RIGHT |= {"e1-stop", "f1-signature", "b1-three-commands", "a1-signature"}

_openai_stock = shim_fixture("openai", autouse=True, name="_openai_stock")
openai_patched = shim_fixture("openai", install=True, name="openai_patched")


def _client(server: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
    )


def _calls(message: Any) -> list[tuple[Any, ...]]:
    """The calls, then the reasoning metadata (F5, F6) where the message carries any."""
    calls: list[tuple[Any, ...]] = [
        (call.id, call.function.name, json.loads(call.function.arguments))
        for call in message.tool_calls or []
    ]
    for key in ("reasoning_details", "thinking_blocks"):
        if getattr(message, key, None) is not None:
            calls.append((key, getattr(message, key)))
    return calls


def _streamed(server: ReplayServer, name: str) -> Any:
    with _client(server).chat.completions.stream(model=name, messages=USER) as stream:
        for _ in stream:
            pass
        return stream.get_final_completion().choices[0].message


def _whole(server: ReplayServer, name: str) -> Any:
    return _client(server).chat.completions.parse(model=name, messages=USER).choices[0].message


@pytest.mark.parametrize("name", COMPLETE)
def test_stream_helper_equals_non_streamed(
    streamfix_server: ReplayServer, name: str, request: pytest.FixtureRequest
) -> None:
    whole = _whole(streamfix_server, name)
    try:
        stock: Any = _calls(_streamed(streamfix_server, name))
    except Exception as error:
        stock = error
    assert (stock == _calls(whole)) is (name in STOCK_RIGHT), stock
    request.getfixturevalue("openai_patched")
    message = _streamed(streamfix_server, name)
    if name == "h1-legacy-function-call":  # the non-streamed side is already a tool call
        assert message.function_call is not None
    assert _calls(message) == _calls(whole)
    assert (message.content or "") == (whole.content or "")


def test_async_stream_helper(streamfix_server: ReplayServer, openai_patched: None) -> None:
    async def run() -> Any:
        client = openai.AsyncOpenAI(
            base_url=streamfix_server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
        )
        async with client.chat.completions.stream(model="b3-same-index", messages=USER) as s:
            async for _ in s:
                pass
            return (await s.get_final_completion()).choices[0].message

    message = asyncio.run(run())
    assert [c.function.name for c in message.tool_calls or []] == ["get_weather", "get_time"]


def test_error_payload_raises_the_sdks_api_error(
    streamfix_server: ReplayServer, openai_patched: None
) -> None:
    with pytest.raises(openai.APIError, match="upstream overloaded"):
        _streamed(streamfix_server, "e5-error")
