"""smolagents' own streaming tests, pinned here: stock and patched give the same outcome.

smolagents v1.26's ``tests/test_models.py`` asserts what ``agglomerate_stream_deltas``
makes of a call's deltas (``test_agglomerate_stream_deltas``), what a model's
``generate_stream`` yields for text (``test_transformers_message_no_tool``, which joins
the deltas' content) and for two parallel calls (``test_streaming_tool_calls``, which reads
each delta's ``tool_calls``). Each is restated with this project's own chunks and run stock
and with ``streamfix_smolagents`` installed: both give the asserted outcome, the patched
deltas equal stock's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from smol_wire import MODEL_WIRES, chunk, stream_deltas, tc

import streamfix_smolagents


@pytest.fixture(params=["stock", "patched"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "patched":
        streamfix_smolagents.install()
    try:
        yield str(request.param)
    finally:
        streamfix_smolagents.uninstall()


def _deltas(wire: str, bodies: list[Any]) -> list[Any]:
    """The current mode's deltas, after checking they equal stock's."""
    deltas = stream_deltas(wire, bodies)
    if streamfix_smolagents.installed():
        streamfix_smolagents.uninstall()
        stock = stream_deltas(wire, bodies)
        streamfix_smolagents.install()
        assert [repr(d) for d in deltas] == [repr(d) for d in stock]
    return deltas


def test_agglomerate_joins_content_arguments_and_usage(mode: str) -> None:
    """``test_agglomerate_stream_deltas``: the name on every delta, arguments in pieces,
    the usage on a last delta of its own."""
    from smolagents.models import (
        ChatMessageStreamDelta,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
        agglomerate_stream_deltas,
    )
    from smolagents.monitoring import TokenUsage

    def delta(content: str, arguments: str) -> Any:
        function = ChatMessageToolCallFunction(arguments=arguments, name="lookup")
        call = ChatMessageToolCallStreamDelta(index=0, type="function", function=function)
        return ChatMessageStreamDelta(content=content, tool_calls=[call])

    deltas = [
        delta("Let", ""),
        delta(" me", '{"term": '),
        delta(" see", '"tides"}'),
        ChatMessageStreamDelta(
            content="", token_usage=TokenUsage(input_tokens=40, output_tokens=9)
        ),
    ]
    message = agglomerate_stream_deltas(deltas)
    assert message.content == "Let me see"
    assert message.tool_calls is not None
    assert message.tool_calls[0].function.arguments == '{"term": "tides"}'
    assert message.token_usage is not None and message.token_usage.total_tokens == 49


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_streamed_text_joins_to_the_answer(wire: str, mode: str) -> None:
    """``test_transformers_message_no_tool`` / ``test_get_hfapi_message_stream_no_tool``:
    the deltas' content, joined, is the answer."""
    bodies = [chunk(content="Hello"), chunk(content=", tide"), chunk(finish="stop")]
    deltas = _deltas(wire, bodies)
    assert "".join(d.content or "" for d in deltas) == "Hello, tide"


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_two_parallel_calls_stream_under_their_indices(wire: str, mode: str) -> None:
    """``test_streaming_tool_calls``: two parallel ``final_answer`` calls; joined per
    index, each delta's calls give each call's arguments."""
    bodies = [
        chunk(tc(0, "call_1", "final_answer", '{"answer": ')),
        chunk(tc(0, args='"blob"}')),
        chunk(tc(1, "call_2", "final_answer", '{"answer": ')),
        chunk(tc(1, args='"blob2"}')),
        chunk(finish="tool_calls"),
    ]
    deltas = _deltas(wire, bodies)
    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    for delta in deltas:
        for call in delta.tool_calls or ():
            arguments[call.index] = arguments.get(call.index, "") + (call.function.arguments or "")
            names[call.index] = names.get(call.index) or call.function.name or ""
    assert names == {0: "final_answer", 1: "final_answer"}
    assert arguments == {0: '{"answer": "blob"}', 1: '{"answer": "blob2"}'}
