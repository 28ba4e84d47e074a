"""Wire shapes E8-E11 (E10 a stretch goal), G1, G5, G6, H1 and I1-I3 (docs/wire-shapes.md),
each fed as dicts, ``openai`` ``ChatCompletionChunk`` and ``litellm`` ``ModelResponseStream``
objects (the ``kind`` fixture). F5 and F6 are in ``test_reasoning_shapes.py``, G2-G4 in
``test_identity_shapes.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import Kind, chunk, tc

import streamfix
from streamfix import MalformedToolCallError, TruncatedToolCallError

pytestmark = pytest.mark.core

WEATHER = '{"city": "Paris"}'
HEAD, TAIL = '{"city": ', '"Paris"}'


def calls(message: streamfix.AssembledMessage) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.parsed) for c in message.tool_calls]


def codes(message: streamfix.AssembledMessage) -> list[str]:
    return [d.code for d in message.diagnostics]


# --- E: ends of streams -------------------------------------------------------------------


@pytest.mark.parametrize("finish", ["tool_calls", "stop", "content_filter"])
def test_e8_arguments_cut_off_under_a_normal_finish(kind: Kind, finish: str) -> None:
    """A finish reason that says the stream ended well does not make cut-off arguments
    complete: E4's error, the finish reason named in it, the complete call kept."""
    stream = [
        chunk(tc(0, "call_a", "get_time", '{"tz": "UTC"}')),
        chunk(tc(1, "call_b", "get_weather", '{"city": "Pa')),
        chunk(finish=finish),
    ]
    with pytest.raises(TruncatedToolCallError) as caught:
        streamfix.assemble(kind(stream))
    assert f"finish_reason={finish}" in str(caught.value)
    assert calls(caught.value.message) == [("call_a", "get_time", {"tz": "UTC"})]
    assert caught.value.partial_arguments == {1: '{"city": "Pa'}


def test_e9_a_call_that_never_gets_a_name_is_an_error_naming_its_id(kind: Kind) -> None:
    stream = [
        chunk(tc(0, "call_a", "get_time", "{}")),
        chunk(tc(1, "call_b", args=WEATHER)),
        chunk(finish="tool_calls"),
    ]
    with pytest.raises(MalformedToolCallError, match="'call_b'") as caught:
        streamfix.assemble(kind(stream))
    assert calls(caught.value.message) == [("call_a", "get_time", {})]
    assert caught.value.partial_arguments == {1: WEATHER}
    assert caught.value.partial_names == {1: None}


NO_PARAMETERS = {"type": "function", "function": {"name": "now", "parameters": {}}}
REQUIRED = {
    "type": "function",
    "function": {
        "name": "now",
        "parameters": {"type": "object", "properties": {"tz": {}}, "required": ["tz"]},
    },
}


def test_e11_a_header_then_the_end_of_the_stream_is_truncation(kind: Kind) -> None:
    """The header (id, name, ``arguments: ""``) and then nothing: no finish reason, no
    argument byte. Not the zero-argument call D2 makes of it when a finish reason came."""
    stream = [chunk(tc(0, "call_a", "now", ""))]
    with pytest.raises(TruncatedToolCallError) as caught:
        streamfix.assemble(kind(stream))
    assert caught.value.partial_names == {0: "now"}
    with pytest.raises(TruncatedToolCallError):
        streamfix.assemble(kind(stream), tools=[REQUIRED])
    with pytest.raises(TruncatedToolCallError):  # a name alone says nothing of arguments
        streamfix.assemble(kind(stream), tools=["now"])


@pytest.mark.parametrize(
    "tools",
    [[NO_PARAMETERS], {"now": {"type": "object", "properties": {}}}, {"now": {}}],
    ids=["tool-dicts", "mapping-to-parameters", "mapping-to-empty"],
)
def test_e11_unless_the_declared_tool_takes_no_required_arguments(kind: Kind, tools: Any) -> None:
    stream = [chunk(tc(0, "call_a", "now", ""))]
    message = streamfix.assemble(kind(stream), tools=tools)
    assert calls(message) == [("call_a", "now", {})]


