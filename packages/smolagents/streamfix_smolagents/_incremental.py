"""The streamed step in linear time: one assembler per step, fed only the new deltas.

smolagents' agent (``_step_stream``) and Gradio UI call ``agglomerate_stream_deltas`` on
the growing list of deltas at every live update, then once more when the stream has
ended. Stock rebuilds the whole message each time: quadratic in the stream's length.

:class:`StreamDeltaAggregator` keeps one :class:`streamfix.ToolCallAssembler` and a live
view built from its events. :func:`agglomerate_growing_deltas` is what the patch binds in
``smolagents.agents`` and ``smolagents.gradio_ui``: it recognises the list it saw last
(same object, same last delta) and feeds only what was appended. A call that finds the list
grown is a live update (the message so far, never an error); a call that finds it
unchanged is the end of the stream (the exact message, as
:func:`agglomerate_stream_deltas` would return it, errors included).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from smolagents.models import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)
from smolagents.monitoring import TokenUsage

import streamfix

from ._agglomerate import STREAM_END, delta_to_chunk, to_chat_message

__all__ = ["StreamDeltaAggregator", "agglomerate_growing_deltas"]


class StreamDeltaAggregator:
    """Assemble smolagents stream deltas one at a time.

    :meth:`add` feeds one delta; :meth:`snapshot` is the message so far (calls still
    streaming show their argument text so far, as stock shows them); :meth:`finish` ends
    the stream and is the exact message :func:`agglomerate_stream_deltas` returns for
    the same deltas (it raises the same errors). Call :meth:`finish` once.
    """

    __slots__ = ("_assembler", "_calls", "_content", "_usage", "count")

    def __init__(self) -> None:
        self._assembler = streamfix.ToolCallAssembler()
        self._content: list[str] = []  # text pieces, joined by snapshot()
        # position -> [id, name, argument text pieces so far]
        self._calls: list[list[Any]] = []
        self._usage: dict[str, Any] = {}
        self.count = 0  # deltas added

    def add(self, delta: ChatMessageStreamDelta) -> None:
        """Feed one delta; the live view follows the core's events."""
        self.count += 1
        for event in self._assembler.feed(delta_to_chunk(delta)):
            self._apply(event)

    def _apply(self, event: streamfix.Event) -> None:
        if isinstance(event, streamfix.ArgumentsDelta):
            self._calls[event.position][2].append(event.delta)
        elif isinstance(event, streamfix.TextDelta):
            self._content.append(event.text)
        elif isinstance(event, streamfix.ToolCallStarted):
            self._calls.append([event.id, event.name, []])
        elif isinstance(event, (streamfix.ToolCallUpdated, streamfix.ToolCallCompleted)):
            call = self._calls[event.position]
            call[0], call[1] = event.id or call[0], event.name or call[1]
        elif isinstance(event, streamfix.UsageReported):
            self._usage = event.usage

    def snapshot(self, role: MessageRole | str = MessageRole.ASSISTANT) -> ChatMessage:
        """The message so far, for a live display. Never raises."""
        many = len(self._calls) > 1
        return ChatMessage(
            role=MessageRole(role),
            content=_joined(self._content),
            tool_calls=[
                ChatMessageToolCall(
                    function=ChatMessageToolCallFunction(name=name or "", arguments=_joined(parts)),
                    id=call_id or (f"call_{position}" if many else ""),
                    type="function",
                )
                for position, (call_id, name, parts) in enumerate(self._calls)
            ],
            token_usage=TokenUsage(
                input_tokens=int(self._usage.get("prompt_tokens") or 0),
                output_tokens=int(self._usage.get("completion_tokens") or 0),
            ),
        )

    def finish(self, role: MessageRole | str = MessageRole.ASSISTANT) -> ChatMessage:
        """End the stream: the assembled message. Raises the core's errors
        (``TruncatedToolCallError``, ``MalformedToolCallError``)."""
        self._assembler.feed(STREAM_END)
        return to_chat_message(self._assembler.finish(), role)


def _joined(parts: list[str]) -> str:
    """The pieces as one string, kept as the only piece: the next snapshot copies it once
    with what came since, not every piece again."""
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


class _Tracked:
    """One growing list and its aggregator."""

    __slots__ = ("aggregator", "deltas", "last")

    def __init__(self, deltas: list[ChatMessageStreamDelta]) -> None:
        self.deltas = deltas  # held so that its id() is not reused while tracked
        self.last: object = None
        self.aggregator = StreamDeltaAggregator()

    def follows(self, deltas: list[ChatMessageStreamDelta]) -> bool:
        """``deltas`` is this list, only appended to since it was last seen."""
        seen = self.aggregator.count
        return (
            deltas is self.deltas
            and len(deltas) >= seen
            and (seen == 0 or deltas[seen - 1] is self.last)
        )


_MAX_TRACKED = 4  # per thread: interleaved streams (several agents in one thread)
_local = threading.local()


def _tracked_lists() -> OrderedDict[int, _Tracked]:
    tracked: OrderedDict[int, _Tracked] | None = getattr(_local, "tracked", None)
    if tracked is None:
        tracked = _local.tracked = OrderedDict()
    return tracked


def agglomerate_growing_deltas(
    stream_deltas: list[ChatMessageStreamDelta],
    role: MessageRole = MessageRole.ASSISTANT,
) -> ChatMessage:
    """``agglomerate_stream_deltas`` for a list that grows between calls, in linear time.

    Grown since the last call (or seen for the first time): only the new deltas are
    fed, and the message so far is returned. Unchanged since the last call: the stream
    has ended, and the assembled message is returned (or the core's error raised) and
    the list is forgotten. Tracks a few lists per thread; a list that was changed other
    than by appending starts over.
    """
    tracked = _tracked_lists()
    key = id(stream_deltas)
    state = tracked.get(key)
    if state is None or not state.follows(stream_deltas):
        state = tracked[key] = _Tracked(stream_deltas)
        grown = True  # a list seen for the first time is a live update, unless empty
        if not stream_deltas:
            grown = False
    else:
        grown = len(stream_deltas) > state.aggregator.count
    tracked.move_to_end(key)
    while len(tracked) > _MAX_TRACKED:
        tracked.popitem(last=False)
    if not grown:
        del tracked[key]
        return state.aggregator.finish(role)
    aggregator = state.aggregator
    for delta in stream_deltas[aggregator.count :]:
        aggregator.add(delta)
    state.last = stream_deltas[-1]
    return aggregator.snapshot(role)
