"""``finish(choice)`` judges only that choice; ``finish_all`` every choice; the options of
``assemble`` and ``aassemble``."""

from __future__ import annotations

from typing import Any

import pytest
from support import chunk, tc

import streamfix


def _chunk(choice: int, entry: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return chunk(entry, choice=choice, finish=finish)


def _stream() -> list[dict[str, Any]]:
    """Choice 0 complete; choice 1 cut off inside its arguments (E4 + E7)."""
    call = {"index": 0, "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    cut = {"index": 0, "id": "b", "function": {"name": "get_time", "arguments": '{"zone": "Eu'}}
    return [
        _chunk(0, {**call, "id": "a"}),
        _chunk(1, cut),
        _chunk(0, {"index": 0, "function": {"arguments": ""}}, "tool_calls"),
        _chunk(1, {"index": 0, "function": {"arguments": ""}}, "length"),
    ]


def _fed() -> streamfix.ToolCallAssembler:
    assembler = streamfix.ToolCallAssembler()
    for body in _stream():
        assembler.feed(body)
    return assembler


def test_finish_of_a_complete_choice_ignores_a_truncated_other_choice() -> None:
    message = _fed().finish(choice=0)
    assert [(c.id, c.name, c.parsed) for c in message.tool_calls] == [
        ("a", "get_weather", {"city": "Paris"})
    ]
    assert message.choice == 0
    assert streamfix.assemble(_stream(), choice=0) == message


def test_finish_of_the_truncated_choice_raises_with_its_own_message() -> None:
    with pytest.raises(streamfix.TruncatedToolCallError) as caught:
        _fed().finish(choice=1)
    error = caught.value
    assert error.message is not None
    assert error.message.choice == 1
    assert error.message.tool_calls == []
    assert error.partial_arguments == {0: '{"zone": "Eu'}
    assert error.partial_names == {0: "get_time"}
    assert "finish_reason=length" in str(error)


def test_finish_all_raises_for_the_failing_choice() -> None:
    with pytest.raises(streamfix.TruncatedToolCallError) as caught:
        _fed().finish_all()
    assert caught.value.message is not None
    assert caught.value.message.choice == 1


def test_finish_closes_the_assembler() -> None:
    assembler = _fed()
    assembler.finish(choice=0)
    with pytest.raises(streamfix.AssemblerClosedError):
        assembler.finish(choice=1)
    with pytest.raises(streamfix.AssemblerClosedError):
        assembler.feed(_stream()[0])


def test_assemble_options_are_checked() -> None:
    """``assemble`` and ``aassemble`` take their options as keywords; an unknown one is a
    ``TypeError``, as a written-out signature would make it."""
    import asyncio

    stream = [chunk(tc(0, "call_a", "f", "{}")), chunk(tc(0, "call_b", "g", "{}"), choice=1)]
    assert streamfix.assemble(stream, choice=1).tool_calls[0].name == "g"
    with pytest.raises(TypeError, match="'chioce'"):
        streamfix.assemble(stream, chioce=1)  # type: ignore[call-arg]

    async def chunks() -> Any:
        for body in stream:
            yield body

    assert asyncio.run(streamfix.aassemble(chunks(), choice=1)).tool_calls[0].name == "g"
    with pytest.raises(TypeError, match="'max_bytes'"):
        asyncio.run(streamfix.aassemble(chunks(), max_bytes=1))  # type: ignore[call-arg]


def test_feed_without_events_is_assemble() -> None:
    """``feed(chunk, events=False)`` builds no events and ends in ``assemble``'s message;
    a provider error still raises when its chunk arrives."""
    stream = [
        chunk(tc(0, "call_a", "f", '{"a": ')),
        chunk(tc(0, args="1}")),
        chunk(content="ok", finish="tool_calls"),
    ]
    assembler = streamfix.ToolCallAssembler()
    assert [assembler.feed(body, events=False) for body in stream] == [[], [], []]
    assert assembler.finish() == streamfix.assemble(stream)
    failing = streamfix.ToolCallAssembler()
    failing.feed(stream[0], events=False)
    with pytest.raises(streamfix.ProviderStreamError, match="overloaded"):
        failing.feed({"error": {"message": "overloaded"}}, events=False)
