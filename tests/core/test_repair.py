"""The repaired stream (wire-shapes R): ``streamfix.repair`` and ``StreamRepairer``.

For every scenario of the corpus and every fragmentation the strategies make, as dicts,
``openai`` and ``litellm`` chunk objects:

(a) ``assemble(repair(s))`` equals ``assemble(s)``: the same calls (names, arguments,
    signatures, order), text, reasoning and reasoning metadata, usage; the same error
    type, carrying the same message, where the stream ends in one. What the repair
    changes on purpose: ``stop`` with calls is ``tool_calls`` (R8), a call the provider
    sent without an id gets one (R3), ids shared by distinct calls are made unique (G3);
(b) the repaired stream is in OpenAI's own form (``streamfix.testing.is_canonical``);
(d) R1: a stream already in that form comes out object for object.

One shape cannot be repaired on a wire: arguments that restart (I3) after their first
bytes went out. Then the repaired stream ends in ``MalformedToolCallError``, whose
``message`` is the original's assembly (its call right).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import DIALECTS, Streamed, examples, recut_one_char, streamed
from support import KINDS, Kind, chunk, convert, tc

import streamfix
import streamfix.testing
from streamfix import (
    AssembledMessage,
    MalformedToolCallError,
    ProviderStreamError,
    StreamFixError,
    StreamRepairer,
    TruncatedToolCallError,
)
from streamfix.testing import canonical_problems

pytestmark = pytest.mark.core

CORPUS = streamfix.testing.scenarios("openai")
UNREPAIRABLE = {"i3-restarted"}  # I3: the restart comes after bytes that went out


def _message_view(message: AssembledMessage, original: AssembledMessage) -> dict[str, Any]:
    """What (a) compares, the repair's deliberate changes undone by ``original``."""
    ids = [c.id for c in original.with_unique_ids().tool_calls]
    calls = [
        (c.id if ids[n] is not None else None, c.name, c.arguments, c.parsed, c.thought_signature)
        for n, c in enumerate(message.tool_calls)
    ]
    finish = message.finish_reason
    if finish == "tool_calls" and original.finish_reason in ("stop", "end_turn"):
        finish = original.finish_reason
    return {
        "calls": calls,
        "content": message.content,
        "reasoning": message.reasoning,
        "finish": finish,
        "usage": message.usage,
        "details": message.reasoning_details,
        "blocks": message.thinking_blocks,
    }


def _original_view(original: AssembledMessage) -> dict[str, Any]:
    calls = [
        (c.id, c.name, c.arguments, c.parsed, c.thought_signature)
        for c in original.with_unique_ids().tool_calls
    ]
    return {
        "calls": calls,
        "content": original.content,
        "reasoning": original.reasoning,
        "finish": original.finish_reason,
        "usage": original.usage,
        "details": original.reasoning_details,
        "blocks": original.thinking_blocks,
    }


def outcome(chunks: list[Any], **kwargs: Any) -> AssembledMessage | StreamFixError:
    try:
        return streamfix.assemble(chunks, **kwargs)
    except StreamFixError as exc:
        return exc


def repaired(chunks: list[Any], **kwargs: Any) -> tuple[list[Any], StreamFixError | None]:
    out: list[Any] = []
    try:
        for item in streamfix.repair(chunks, **kwargs):
            out.append(item)
    except StreamFixError as exc:
        return out, exc
    return out, None


def check_stream(chunks: list[Any], tools: Any = None, unrepairable: bool = False) -> list[Any]:
    """(a) and (b) for one stream; the repaired chunks."""
    before = outcome(chunks, tools=tools)
    out, error = repaired(chunks, tools=tools)
    if unrepairable:
        assert isinstance(error, MalformedToolCallError), error
        assert isinstance(before, AssembledMessage)
        assert error.message == before
        return out
    if isinstance(before, StreamFixError):
        assert type(error) is type(before), (error, before)
        assert str(error) == str(before)
        if before.message is not None and error.message is not None:
            assert _message_view(error.message, before.message) == _original_view(before.message)
        assert not canonical_problems(out, complete=False), canonical_problems(out, complete=False)
        return out
    assert error is None, error
    after = streamfix.assemble(out, tools=tools)
    assert _message_view(after, before) == _original_view(before)
    assert not canonical_problems(out), canonical_problems(out)
    return out


def _tools(name: str) -> list[str]:
    return sorted({call["name"] for call in CORPUS[name].calls})


@pytest.mark.parametrize("declared", [False, True], ids=["no-tools", "tools"])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus(name: str, declared: bool, kind: Kind) -> None:
    tools = _tools(name) if declared else None
    check_stream(kind(list(CORPUS[name].chunks)), tools, name in UNREPAIRABLE)