def test_e11_with_a_finish_reason_d2_applies(kind: Kind) -> None:
    stream = [chunk(tc(0, "call_a", "now", "")), chunk(finish="tool_calls")]
    assert calls(streamfix.assemble(kind(stream))) == [("call_a", "now", {})]


ROLE = {"role": "assistant"}


def test_e10_the_answer_restarts_the_unfinished_call_is_abandoned(kind: Kind) -> None:
    """A gateway falls back to another model mid-stream: a partial call, a new role
    chunk, then the new attempt's calls with new ids. The abandoned call is dropped with
    a diagnostic carrying its text, never glued to the new one; text is kept."""
    stream = [
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_a", "get_weather", '{"city": "Pa')),
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_x", "get_weather", HEAD)),
        chunk(tc(0, args=TAIL)),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_x", "get_weather", {"city": "Paris"})]
    assert codes(message) == ["abandoned-attempt"]
    assert '{"city": "Pa' in message.diagnostics[0].detail


def test_e10_complete_calls_of_the_first_attempt_are_kept(kind: Kind) -> None:
    stream = [
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_a", "get_time", '{"tz": "UTC"}')),
        chunk(tc(1, "call_b", "get_weather", HEAD)),
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_x", "get_weather", WEATHER)),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_time", {"tz": "UTC"}),
        ("call_x", "get_weather", {"city": "Paris"}),
    ]
    assert message.diagnostics[0].position == 1  # call_b's
    assert codes(message) == ["abandoned-attempt"]


@pytest.mark.parametrize("kind", ["dict", "openai"], indirect=True)
def test_e10_a_role_on_every_chunk_never_marks_a_restart(kind: Kind) -> None:
    """Kimi, GLM and others name the role on every chunk: a cut-off call then another
    call is E4's truncation, as without any role."""
    stream = [
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_a", "get_weather", '{"city": "Pa'), delta=ROLE),
        chunk(tc(1, "call_b", "get_time", '{"tz": "UTC"}'), delta=ROLE),
        chunk(finish="tool_calls", delta=ROLE),
    ]
    with pytest.raises(TruncatedToolCallError) as caught:
        streamfix.assemble(kind(stream))
    assert caught.value.partial_arguments == {0: '{"city": "Pa'}


def test_e10_a_call_continued_after_the_role_chunk_is_not_abandoned(kind: Kind) -> None:
    stream = [
        chunk(tc(0, "call_a", "get_weather", HEAD)),
        chunk(content="", delta=ROLE),
        chunk(tc(0, args=TAIL)),
        chunk(tc(1, "call_b", "get_time", '{"tz": "UTC"}')),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {"tz": "UTC"}),
    ]
    assert codes(message) == []


def test_e10_a_parallel_call_at_an_index_of_its_own_is_not_a_restart(kind: Kind) -> None:
    """Calls streamed interleaved, a role on a chunk between: the call opening at a new
    index is a parallel call, the unfinished one is continued after it."""
    stream = [
        chunk(tc(0, "call_a", "get_weather", HEAD)),
        chunk(content="", delta=ROLE),
        chunk(tc(1, "call_b", "get_time", '{"tz": ')),
        chunk(tc(0, args=TAIL)),
        chunk(tc(1, args='"UTC"}')),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {"tz": "UTC"}),
    ]
    assert codes(message) == []


def test_e10_without_a_new_role_chunk_a_cut_off_call_is_truncation(kind: Kind) -> None:
    stream = [
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_a", "get_weather", '{"city": "Pa')),
        chunk(tc(0, "call_x", "get_weather", WEATHER)),
        chunk(finish="tool_calls"),
    ]
    with pytest.raises(TruncatedToolCallError):
        streamfix.assemble(kind(stream))


# --- G: identity --------------------------------------------------------------------------


