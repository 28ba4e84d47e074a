"""The drop-in ``agglomerate_stream_deltas`` hands the core one reused chunk for every delta
that only adds argument text; whatever the deltas, the result (or the error) is the one the
core gives for each delta's own ``delta_to_chunk``: reusing the chunk changes nothing,
also when such a chunk leaves the fast path (text that opens a new value at an index whose
call is complete, cumulative arguments, an index the stream has not seen)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import streamfix

TEXTS = st.sampled_from(
    ['{"q": ', '"A"', "}", '{"q": "B"}', ' {"q"', ": 1}", '{"q": "A"}', "", "x", "]"]
)


@st.composite
def deltas(draw: st.DrawFn) -> list[Any]:
    from smolagents.models import (
        ChatMessageStreamDelta,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
    )
    from smolagents.monitoring import TokenUsage

    out: list[Any] = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["header", "args", "args", "args", "text", "usage"]))
        if kind == "text":
            out.append(ChatMessageStreamDelta(content=draw(st.sampled_from(["Hi", " ", ""]))))
        elif kind == "usage":
            out.append(ChatMessageStreamDelta(content="", token_usage=TokenUsage(3, 4)))
        else:
            header = kind == "header"
            function = ChatMessageToolCallFunction(
                name=draw(st.sampled_from(["search", "fetch"])) if header else None,  # type: ignore[arg-type]
                arguments=draw(TEXTS),
            )
            entry = ChatMessageToolCallStreamDelta(
                index=draw(st.sampled_from([0, 0, 1, None])),
                id=draw(st.sampled_from(["call_1", "call_2"])) if header else None,
                type="function" if header else None,
                function=function,
            )
            out.append(ChatMessageStreamDelta(content=None, tool_calls=[entry]))
    return out


def _outcome(run: Any) -> Any:
    try:
        return run()
    except streamfix.StreamFixError as error:
        return type(error), str(error)


@given(deltas())
def test_reused_chunk_changes_nothing(stream: list[Any]) -> None:
    from streamfix_smolagents import agglomerate_stream_deltas, delta_to_chunk, to_chat_message
    from streamfix_smolagents._agglomerate import STREAM_END

    def one_chunk_per_delta() -> Any:
        chunks = [delta_to_chunk(delta) for delta in stream]
        return to_chat_message(streamfix.assemble(itertools.chain(chunks, (STREAM_END,))))

    assert _outcome(lambda: agglomerate_stream_deltas(stream)) == _outcome(one_chunk_per_delta)