@pytest.mark.parametrize("name", sorted(streamfix.testing.scenarios("ollama")))
def test_ollama_lines_come_out_as_openai_chunks(name: str) -> None:
    """R11: Ollama's ``/api/chat`` lines come out as OpenAI chunk dicts, each call its own
    index and id."""
    chunks = list(streamfix.testing.scenarios("ollama")[name].chunks)
    out = check_stream(chunks)
    assert all("choices" in body for body in out)


# Scenarios already in OpenAI's own form (their own canonical check passes).
OPENAI_FORM = sorted(
    n
    for n, s in CORPUS.items()
    if not canonical_problems(s.chunks) and s.error is None and not s.truncated
)


def test_some_scenarios_are_in_openai_form() -> None:
    assert {"text", "d3-escapes-split", "f1-signature", "b1-interleaved"} <= set(OPENAI_FORM)


@pytest.mark.parametrize("name", OPENAI_FORM)
def test_r1_a_stream_in_openai_form_comes_out_object_for_object(name: str, kind: Kind) -> None:
    chunks = kind(list(CORPUS[name].chunks))
    out, error = repaired(chunks, tools=_tools(name))
    assert error is None
    assert len(out) == len(chunks)
    assert all(a is b for a, b in zip(out, chunks, strict=True))


@pytest.mark.parametrize("dialect", DIALECTS)
@examples(50)
@given(draw=st.data())
def test_any_fragmentation(dialect: str, draw: st.DataObject) -> None:
    data = draw.draw(streamed(dialect))
    for kind in ("dict", "openai"):
        check_stream(convert(kind, data.chunks))
    tools = sorted({c.name for c in data.response.calls})
    check_stream(data.chunks, tools)


@examples(40)
@given(data=streamed(max_calls=4))
def test_one_character_per_chunk(data: Streamed) -> None:
    check_stream(recut_one_char(data.chunks, data.dialect))


@examples(25)
@given(data=streamed(max_calls=4))
def test_litellm_objects(data: Streamed) -> None:
    from pydantic import ValidationError

    try:
        chunks = convert("litellm", data.chunks)
    except ValidationError:  # litellm's types refuse it (H1 pieces, I2's nulls)
        return
    check_stream(chunks)


# --- named shapes -------------------------------------------------------------------------

HEADER = tc(0, "call_a", "get_weather", "", typed="with id")
ROLE = {"role": "assistant"}  # on a choice's first chunk, as OpenAI sends it


def _entries(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for c in out for ch in c["choices"] for e in ch["delta"].get("tool_calls") or []]


def test_r5_several_entries_become_one_chunk_each() -> None:
    body = chunk(
        tc(0, "a", "f", '{"x": 1}', typed="with id"),
        tc(1, "b", "g", '{"y": 2}', typed="with id"),
        content="hi",
        finish="tool_calls",
    )
    out = list(streamfix.repair([body]))
    assert [len(c["choices"][0]["delta"].get("tool_calls") or []) for c in out] == [1, 1, 0]
    assert out[0]["choices"][0]["delta"]["content"] == "hi"
    assert [c["choices"][0]["finish_reason"] for c in out] == [None, None, "tool_calls"]