def test_g1_placeholder_identity_on_continuations_is_absent(kind: Kind) -> None:
    """``id: ""``, ``name: ""``, ``type: ""`` on continuation fragments: never a new id
    (no B2 split), never appended to the name."""
    stream = [
        chunk(tc(0, "call_a", "get_weather", HEAD, type="function")),
        chunk(tc(0, "", "", '"Pa', type="")),
        chunk(tc(0, "", "", 'ris"}', type="")),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]
    assert codes(message) == []


@pytest.mark.parametrize("spelling", ["absent", "empty", "repeated"])
def test_g5_type_absent_empty_or_repeated(kind: Kind, spelling: str) -> None:
    """``type`` is ``"function"`` on the call whatever the entries say; never glued."""
    extra = {"absent": {}, "empty": {"type": ""}, "repeated": {"type": "function"}}[spelling]
    stream = [
        chunk(tc(0, "call_a", "get_weather", HEAD, **extra)),
        chunk(tc(0, args=TAIL, **extra)),
        chunk(tc(1, "call_b", "get_time", "{}", **extra)),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {}),
    ]
    assert [c.type for c in message.tool_calls] == ["function", "function"]
    assert message.to_openai_dict()["tool_calls"][0]["type"] == "function"


@pytest.mark.parametrize("kind", ["dict", "litellm"], indirect=True)
def test_g6_index_as_a_digit_string_then_an_int(kind: Kind) -> None:
    """``"0"`` in one chunk and ``0`` in the next: the same index, no diagnostic. (The
    openai SDK's types validate ``index`` as an integer before streamfix sees it.)"""
    stream = [
        chunk(tc("0", "call_a", "get_weather", HEAD)),
        chunk(tc(0, args=TAIL)),
        chunk(tc("1", "call_b", "get_time", "{")),
        chunk(tc(1, args="}")),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {}),
    ]
    assert codes(message) == []


def test_g6_through_the_openai_sdk_without_validation() -> None:
    """The SDK's stream builds chunks without validation: ``"0"`` stays a string."""
    stream = [chunk(tc("0", "call_a", "get_weather", HEAD)), chunk(tc(0, args=TAIL))]
    message = streamfix.assemble(Kind("openai")(stream))
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("kind", ["dict", "openai"], indirect=True)  # litellm refuses it
def test_g6_a_string_that_is_not_digits_is_still_refused(kind: Kind) -> None:
    stream = [chunk(tc("x1", "call_a", "get_weather", WEATHER)), chunk(finish="tool_calls")]
    if kind.name == "openai":
        stream = [stream[0]]  # the SDK's stream builder keeps it as sent; so does this
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]
    assert "skipped-chunk" in codes(message)


# --- H: the legacy dialect ----------------------------------------------------------------


def legacy(*pieces: dict[str, Any], finish: str = "function_call") -> list[dict[str, Any]]:
    stream = [chunk(delta={"role": "assistant", "function_call": pieces[0]}, id="chatcmpl-7")]
    stream += [chunk(delta={"function_call": piece}, id="chatcmpl-7") for piece in pieces[1:]]
    return [*stream, chunk(finish=finish, id="chatcmpl-7")]


def test_h1_legacy_function_call_dialect(kind: Kind) -> None:
    """``delta.function_call``: one tool call with an id made from the response's id,
    finish reason ``tool_calls``."""
    stream = legacy(
        {"name": "get_weather", "arguments": ""}, {"arguments": HEAD}, {"arguments": TAIL}
    )
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_chatcmpl-7", "get_weather", {"city": "Paris"})]
    assert message.finish_reason == "tool_calls"
    assert message.to_openai_dict()["tool_calls"] == [
        {
            "id": "call_chatcmpl-7",
            "type": "function",
            "function": {"name": "get_weather", "arguments": WEATHER},
        }
    ]


def test_h1_legacy_call_cut_off_is_truncation_not_nothing(kind: Kind) -> None:
    stream = legacy({"name": "get_weather", "arguments": HEAD}, finish="length")
    with pytest.raises(TruncatedToolCallError) as caught:
        streamfix.assemble(kind(stream))
    assert caught.value.partial_names == {0: "get_weather"}


