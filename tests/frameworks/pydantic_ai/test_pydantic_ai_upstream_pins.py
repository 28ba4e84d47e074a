"""pydantic-ai's own streaming behaviours of ``OpenAIChatModel``, pinned here: the
pydantic-ai-slim sdist ships no tests, so the chat-completions streaming cases of
upstream's ``tests/models/test_openai.py`` (``test_stream_text``,
``test_stream_text_finish_reason``, ``test_stream_structured``,
``test_stream_structured_finish_reason``, ``test_stream_tool_call_with_empty_text``,
``test_stream_text_empty_think_tag_and_text_before_tool_call``, ``test_no_delta``) are
rewritten as streams the replay server sends over real HTTP to a real ``AsyncOpenAI``
(upstream hands pydantic-ai a mocked client instead), with upstream's expectations: what
``stream_text`` / ``stream_output`` yield, in order, the final output, the usage.

Each runs stock and with the wire installed: the same, and as upstream expects, but for
one event the wire does not pass on (:func:`test_stream_structured`). The streams keep
upstream's oddities (every chunk carries usage, tool-call entries with no ``function``, an
empty ``tool_calls`` list, chunks without choices, a name-only entry before the
arguments).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from typing_extensions import TypedDict

import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer

pydantic_ai = pytest.importorskip("pydantic_ai")

USAGE = {"completion_tokens": 1, "prompt_tokens": 2, "total_tokens": 3}


def _chunk(*deltas: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A chunk as upstream's tests build them: one choice per delta, usage on each."""
    return {
        "id": "123",
        "object": "chat.completion.chunk",
        "created": 1704067200,
        "model": "gpt-4o-123",
        "choices": [
            {"index": i, "delta": delta, "finish_reason": finish} for i, delta in enumerate(deltas)
        ],
        "usage": USAGE,
    }


def _text(text: str, finish: str | None = None) -> dict[str, Any]:
    return _chunk({"content": text, "role": "assistant"}, finish=finish)


def _struct(name: str | None, arguments: str | None, finish: str | None = None) -> dict[str, Any]:
    call = {"index": 0, "function": {"name": name, "arguments": arguments}}
    return _chunk({"tool_calls": [call]}, finish=finish)


NO_FUNCTION = _chunk({"tool_calls": [{"index": 0, "function": None}]})
ARGUMENTS = [
    _struct(None, '{"first": "One'),
    _struct(None, '", "second": "Two"'),
    _struct(None, "}"),
]
BOTH = {"first": "One", "second": "Two"}

STREAMS: dict[str, list[dict[str, Any]]] = {
    "pin-stream-text": [_text("hello "), _text("world"), _chunk()],
    "pin-stream-text-finish-reason": [_text("hello "), _text("world"), _text(".", "stop")],
    "pin-stream-structured": [
        _chunk({}),
        _chunk({"tool_calls": []}),
        NO_FUNCTION,
        NO_FUNCTION,
        _struct("final_result", None),
        NO_FUNCTION,
        *ARGUMENTS,
        _chunk(),
    ],
    "pin-stream-structured-finish-reason": [
        _struct("final_result", None),
        *ARGUMENTS,
        _struct(None, None, "stop"),
    ],
    "gpt-oss-20b": [  # a tool call with empty text
        _chunk(
            {
                "content": "",
                "tool_calls": [
                    {"index": 0, "function": {"name": "final_result", "arguments": None}}
                ],
            }
        ),
        *ARGUMENTS,
        _chunk(),
    ],
    "qwen3": [  # an empty think block and text before the tool call
        _text("<think>"),
        _text("\n"),
        _text("</think>"),
        _text("\n\n"),
        _struct("final_result", None),
        *ARGUMENTS,
        _chunk(),
    ],
    "pin-no-delta": [_chunk(), _text("hello "), _text("world")],
}


class MyTypedDict(TypedDict, total=False):
    first: str
    second: str


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    scenarios = {
        name: testing.Scenario(name, "pin", name, "openai", tuple(chunks))
        for name, chunks in STREAMS.items()
    }
    with ReplayServer(scenarios=scenarios) as replay:
        yield replay


#: The streams upstream sends to an Ollama model (``OllamaProvider``, whose profile for
#: the model reads ``<think>`` tags): named as that model (the server picks the stream by
#: the model name).
OLLAMA = {"gpt-oss-20b", "qwen3"}