def test_r3_the_name_goes_out_once_and_continuations_carry_arguments_only() -> None:
    stream = [
        chunk(HEADER),
        chunk(tc(0, "call_a", "get_weather", '{"city"', typed="with id")),  # C1
        chunk(tc(0, "call_a", "get_weather", ': "Paris"}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    entries = _entries(list(streamfix.repair(stream)))
    assert entries == [
        {
            "index": 0,
            "id": "call_a",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city"'},
        },
        {"index": 0, "function": {"arguments": ': "Paris"}'}},
    ]


def test_r6_a_header_waits_for_its_first_argument_byte_without_declared_tools() -> None:
    """C2: without tools, the name may still grow until the arguments begin."""
    repairer = StreamRepairer()
    (role,) = repairer.feed(chunk(tc(0, "c", "edit_ex", "", typed="with id")))
    assert role["choices"][0]["delta"] == {"role": "assistant"}  # the choice's first chunk
    assert repairer.feed(chunk(tc(0, name="isting_file"))) == []
    (out,) = repairer.feed(chunk(tc(0, args="{}")))
    assert _entries([out])[0]["function"] == {"name": "edit_existing_file", "arguments": "{}"}
    assert repairer.held == 2


def test_r6_a_declared_name_goes_out_at_once() -> None:
    header = chunk(HEADER, delta=ROLE)
    repairer = StreamRepairer(["get_weather", "get_time"])
    assert repairer.feed(header) == [header]
    assert repairer.held == 0


def test_r6_a_declared_name_that_another_extends_waits() -> None:
    repairer = StreamRepairer(["get", "get_time"])
    assert _entries(repairer.feed(chunk(tc(0, "c", "get", "", typed="with id")))) == []


def test_e2_a_finish_reason_mid_stream_goes_out_once_at_the_end() -> None:
    stream = [
        chunk(tc(0, "a", "f", '{"x": 1}', typed="with id"), finish="tool_calls"),
        chunk(tc(1, "b", "g", '{"y": 2}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["f", "g"]))
    reasons = [c["choices"][0]["finish_reason"] for c in out]
    assert [r for r in reasons if r] == ["tool_calls"]
    assert reasons[-1] == "tool_calls"
    assert [c.name for c in streamfix.assemble(out).tool_calls] == ["f", "g"]


def test_r8_stop_with_calls_is_tool_calls() -> None:
    stream = [chunk(tc(0, "a", "f", "{}", typed="with id"), delta=ROLE), chunk(finish="stop")]
    out = list(streamfix.repair(stream, ["f"]))
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert out[0] is stream[0]


def test_r8_stop_without_calls_stays_stop() -> None:
    stream = [chunk(content="hi", delta=ROLE), chunk(finish="stop")]
    assert list(streamfix.repair(stream)) == stream


def test_r7_a_late_signature_goes_on_an_entry_of_its_own_call() -> None:
    sig = {"extra_content": {"google": {"thought_signature": "c2ln"}}}
    stream = [
        chunk(tc(0, "a", "f", "{}", typed="with id")),
        chunk(tc(1, "b", "g", "{}", typed="with id")),
        chunk(tc(0, **sig)),  # F2: after another call
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["f", "g"]))
    signed = [e for e in _entries(out) if "extra_content" in e]
    assert signed == [{"index": 0, "function": {"arguments": ""}, **sig}]  # the SDK asserts one
    message = streamfix.assemble(out)
    assert [c.thought_signature for c in message.tool_calls] == ["c2ln", None]


def test_r7_a_signature_before_its_call_goes_on_its_header() -> None:
    sig = {"extra_content": {"google": {"thought_signature": "c2ln"}}}
    stream = [chunk(tc(0, **sig)), chunk(HEADER), chunk(tc(0, args="{}")), chunk(finish="stop")]
    out = list(streamfix.repair(stream, ["get_weather"]))
    assert _entries(out)[0]["extra_content"] == sig["extra_content"]


def test_b3_same_index_calls_get_their_own_index_and_an_id() -> None:
    stream = [
        chunk(tc(0, name="search", args='{"q": "A"}')),
        chunk(tc(0, name="search", args='{"q": "B"}')),
        chunk(finish="stop"),
    ]
    out = list(streamfix.repair(stream, ["search"]))
    headers = [e for e in _entries(out) if "id" in e]
    assert [e["index"] for e in headers] == [0, 1]
    assert len({e["id"] for e in headers}) == 2
    assert all(e["id"].startswith("call_") for e in headers)


def test_b4_several_values_in_one_string_become_several_calls() -> None:
    stream = [
        chunk(tc(0, "c", "read", '{"path": "a"} {"path": "b"}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["read"]))
    message = streamfix.assemble(out)
    assert [(c.id, c.parsed) for c in message.tool_calls] == [
        ("c", {"path": "a"}),
        ("c-1", {"path": "b"}),
    ]
    assert not canonical_problems(out)


def test_i1_double_encoded_arguments_go_out_decoded() -> None:
    stream = [
        chunk(tc(0, "c", "f", '"{\\"a\\": 1}"', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["f"]))
    assert _entries(out)[-1]["function"]["arguments"] == '{"a": 1}'


def test_h1_a_legacy_call_goes_out_as_tool_calls() -> None:
    stream = [
        chunk(delta={"function_call": {"name": "f", "arguments": ""}}),
        chunk(delta={"function_call": {"arguments": "{}"}}),
        chunk(finish="function_call"),
    ]
    out = list(streamfix.repair(stream, ["f"]))
    assert all("function_call" not in c["choices"][0]["delta"] for c in out)
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert not canonical_problems(out)


def test_g3_shared_ids_are_made_unique() -> None:
    stream = [
        chunk(tc(0, "same", "f", '{"a": 1}', typed="with id")),
        chunk(tc(1, "same", "g", '{"b": 2}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["f", "g"]))
    assert [c.id for c in streamfix.assemble(out).tool_calls] == ["same", "same-1"]


def test_g4_a_repeated_call_goes_out_once() -> None:
    stream = [
        chunk(tc(0, "same", "f", '{"a": 1}', typed="with id")),
        chunk(tc(1, "same", "f", '{"a": 1}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    out = list(streamfix.repair(stream, ["f"]))
    assert [c.id for c in streamfix.assemble(out).tool_calls] == ["same"]


# --- errors (R9, R10) ---------------------------------------------------------------------


def test_r9_an_error_payload_ends_the_stream_after_what_went_out() -> None:
    stream = [
        chunk(content="partial", delta=ROLE),
        chunk(HEADER),
        {"error": {"message": "model overloaded", "code": 503}},
        chunk(content="never"),
    ]
    out: list[Any] = []
    with pytest.raises(ProviderStreamError, match="model overloaded") as caught:
        for item in streamfix.repair(stream):
            out.append(item)
    assert out[0] is stream[0]
    assert caught.value.status_code == 503


def test_r10_a_truncated_call_raises_after_the_complete_ones() -> None:
    stream = [
        chunk(tc(0, "a", "f", '{"x": 1}', typed="with id"), delta=ROLE),
        chunk(tc(1, "b", "g", '{"y": ', typed="with id")),
        chunk(finish="length"),
    ]
    out: list[Any] = []
    with pytest.raises(TruncatedToolCallError) as caught:
        for item in streamfix.repair(stream, ["f", "g"]):
            out.append(item)
    assert [c.name for c in caught.value.message.tool_calls] == ["f"]
    assert out[0] is stream[0]
    assert canonical_problems(out, complete=False) == []


def test_e9_a_call_that_never_gets_a_name_is_never_passed_on() -> None:
    stream = [chunk(tc(0, "a", args='{"x": 1}')), chunk(finish="tool_calls")]
    out, error = repaired(stream)
    assert isinstance(error, MalformedToolCallError)
    assert _entries(out) == []


def test_e10_an_abandoned_call_already_passed_on_is_an_error() -> None:
    stream = [
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_a", "f", '{"city": "Pa', typed="with id")),
        chunk(content="", delta=ROLE),
        chunk(tc(0, "call_x", "f", '{"city": "Paris"}', typed="with id")),
        chunk(finish="tool_calls"),
    ]
    _, error = repaired(stream, tools=["f"])
    assert isinstance(error, MalformedToolCallError)
    assert "took back" in str(error)
    assert error.message is not None
    assert [c.id for c in error.message.tool_calls] == ["call_x"]


def test_i3_a_restart_before_anything_went_out_is_repaired() -> None:
    """Without tools the header waits for its first argument byte; a double-encoded or
    restarted value that never went out is repaired whole."""
    stream = [
        chunk(tc(0, "c", "f", '"{\\"a\\"', typed="with id")),
        chunk(tc(0, args=': 1}"')),
        chunk(finish="tool_calls"),
    ]
    check_stream(stream)


# --- bad input (5) ------------------------------------------------------------------------


@pytest.mark.parametrize("given_", [None, "text", b"bytes", 3])
def test_repair_refuses_what_is_not_an_iterable_of_chunks(given_: Any) -> None:
    with pytest.raises(TypeError, match="expected an iterable of chunks"):
        list(streamfix.repair(given_))


def test_a_repairer_after_its_error_refuses_more() -> None:
    repairer = StreamRepairer()
    repairer.feed({"error": {"message": "boom"}})
    assert isinstance(repairer.error, ProviderStreamError)
    with pytest.raises(StreamFixError):
        repairer.feed(chunk(content="x"))


def test_unreadable_items_are_dropped_not_passed_on() -> None:
    stream = [1, chunk(content="ok", delta=ROLE), "x"]
    out = list(streamfix.repair(stream))
    assert out == [stream[1]]


# --- async ----------------------------------------------------------------------------------


def test_arepair_equals_repair(kind: Kind) -> None:
    chunks = kind(list(CORPUS["b3-same-index"].chunks))

    async def source() -> AsyncIterator[Any]:
        for item in chunks:
            yield item

    async def collect() -> list[Any]:
        return [item async for item in streamfix.arepair(source(), ["get_weather", "get_time"])]

    got = asyncio.run(collect())
    want = list(streamfix.repair(chunks, ["get_weather", "get_time"]))
    assert streamfix.assemble(got).tool_calls[0].name == "get_weather"
    assert len(got) == len(want)


def test_kinds_come_out_as_they_came_in(kind: Kind) -> None:
    chunks = kind(list(CORPUS["a1-one-chunk"].chunks))
    out = list(streamfix.repair(chunks))
    assert {type(c) for c in out} == {type(chunks[0])}


def test_every_kind_is_tested() -> None:
    assert KINDS == ("dict", "openai", "litellm")


def test_a_choice_begins_with_its_role() -> None:
    """OpenAI names the role on a choice's first chunk (the node openai package's stream
    helper requires it): a provider that never sends it gets it on the first chunk."""
    stream = [chunk(tc(0, "a", "f", "{}", typed="with id")), chunk(finish="tool_calls")]
    out = list(streamfix.repair(stream, ["f"]))
    assert out[0]["choices"][0]["delta"]["role"] == "assistant"
    assert not canonical_problems(out)
    named = [chunk(content="hi", delta={"role": "assistant"}), chunk(finish="stop")]
    assert list(streamfix.repair(named)) == named  # sent: passed on as it is