def test_h1_tool_calls_win_over_a_mirrored_function_call() -> None:
    """A delta carrying both (some gateways mirror the first call): the calls, once."""
    entry = tc(0, "call_a", "get_weather", WEATHER)
    body = chunk(entry, delta={"function_call": {"name": "get_weather", "arguments": WEATHER}})
    message = streamfix.assemble([body, chunk(finish="tool_calls")])
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]


# --- I: argument payloads -----------------------------------------------------------------


def test_i1_double_encoded_arguments(kind: Kind) -> None:
    encoded = json.dumps(WEATHER)
    stream = [
        chunk(tc(0, "call_a", "get_weather", encoded[:9])),
        chunk(tc(0, args=encoded[9:])),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]
    assert message.tool_calls[0].arguments == WEATHER
    assert codes(message) == ["double-encoded-arguments"]


@pytest.mark.parametrize("content", ["hello", "[1, 2]", '{"city": "Pa'])
def test_i1_a_string_holding_no_object_stays_malformed(kind: Kind, content: str) -> None:
    stream = [chunk(tc(0, "call_a", "get_weather", json.dumps(content))), chunk(finish="stop")]
    with pytest.raises(MalformedToolCallError):
        streamfix.assemble(kind(stream))


@pytest.mark.parametrize("kind", ["dict", "openai"], indirect=True)
def test_i2_explicit_nulls_are_absent(kind: Kind) -> None:
    """``"function": null``, ``"arguments": null`` and an entry of nulls beside real
    calls in one delta: null is absent, the siblings are unaffected. (litellm's own
    types refuse ``"function": null`` when they are built: nothing reaches streamfix.)"""
    nulls = {"index": 2, "id": None, "type": None, "function": None}
    stream = [
        chunk(tc(0, "call_a", "get_weather", WEATHER), nulls, tc(1, "call_b", "get_time", None)),
        chunk(tc(1, args="{}")),
        chunk({"index": 0, "id": None, "function": {"name": None, "arguments": None}}),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {}),
    ]


@pytest.mark.parametrize(
    "prefix",
    ['{"location": "Pa', '{"city": "Pa', '{"a": 1', '{"a": 1, ', "{"],
    ids=["inside-a-string", "a-prefix-of-it", "after-a-value", "after-a-comma", "after-brace"],
)
def test_i3_arguments_restart_with_a_complete_value(kind: Kind, prefix: str) -> None:
    """An unfinished prefix, then a fresh top-level ``{`` beginning a complete value:
    that value, with a diagnostic (``cumulative-arguments`` where the prefix is the
    value's own beginning, C5)."""
    stream = [
        chunk(tc(0, "call_a", "get_weather", prefix)),
        chunk(tc(0, args=HEAD)),
        chunk(tc(0, args=TAIL)),
        chunk(finish="tool_calls"),
    ]
    message = streamfix.assemble(kind(stream))
    assert calls(message) == [("call_a", "get_weather", {"city": "Paris"})]
    assert message.tool_calls[0].arguments == WEATHER
    assert codes(message) in (["restarted-arguments"], ["cumulative-arguments"])


@pytest.mark.parametrize(
    "text",
    ['{"a": "x", "b": {"c": 1}', '{"a": [1, {"c": 1}', '{"a": {"c": 1}', '{"a": [{"c": 1}'],
    ids=["member-value", "array-item", "first-member", "first-item"],
)
def test_i3_a_truncated_call_ending_in_a_nested_object_is_not_a_restart(
    kind: Kind, text: str
) -> None:
    """The nested object could be a member's value: truncation (E4), never the inner
    object handed to the tool as the arguments."""
    stream = [chunk(tc(0, "call_a", "f", text)), chunk(finish="tool_calls")]
    with pytest.raises(TruncatedToolCallError):
        streamfix.assemble(kind(stream))
