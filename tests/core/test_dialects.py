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
import re
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
    assert isinstance(error, streamfix.ProviderMalformedCallError)
    assert isinstance(error, streamfix.MalformedToolCallError)  # a malformed call,
    assert isinstance(error, streamfix.ProviderStreamError)  # with the provider's words
    assert "MALFORMED_FUNCTION_CALL" in error.provider_message
    repaired, raised = _repairing(chunks)  # the repaired stream raises the same
    assert raised == (type(error), str(error))
    assert streamfix.assemble(repaired[:-1] or repaired).tool_calls == []


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


def _drawn_stream(dialect: str, data: st.DataObject) -> tuple[list[Any], list[Any], str]:
    """A response drawn at random in ``dialect``, cut at random: its items, calls, text."""
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
    return list(chunks), calls, text


@pytest.mark.parametrize("dialect", ["responses", "anthropic", "gemini", "bedrock"])
@given(data=st.data())
def test_any_fragmentation_assembles_to_the_response(dialect: str, data: st.DataObject) -> None:
    chunks, calls, text = _drawn_stream(dialect, data)
    message, error = _outcome(chunks)
    assert error is None, error
    assert message.content == text
    assert [(c.id, c.name, c.parsed) for c in message.tool_calls] == [
        (c["id"], c["name"], _normal(c["arguments"])) for c in calls
    ]
    assert message.finish_reason == ("tool_calls" if calls else "stop")


# --- the repaired stream (wire-shapes R) of a J-M stream: OpenAI chat chunks -------------


def _summary(chunks: Any, **options: Any) -> dict[str, Any]:
    """What a stream assembles to, as far as the chat form can carry it (usage aside:
    the repaired stream gives it in OpenAI's words)."""
    message, error = _outcome(chunks, **options)
    return {
        "calls": [(c.id, c.name, c.arguments, c.thought_signature) for c in message.tool_calls],
        "text": message.content,
        "reasoning": message.reasoning,
        "finish": message.finish_reason,
        "blocks": message.thinking_blocks,
        "details": message.reasoning_details,
        "error": None if error is None else (type(error), str(error)),
    }


def _repaired(items: Any, **options: Any) -> list[Any]:
    """The repaired stream (what came out before the error, if it raised one)."""
    return _repairing(items, **options)[0]


def _repairing(items: Any, **options: Any) -> tuple[list[Any], Any]:
    out: list[Any] = []
    try:
        out.extend(streamfix.repair(items, **options))
    except streamfix.StreamFixError as error:
        return out, (type(error), str(error))
    return out, None


@pytest.mark.parametrize("name", NAMES)
def test_the_repaired_stream_is_openai_chat_chunks_assembling_to_the_same(name: str) -> None:
    """Part 4: the repaired wire reads J-M and writes OpenAI's own chat form (a
    framework converting the dialect, litellm, hands its consumers these): canonical
    (R2-R8), and assembling to what the dialect stream assembles to, error included."""
    from streamfix.testing import canonical_problems

    scenario = DIALECT_SCENARIOS[name]
    repaired, error = _repairing(scenario.chunks)
    assert all(c.get("object") == "chat.completion.chunk" for c in repaired if "choices" in c)
    assert (
        canonical_problems(repaired, complete=scenario.error is None and not scenario.truncated)
        == []
    )
    chat, dialect = _summary(repaired), _summary(scenario.chunks)
    assert error == dialect.pop("error")  # raised, after the chunks before it; the
    assert chat.pop("error") in (None, error)  # chunks carry a cut call cut (E4)
    for mine, theirs in zip(chat["calls"], dialect["calls"], strict=True):
        assert mine[0] == theirs[0] or (theirs[0] is None and mine[0].startswith("call_"))
    chat["calls"] = [call[1:] for call in chat["calls"]]  # an id-less call (L1) gets one
    dialect["calls"] = [call[1:] for call in dialect["calls"]]
    if scenario.shape == "J5":  # a reasoning item, in the chat form: see the test below
        chat["details"] = dialect["details"] = None
    assert chat == dialect


def test_j5_a_reasoning_item_in_the_chat_form() -> None:
    """A Responses reasoning item (J5) in the chat form is what OpenRouter gives for one:
    its summary text, then its encrypted content, at one ``index`` with the item's id."""
    scenario = next(s for s in DIALECT_SCENARIOS.values() if s.shape == "J5")
    (item,) = _summary(scenario.chunks)["details"]
    named = {"id": item["id"], "format": "openai-responses-v1", "index": 0}
    (summary,) = (part["text"] for part in item["summary"])
    assert _summary(_repaired(scenario.chunks))["details"] == [
        {"type": "reasoning.summary", "summary": summary, **named},
        {"type": "reasoning.encrypted", "data": item["encrypted_content"], **named},
    ]


@pytest.mark.parametrize("name", SDK_NAMES)
def test_the_repaired_stream_of_sdk_objects_rebuilt(name: str) -> None:
    """SDK objects in; with ``rebuild``, each chunk out is made from the item it came of
    (a wire shim gives its framework's chunk type); without, dicts."""
    scenario = DIALECT_SCENARIOS[name]
    items = _sdk_objects(scenario)
    seen: list[Any] = []

    def rebuild(body: dict[str, Any], like: Any) -> dict[str, Any]:
        seen.append(like)
        return {**body, "rebuilt": True}

    plain = _repairing(items)
    rebuilt = _repairing(items, rebuild=rebuild)
    assert _minted(([{**c, "rebuilt": True} for c in plain[0]], plain[1])) == _minted(rebuilt)
    assert seen and all(any(like is item for item in items) for like in seen)
    assert _minted(plain) == _minted(_repairing(scenario.chunks))


def _minted(value: Any) -> str:
    """``value`` as text, the ids the repaired stream makes for id-less calls (L1) alike
    (each stream's are its own)."""
    return re.sub(r"call_[0-9a-f]{8}_", "call_", repr(value))


def test_the_repaired_stream_names_the_response() -> None:
    """The chunks carry the response's id and model as the dialect named them, the role
    on the first, usage in OpenAI's words on the last."""
    scenario = next(s for s in DIALECT_SCENARIOS.values() if s.dialect == "anthropic")
    repaired = _repaired(scenario.chunks)
    start = scenario.chunks[0]["message"]
    assert {c["id"] for c in repaired} == {start["id"]}
    assert {c["model"] for c in repaired} == {start["model"]}
    assert repaired[0]["choices"][0]["delta"]["role"] == "assistant"
    usage = [c["usage"] for c in repaired if "usage" in c]
    assert usage and set(usage[-1]) >= {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_a_named_dialect_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        streamfix.StreamRepairer(dialect="klingon")


@pytest.mark.parametrize("dialect", ["responses", "anthropic", "gemini", "bedrock"])
@given(data=st.data())
def test_any_fragmentation_repairs_to_the_response(dialect: str, data: st.DataObject) -> None:
    """Any fragmentation of a response in each dialect, repaired, is canonical OpenAI
    chat chunks assembling to that response."""
    from streamfix.testing import canonical_problems

    chunks, calls, text = _drawn_stream(dialect, data)
    repaired = list(streamfix.repair(chunks))
    assert canonical_problems(repaired) == []
    message = streamfix.assemble(repaired)
    assert message.content == text
    assert [(c.name, c.parsed) for c in message.tool_calls] == [
        (c["name"], _normal(c["arguments"])) for c in calls
    ]
    assert all(c.id == (d["id"] or c.id) for c, d in zip(message.tool_calls, calls, strict=True))
    assert message.finish_reason == ("tool_calls" if calls else "stop")
