"""smolagents' ``agglomerate_stream_deltas``, assembled by streamfix.

smolagents turns every streamed chunk into a ``ChatMessageStreamDelta`` (its
``generate_stream`` methods) and rebuilds the message from the list of deltas. Here each
delta is converted back into the OpenAI-style chunk it came from (:func:`delta_to_chunk`,
the one conversion) and the streamfix core does all the assembling; the result is handed
back as smolagents' own ``ChatMessage``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
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

__all__ = ["agglomerate_stream_deltas", "delta_to_chunk", "to_chat_message"]

#: smolagents' deltas carry no finish reason, and smolagents ends the stream itself: its
#: end stands for one. Without it a zero-argument call's header (no argument byte) would
#: read as cut off (wire-shapes E11); stock runs it with no arguments, and so does this.
STREAM_END: dict[str, Any] = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def delta_to_chunk(delta: ChatMessageStreamDelta) -> dict[str, Any]:
    """The OpenAI-style chunk dict a ``ChatMessageStreamDelta`` carries.

    Fields smolagents left empty (``None``, ``""``) are left out, so the core sees a
    continuation fragment exactly as a provider sends it. The tool-call ``function`` may
    be smolagents' ``ChatMessageToolCallFunction`` or the provider's own object
    (``generate_stream`` passes openai's and litellm's through): both have ``name`` and
    ``arguments``.
    """
    out: dict[str, Any] = {}
    if delta.content:
        out["content"] = delta.content
    if delta.tool_calls:
        out["tool_calls"] = [_tool_call_entry(call) for call in delta.tool_calls]
    chunk: dict[str, Any] = {"choices": [{"index": 0, "delta": out}]}
    usage = delta.token_usage
    if usage is not None:
        chunk["usage"] = {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        }
    return chunk


def _chunks(deltas: Iterable[ChatMessageStreamDelta]) -> Iterator[dict[str, Any]]:
    """:func:`delta_to_chunk` of each delta, for a consumer that is done with each chunk
    before it asks for the next (``streamfix.assemble``). A delta that only adds argument
    text to a call (most of a stream) is given as one reused chunk whose index and text
    are set for it: building five dicts per delta was most of the cost of assembling. The
    chunk has exactly the fields :func:`delta_to_chunk` would give it."""
    function: dict[str, Any] = {"arguments": ""}
    entry: dict[str, Any] = {"index": 0, "function": function}
    continuation = {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}
    for delta in deltas:
        calls = delta.tool_calls
        if calls and len(calls) == 1 and not delta.content and delta.token_usage is None:
            call = calls[0]
            text = call.function.arguments if call.function is not None else None
            if (
                type(text) is str
                and text
                and type(call.index) is int
                and not call.id
                and not call.type
                and not call.function.name
            ):
                entry["index"], function["arguments"] = call.index, text
                yield continuation
                continue
        yield delta_to_chunk(delta)


def _tool_call_entry(call: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if call.index is not None:
        entry["index"] = call.index
    if call.id:
        entry["id"] = call.id
    if call.type:
        entry["type"] = call.type
    function: dict[str, Any] = {}
    if call.function is not None:
        name = getattr(call.function, "name", None)
        arguments = getattr(call.function, "arguments", None)
        if name:
            function["name"] = name
        if arguments is not None and arguments != "":
            function["arguments"] = arguments
    entry["function"] = function
    return entry


def to_chat_message(
    message: streamfix.AssembledMessage, role: MessageRole | str = MessageRole.ASSISTANT
) -> ChatMessage:
    """smolagents' ``ChatMessage`` for an assembled message, shaped as stock builds it.

    As stock: ``content`` is a string (``""`` when there is none), arguments are JSON
    text (the agent parses them), ``type`` is ``"function"``, ``token_usage`` is always
    set. A call that came without an id keeps stock's ``""`` when it is the only call;
    with several calls it gets ``call_<position>``, because smolagents runs parallel
    calls keyed by id and equal ids would drop all but one.
    """
    calls = message.with_unique_ids().tool_calls  # G3: smolagents keys calls by id
    usage = message.usage or {}
    return ChatMessage(
        role=MessageRole(role),
        content=message.content,
        tool_calls=[
            ChatMessageToolCall(
                function=ChatMessageToolCallFunction(name=call.name, arguments=call.arguments),
                id=call.id or ("" if len(calls) == 1 else f"call_{call.index}"),
                type="function",
            )
            for call in calls
        ],
        token_usage=TokenUsage(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
        ),
    )


def agglomerate_stream_deltas(
    stream_deltas: Iterable[ChatMessageStreamDelta],
    role: MessageRole = MessageRole.ASSISTANT,
) -> ChatMessage:
    """Drop-in for ``smolagents.models.agglomerate_stream_deltas``, assembled by streamfix.

    Same signature and return type. Parallel calls sent at one index are kept apart,
    deltas without an index are routed, repeated names are not glued. Raises
    ``streamfix.TruncatedToolCallError`` when a call's arguments never completed (they
    are never handed to a tool as invalid JSON) and ``streamfix.MalformedToolCallError``
    when they are not a JSON object.
    """
    assembled = streamfix.assemble(itertools.chain(_chunks(stream_deltas), (STREAM_END,)))
    return to_chat_message(assembled, role)
