"""The other wire dialects (wire-shapes J-M): OpenAI Responses, Anthropic Messages, Gemini
native and Bedrock ConverseStream, read by the same assembler into the same message.

Each scenario of ``streamfix.testing``'s J-M corpus as dicts and as its SDK's own objects
(openai's Responses events, anthropic's stream events, google-genai's
``GenerateContentResponse``; botocore decodes ConverseStream events to dicts), and the
property: any fragmentation of a response in each dialect assembles to that response.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamfix
from streamfix import ToolCallAssembler
from streamfix.testing import (
    DIALECT_SCENARIOS,
    Scenario,
    anthropic_stream,
    bedrock_stream,
    dialect_problems,
    gemini_stream,
    responses_stream,
)

NAMES = sorted(DIALECT_SCENARIOS)


def _outcome(chunks: Any, **options: Any) -> tuple[streamfix.AssembledMessage, Exception | None]:
    try:
        return streamfix.assemble(chunks, **options), None
    except streamfix.StreamFixError as error:
        return error.message, error


def _calls(message: streamfix.AssembledMessage) -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "arguments": c.parsed} for c in message.tool_calls]


def assert_right(scenario: Scenario, chunks: Any) -> None:
    assert dialect_problems(scenario, chunks) == []


def test_the_corpus_covers_every_shape_of_j_to_m() -> None:
    shapes = {s.shape for s in DIALECT_SCENARIOS.values()}
    assert {"J1", "J2", "J3", "J4", "J5", "J6", "K1", "K2", "K3", "K4"} <= shapes
    assert {"L1", "L2", "L3", "L4", "M1"} <= shapes


@pytest.mark.parametrize("name", NAMES)
def test_each_shape_as_dicts(name: str) -> None:
    assert_right(DIALECT_SCENARIOS[name], DIALECT_SCENARIOS[name].chunks)


def _sdk_objects(scenario: Scenario) -> list[Any]:
    """The scenario's items as its SDK parses them (an Anthropic ``error`` event, which
    the SDK raises on instead of parsing, stays the dict it was)."""
    from pydantic import TypeAdapter

    if scenario.dialect == "responses":
        from openai.types.responses import ResponseStreamEvent

        adapter: Any = TypeAdapter(ResponseStreamEvent)
        return [adapter.validate_python(item) for item in scenario.chunks]
    if scenario.dialect == "anthropic":
        from anthropic.types import RawMessageStreamEvent

        adapter = TypeAdapter(RawMessageStreamEvent)
        return [
            item if item["type"] == "error" else adapter.validate_python(item)
            for item in scenario.chunks
        ]
    from google.genai import types

    return [types.GenerateContentResponse.model_validate(item) for item in scenario.chunks]


SDK_NAMES = [n for n in NAMES if DIALECT_SCENARIOS[n].dialect != "bedrock"]


@pytest.mark.parametrize("name", SDK_NAMES)
def test_each_shape_as_sdk_objects(name: str) -> None:
    objects = _sdk_objects(DIALECT_SCENARIOS[name])
    assert all(not isinstance(item, dict) for item in objects[:1])
    assert_right(DIALECT_SCENARIOS[name], objects)


@pytest.mark.parametrize("name", NAMES)
def test_fed_one_by_one_with_events(name: str) -> None:
    """``feed`` (with events) gives what ``assemble`` gives, and says each call started."""
    scenario = DIALECT_SCENARIOS[name]
    assembler = ToolCallAssembler()
    events: list[Any] = []
    try:
        for item in scenario.chunks:
            events += assembler.feed(item)
        message = assembler.finish()
    except streamfix.StreamFixError as error:  # a provider error is raised as it comes
        message = error.message
    assert message == _outcome(scenario.chunks)[0]
    started = [e for e in events if isinstance(e, streamfix.ToolCallStarted)]
    assert [e.name for e in started] == [
        c["name"] for c in (*scenario.calls, *scenario.partial_calls)
    ]


def test_the_dialect_named_or_detected() -> None:
    scenario = DIALECT_SCENARIOS["k1-anthropic-calls"]
    assert ToolCallAssembler(dialect="anthropic").dialect == "anthropic"
    assembler = ToolCallAssembler()
    assembler.feed(scenario.chunks[0])
    assert assembler.dialect == "anthropic"
    assert _calls(streamfix.assemble(scenario.chunks, dialect="anthropic")) == list(scenario.calls)
    with pytest.raises(ValueError, match="unknown dialect"):
        ToolCallAssembler(dialect="cohere")


def test_a_chat_stream_is_still_chat() -> None:
    assembler = ToolCallAssembler()
    assembler.feed({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]})
    assert assembler.dialect == "chat"


def test_j3_a_stray_delta_is_a_diagnostic_never_appended() -> None:
    message, _ = _outcome(DIALECT_SCENARIOS["j3-responses-empty-and-stray"].chunks)
    assert message.tool_calls[0].parsed == {"city": "Paris"}
    assert any("after call 0 was done" in d.detail for d in message.diagnostics)


def test_l3_a_stream_cut_inside_streamed_arguments_is_truncated() -> None:
    """No terminator, no finish reason: the arguments so far, cut (E4), never ``{}``."""
    chunks = DIALECT_SCENARIOS["l3-gemini-partial-args"].chunks[:2]
    message, error = _outcome(chunks)
    assert isinstance(error, streamfix.TruncatedToolCallError)
    assert message.tool_calls == []
    assert error.partial_arguments[0].startswith('{"query": "')


def _without_terminators(chunks: Any) -> list[Any]:
    return [c for c in chunks if c["candidates"][0]["content"]["parts"] != [{"functionCall": {}}]]


@pytest.mark.parametrize("second", ["get_weather", "search"])
def test_l3_a_call_named_while_another_streams_begins_a_call(second: str) -> None:
    """Calls streamed by path with no empty ``functionCall`` between them: a part naming
    another call (another name, or the same name under another id) ends the open call and
    begins its own (adk-python#4311: ADK glues same-name calls, ``ParisRome``)."""
    first = {"id": "fc_1", "name": "search", "arguments": {"query": "streamed", "limit": 3}}
    other = {"id": "fc_2", "name": second, "arguments": {"query": "Rome", "limit": 1}}
    message, error = _outcome(_without_terminators(gemini_stream([first, other], streamed=True)))
    assert error is None
    calls = [(c.id, c.name, c.parsed) for c in message.tool_calls]
    assert calls == [(c["id"], c["name"], c["arguments"]) for c in (first, other)]


def test_l3_a_continuation_naming_its_own_call_continues_it() -> None:
    """A later part repeating the open call's name (and id, or none) continues it."""
    call = {"id": "fc_1", "name": "search", "arguments": {"query": "streamed arguments"}}
    chunks = _without_terminators(gemini_stream([call], streamed=True))
    for chunk in chunks[1:-1]:
        chunk["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] = "search"
    message, error = _outcome(chunks)
    assert error is None
    assert [(c.id, c.parsed) for c in message.tool_calls] == [("fc_1", call["arguments"])]


def test_k5_a_server_tool_block_is_not_a_client_call() -> None:
    chunks = anthropic_stream([], "Searching.")
    start = {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"},
    }
    message, error = _outcome([*chunks[:-2], start, *chunks[-2:]])
    assert error is None and message.tool_calls == []
    assert any("server_tool_use" in d.detail for d in message.diagnostics)


def test_l4_malformed_function_call_is_a_typed_error() -> None:
    chunks = gemini_stream([], finish="MALFORMED_FUNCTION_CALL")
    _, error = _outcome(chunks)
    assert isinstance(error, streamfix.ProviderStreamError)
    assert "MALFORMED_FUNCTION_CALL" in str(error)


# --- any fragmentation ----------------------------------------------------------------------

_KEYS = st.text(st.characters(codec="utf-8", exclude_characters="$.[]'\""), min_size=1, max_size=6)
_LEAVES = (
    st.text(max_size=12)
    | st.integers(-1000, 1000)
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False, allow_infinity=False, width=32).filter(lambda f: f != int(f))
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(_KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)
_ARGUMENTS = st.dictionaries(_KEYS, _VALUES, max_size=4)
_NAMES = st.sampled_from(["get_weather", "get_time", "search", "read_file", "get_weather_v2"])


def _cut(data: st.DataObject) -> Any:
    def cut(text: str) -> list[str]:
        points = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=5))))
        bounds = [0, *points, len(text)]
        pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
        return [p for p in pieces if p] or [text]

    return cut