def _agent(server: ReplayServer, name: str, output_type: Any = str) -> Any:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.ollama import OllamaProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    client = openai.AsyncOpenAI(
        api_key="sk-streamfix-test", base_url=server.openai_base_url, max_retries=0
    )
    if name in OLLAMA:
        provider: Any = OllamaProvider(openai_client=client)
    else:
        provider = OpenAIProvider(openai_client=client)
    return pydantic_ai.Agent(OpenAIChatModel(name, provider=provider), output_type=output_type)


def _texts(server: ReplayServer, name: str) -> tuple[list[str], Any, Any]:
    """``stream_text`` (no debounce), the usage, the last response."""

    async def go() -> tuple[list[str], Any, Any]:
        async with _agent(server, name).run_stream("") as result:
            texts = [text async for text in result.stream_text(debounce_by=None)]
            assert result.is_complete
            return texts, result.usage, result.all_messages()[-1]

    return asyncio.run(go())


def _outputs(server: ReplayServer, name: str, output_type: Any) -> tuple[list[Any], Any]:
    """What ``stream_output`` (no debounce) yields, and the final output."""

    async def go() -> tuple[list[Any], Any]:
        async with _agent(server, name, output_type).run_stream("") as result:
            outputs = [out async for out in result.stream_output(debounce_by=None)]
            assert result.is_complete
        return outputs, await result.get_output()

    return asyncio.run(go())


@pytest.fixture(params=["stock", "patched"])
def wire(request: pytest.FixtureRequest) -> str:
    if request.param == "patched":
        streamfix_openai.install()
    return str(request.param)


def test_stream_text(server: ReplayServer, wire: str) -> None:
    texts, usage, _ = _texts(server, "pin-stream-text")
    assert texts == ["hello ", "hello world"]
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 6, 3)


def test_stream_text_finish_reason(server: ReplayServer, wire: str) -> None:
    texts, _, response = _texts(server, "pin-stream-text-finish-reason")
    assert texts == ["hello ", "hello world", "hello world."]
    assert [(p.part_kind, p.content) for p in response.parts] == [("text", "hello world.")]
    assert response.finish_reason == "stop"


def test_no_delta(server: ReplayServer, wire: str) -> None:
    texts, usage, _ = _texts(server, "pin-no-delta")
    assert texts == ["hello ", "hello world"]
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 6, 3)


def test_stream_structured(server: ReplayServer, wire: str) -> None:
    """Entries without ``function``, an empty ``tool_calls`` and an empty delta around
    the name-only entry: the output grows as upstream expects. Patched, one event less:
    the wire hands a call's name on with its first argument fragment when the entry naming
    it has no id and no arguments (it is not OpenAI's own form, which the wire passes on as
    it came), so the empty output ``{}`` that stock yields for the entry without
    ``function`` after the name is not yielded; the outputs after it, and the final one,
    are upstream's."""
    outputs, final = _outputs(server, "pin-stream-structured", MyTypedDict)
    expected = [{}, {"first": "One"}, BOTH, BOTH, BOTH]
    assert outputs == (expected if wire == "stock" else expected[1:])
    assert final == BOTH


def test_stream_structured_finish_reason(server: ReplayServer, wire: str) -> None:
    outputs, final = _outputs(server, "pin-stream-structured-finish-reason", MyTypedDict)
    assert outputs == [{"first": "One"}, BOTH, BOTH, BOTH]
    assert final == BOTH


def test_tool_call_with_empty_text(server: ReplayServer, wire: str) -> None:
    """Ollama's empty text beside the call: not taken for a text output."""
    outputs, final = _outputs(server, "gpt-oss-20b", [str, MyTypedDict])
    assert outputs == [{"first": "One"}, BOTH, BOTH, BOTH]
    assert final == BOTH


def test_think_tag_before_tool_call(server: ReplayServer, wire: str) -> None:
    """Qwen3's empty ``<think>`` block before the call: not taken for a text output."""
    outputs, final = _outputs(server, "qwen3", [str, MyTypedDict])
    assert outputs == [{}, {"first": "One"}, BOTH, BOTH, BOTH]
    assert final == BOTH