def _drawn_calls(data: st.DataObject, prefix: str, ids: bool = True) -> list[dict[str, Any]]:
    count = data.draw(st.integers(0, 3))
    return [
        {
            "id": f"{prefix}_{n}" if ids else None,
            "name": data.draw(_NAMES),
            "arguments": data.draw(_ARGUMENTS),
        }
        for n in range(count)
    ]


def _normal(arguments: Any) -> Any:
    return json.loads(json.dumps(arguments))


@pytest.mark.parametrize("dialect", ["responses", "anthropic", "gemini", "bedrock"])
@given(data=st.data())
def test_any_fragmentation_assembles_to_the_response(dialect: str, data: st.DataObject) -> None:
    text = data.draw(st.text(max_size=20))
    cut = _cut(data)
    if dialect == "responses":
        calls = _drawn_calls(data, "call")
        chunks = responses_stream(calls, text, cut=cut)
    elif dialect == "anthropic":
        calls = _drawn_calls(data, "toolu")
        chunks = anthropic_stream(
            calls, text, cut=cut, stop_reason="tool_use" if calls else "end_turn"
        )
    elif dialect == "gemini":
        streamed = data.draw(st.booleans())
        calls = _drawn_calls(data, "fc", ids=data.draw(st.booleans()))
        chunks = gemini_stream(calls, text, cut=cut, streamed=streamed)
    else:
        calls = _drawn_calls(data, "tooluse")
        chunks = bedrock_stream(
            calls, text, cut=cut, stop_reason="tool_use" if calls else "end_turn"
        )
    message, error = _outcome(chunks)
    assert error is None, error
    assert message.content == text
    assert [(c.id, c.name, c.parsed) for c in message.tool_calls] == [
        (c["id"], c["name"], _normal(c["arguments"])) for c in calls
    ]
    assert message.finish_reason == ("tool_calls" if calls else "stop")


@pytest.mark.parametrize("dialect", ["responses", "anthropic", "gemini", "bedrock"])
def test_the_repaired_stream_says_it_does_not_write_these_dialects(dialect: str) -> None:
    """Not repaired yet (the wire reads chat completions): a clear error, never a
    stream of chat chunks made of another dialect's fields."""
    scenario = next(s for s in DIALECT_SCENARIOS.values() if s.dialect == dialect)
    with pytest.raises(TypeError, match=f"this stream is {dialect}"):
        list(streamfix.repair(scenario.chunks))
