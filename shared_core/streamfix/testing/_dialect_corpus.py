"""The corpus of the other wire dialects (wire-shapes J-M): OpenAI Responses events,
Anthropic Messages events, Gemini native ``streamGenerateContent`` chunks and Bedrock
``ConverseStream`` events, each scenario a stream and what it must assemble to.

The builders (:func:`responses_stream`, :func:`anthropic_stream`, :func:`gemini_stream`,
:func:`bedrock_stream`) write one response (text, calls, reasoning) as its dialect
streams it, the arguments cut into the pieces ``cut`` gives: the property tests draw the
cuts, the scenarios bend the result into each shape of the spec. All invented here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._assembler import assemble
from .._errors import ProviderStreamError, StreamFixError, TruncatedToolCallError
from .._types import AssembledMessage
from ._corpus import Dialect, Scenario

__all__ = [
    "DIALECT_SCENARIOS",
    "SERVER_TOOL_BLOCKS",
    "anthropic_stream",
    "bedrock_stream",
    "dialect_problems",
    "dialect_scenarios",
    "gemini_stream",
    "responses_stream",
]

#: A call of a response: ``{"id", "name", "arguments"}``, arguments as an object.
_Call = dict[str, Any]
#: Cuts a text into the pieces it streams as.
Cut = Callable[[str], Sequence[str]]


def _thirds(text: str) -> list[str]:
    """A text in three pieces (fewer when shorter), the default cut."""
    if len(text) < 3:
        return [text]
    a, b = len(text) // 3, 2 * len(text) // 3
    return [text[:a], text[a:b], text[b:]]


def _dumps(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False)


# --- J: Responses ---------------------------------------------------------------------------


def _response(status: str, **more: Any) -> dict[str, Any]:
    """A Responses ``response`` object as its lifecycle events carry it."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "gpt-5",
        "status": status,
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
        **more,
    }


def responses_stream(
    calls: Sequence[_Call],
    text: str = "",
    *,
    cut: Cut = _thirds,
    reasoning: str = "",
    encrypted: str | None = None,
    end: str = "completed",
) -> list[dict[str, Any]]:
    """A Responses stream: a reasoning item (its summary streamed, ``encrypted_content``
    in its done event), a message item with ``text``, then one ``function_call`` item a
    call, its arguments in ``cut`` pieces, then ``response.<end>``."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response("in_progress")}
    ]
    output = 0
    if reasoning:
        item = {"type": "reasoning", "id": "rs_1", "summary": []}
        events.append({"type": "response.output_item.added", "output_index": 0, "item": item})
        for piece in cut(reasoning):
            events.append(
                {
                    "type": "response.reasoning_summary_text.delta",
                    "item_id": "rs_1",
                    "output_index": 0,
                    "summary_index": 0,
                    "delta": piece,
                }
            )
        done = {**item, "summary": [{"type": "summary_text", "text": reasoning}]}
        if encrypted is not None:
            done["encrypted_content"] = encrypted
        events.append({"type": "response.output_item.done", "output_index": 0, "item": done})
        output += 1
    if text:
        item = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [],
            "status": "in_progress",
        }
        events.append({"type": "response.output_item.added", "output_index": output, "item": item})
        for piece in cut(text):
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_1",
                    "output_index": output,
                    "content_index": 0,
                    "delta": piece,
                    "logprobs": [],
                }
            )
        content = [{"type": "output_text", "text": text, "annotations": []}]
        done = {**item, "content": content, "status": "completed"}
        events.append({"type": "response.output_item.done", "output_index": output, "item": done})
        output += 1
    for n, call in enumerate(calls):
        item_id = f"fc_{n}"
        arguments = _dumps(call["arguments"])
        item = {
            "type": "function_call",
            "id": item_id,
            "call_id": call["id"],
            "name": call["name"],
            "arguments": "",
            "status": "in_progress",
        }
        events.append({"type": "response.output_item.added", "output_index": output, "item": item})
        for piece in cut(arguments):
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item_id,
                    "output_index": output,
                    "delta": piece,
                }
            )
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": output,
                "name": call["name"],
                "arguments": arguments,
            }
        )
        done = {**item, "arguments": arguments, "status": "completed"}
        events.append({"type": "response.output_item.done", "output_index": output, "item": done})
        output += 1
    usage = {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 42,
    }
    response = _response(end, usage=usage)
    if end == "incomplete":
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    events.append({"type": f"response.{end}", "response": response})
    for n, event in enumerate(events):
        event["sequence_number"] = n
    return events


# --- K: Anthropic ---------------------------------------------------------------------------


def anthropic_stream(
    calls: Sequence[_Call],
    text: str = "",
    *,
    cut: Cut = _thirds,
    thinking: str = "",
    signature: str = "",
    redacted: str | None = None,
    stop_reason: str = "tool_use",
) -> list[dict[str, Any]]:
    """An Anthropic Messages stream: a thinking block (then its signature), a redacted
    one, a text block, then one ``tool_use`` block a call (``input: {}``, the first
    ``input_json_delta`` empty, then the arguments in ``cut`` pieces)."""
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude",
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
        index += 1

    if thinking:
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in cut(thinking)]
        deltas.append({"type": "signature_delta", "signature": signature})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if redacted is not None:
        block({"type": "redacted_thinking", "data": redacted}, [])
    if text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in cut(text)])
    for call in calls:
        pieces = ["", *cut(_dumps(call["arguments"]))]
        block(
            {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}},
            [{"type": "input_json_delta", "partial_json": piece} for piece in pieces],
        )
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 30},
        }
    )
    events.append({"type": "message_stop"})
    return events


# --- L: Gemini ------------------------------------------------------------------------------


def gemini_stream(
    calls: Sequence[_Call],
    text: str = "",
    *,
    cut: Cut = _thirds,
    thought: str = "",
    signatures: Sequence[str | None] = (),
    streamed: bool = False,
    finish: str = "STOP",
) -> list[dict[str, Any]]:
    """A Gemini ``streamGenerateContent`` stream: ``thought`` text parts, ``text`` parts
    (each piece a chunk), then the calls: whole, all in one chunk (L1), or, ``streamed``,
    each by JSON path (L3: string values in ``cut`` pieces with ``willContinue``, other
    values whole, then an empty ``functionCall`` ending the call); ``signatures[i]`` on
    call i's (first) part; the last chunk carries ``finishReason`` and usage."""

    def chunk(parts: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0, **more}
        return {"candidates": [candidate], "modelVersion": "gemini-3"}

    chunks = [chunk([{"text": piece, "thought": True}]) for piece in cut(thought) if thought]
    chunks += [chunk([{"text": piece}]) for piece in cut(text) if text]
    whole: list[dict[str, Any]] = []
    for n, call in enumerate(calls):
        head: dict[str, Any] = {"name": call["name"]}
        if call["id"] is not None:
            head["id"] = call["id"]
        signature = signatures[n] if n < len(signatures) else None
        signed = {"thoughtSignature": signature} if signature else {}
        if not streamed:
            whole.append({"functionCall": {**head, "args": call["arguments"]}, **signed})
            continue
        paths = _paths(call["arguments"], cut)
        first = {**head, "partialArgs": paths[:1], "willContinue": True}
        chunks.append(chunk([{"functionCall": first, **signed}]))
        chunks += [
            chunk([{"functionCall": {"partialArgs": [path], "willContinue": True}}])
            for path in paths[1:]
        ]
        chunks.append(chunk([{"functionCall": {}}]))
    if whole:
        chunks.append(chunk(whole))
    usage = {"promptTokenCount": 12, "candidatesTokenCount": 30, "totalTokenCount": 42}
    last = chunk([], finishReason=finish)
    last["usageMetadata"] = usage
    chunks.append(last)
    return chunks


def _paths(arguments: Any, cut: Cut, prefix: str = "$") -> list[dict[str, Any]]:
    """An object's values as ``partialArgs`` entries, depth first, strings in pieces."""
    out: list[dict[str, Any]] = []
    items: Any = arguments.items() if isinstance(arguments, dict) else enumerate(arguments)
    for key, value in items:
        path = f"{prefix}[{key}]" if isinstance(key, int) else f"{prefix}.{key}"
        if isinstance(value, (dict, list)) and value:
            out += _paths(value, cut, path)
        elif isinstance(value, str):
            pieces = list(cut(value)) or [""]
            out += [
                {"jsonPath": path, "stringValue": p, "willContinue": i < len(pieces) - 1}
                for i, p in enumerate(pieces)
            ]
        elif isinstance(value, bool):
            out.append({"jsonPath": path, "boolValue": value})
        elif isinstance(value, (int, float)):
            out.append({"jsonPath": path, "numberValue": value})
        elif value is None:
            out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
    return out


# --- M: Bedrock -----------------------------------------------------------------------------


def bedrock_stream(
    calls: Sequence[_Call],
    text: str = "",
    *,
    cut: Cut = _thirds,
    reasoning: str = "",
    signature: str = "",
    stop_reason: str = "tool_use",
) -> list[dict[str, Any]]:
    """A Bedrock ``ConverseStream``: reasoning (then its signature), text (a block with no
    start event, as Bedrock sends it), then a ``toolUse`` block a call, its input in
    ``cut`` pieces, keyed by ``contentBlockIndex``."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    index = 0
    if reasoning:
        for piece in cut(reasoning):
            delta = {"reasoningContent": {"text": piece}}
            events.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}})
        delta = {"reasoningContent": {"signature": signature}}
        events.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}})
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    if text:
        for piece in cut(text):
            events.append(
                {"contentBlockDelta": {"delta": {"text": piece}, "contentBlockIndex": index}}
            )
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    for call in calls:
        start = {"toolUse": {"toolUseId": call["id"], "name": call["name"]}}
        events.append({"contentBlockStart": {"start": start, "contentBlockIndex": index}})
        for piece in cut(_dumps(call["arguments"])):
            delta = {"toolUse": {"input": piece}}
            events.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}})
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    events.append({"messageStop": {"stopReason": stop_reason}})
    usage = {"inputTokens": 12, "outputTokens": 30, "totalTokens": 42}
    events.append({"metadata": {"usage": usage, "metrics": {"latencyMs": 100}}})
    return events


# --- the scenarios --------------------------------------------------------------------------

WEATHER: _Call = {"id": "call_w", "name": "get_weather", "arguments": {"city": "Paris"}}
TIME: _Call = {"id": "call_t", "name": "get_time", "arguments": {"zone": "Europe/Paris"}}
SEARCH: _Call = {
    "id": "call_s",
    "name": "search",
    "arguments": {"query": "streamed arguments", "limit": 3, "filters": {"lang": ["en", "fr"]}},
}
_SIGNATURE = "RXJVQkNrWUlCUmdDSWtCemFXZHVaV1E="


def _scenario(name: str, shape: str, description: str, dialect: Dialect, **fields: Any) -> Scenario:
    fields["chunks"] = tuple(fields["chunks"])
    fields["calls"] = tuple(fields.get("calls", ()))
    return Scenario(name, shape, description, dialect, **fields)


def _with_ids(calls: Sequence[_Call], prefix: str) -> list[_Call]:
    return [{**call, "id": f"{prefix}_{n}"} for n, call in enumerate(calls)]


def _responses() -> list[Scenario]:
    out: list[Scenario] = []
    two = [WEATHER, TIME]
    out.append(
        _scenario(
            "j1-responses-calls",
            "J1",
            "two function_call items, arguments in delta pieces, text before them",
            "responses",
            chunks=responses_stream(two, "Checking."),
            calls=two,
            text="Checking.",
        )
    )
    events = [
        e for e in responses_stream(two) if e["type"] != "response.function_call_arguments.delta"
    ]
    out.append(
        _scenario(
            "j2-responses-done-only",
            "J2",
            "no argument deltas: the arguments only in function_call_arguments.done",
            "responses",
            chunks=events,
            calls=two,
        )
    )
    events = [
        e
        for e in responses_stream(two)
        if e["type"]
        not in ("response.function_call_arguments.delta", "response.function_call_arguments.done")
    ]
    out.append(
        _scenario(
            "j2-responses-item-done-only",
            "J2",
            "no deltas and no arguments.done: the arguments only in output_item.done",
            "responses",
            chunks=events,
            calls=two,
        )
    )
    events = responses_stream([WEATHER])
    at = next(i for i, e in enumerate(events) if e["type"].endswith("arguments.delta"))
    empty = {**events[at], "delta": ""}
    stray = {**events[at], "delta": '"x"}'}
    done = next(i for i, e in enumerate(events) if e["type"] == "response.output_item.done")
    events = [*events[:at], empty, *events[at : done + 1], stray, *events[done + 1 :]]
    out.append(
        _scenario(
            "j3-responses-empty-and-stray",
            "J3",
            "an empty argument delta, and a stray delta after its item is done",
            "responses",
            chunks=events,
            calls=[WEATHER],
        )
    )
    events = responses_stream(two, "Checking.")
    out.append(
        _scenario(
            "j4-responses-item-ids",
            "J4",
            "deltas name their item by item id (not the call id) at an output_index counting "
            "the message item before the calls",
            "responses",
            chunks=events,
            calls=two,
            text="Checking.",
        )
    )
    summary = "The user wants the weather."
    encrypted = "gAAAAABoZ2VuY3J5cHRlZA=="
    out.append(
        _scenario(
            "j5-responses-reasoning",
            "J5",
            "a reasoning item: summary text deltas, encrypted_content in its done event",
            "responses",
            chunks=responses_stream([WEATHER], reasoning=summary, encrypted=encrypted),
            calls=[WEATHER],
            reasoning_details=(
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": summary}],
                    "encrypted_content": encrypted,
                },
            ),
        )
    )
    events = responses_stream([WEATHER], end="incomplete")
    cutoff = next(i for i, e in enumerate(events) if e["type"].endswith("arguments.delta"))
    events = [*events[: cutoff + 1], events[-1]]
    out.append(
        _scenario(
            "j6-responses-incomplete",
            "J6",
            "response.incomplete (max_output_tokens) with a call's arguments cut",
            "responses",
            chunks=events,
            truncated=True,
            finish_reason="length",
            partial_calls=({**WEATHER, "arguments": events[cutoff]["delta"]},),
        )
    )
    events = responses_stream([WEATHER])[:-1]
    events.append(
        {
            "type": "response.failed",
            "sequence_number": len(events),
            "response": _response(
                "failed", error={"code": "server_error", "message": "The model crashed."}
            ),
        }
    )
    out.append(
        _scenario(
            "j6-responses-failed",
            "J6",
            "response.failed after a complete call",
            "responses",
            chunks=events,
            calls=[WEATHER],
            error="server_error: The model crashed.",
        )
    )
    return out


_THINKING = "Let me look."


def _anthropic() -> list[Scenario]:
    out: list[Scenario] = []
    anthropic_two = _with_ids([WEATHER, TIME], "toolu")
    out.append(
        _scenario(
            "k1-anthropic-calls",
            "K1",
            "two tool_use blocks after a text block: input_json_delta pieces, the first empty",
            "anthropic",
            chunks=anthropic_stream(anthropic_two, "Checking."),
            calls=anthropic_two,
            text="Checking.",
        )
    )
    events = anthropic_stream(anthropic_two)
    events = [e for e in events if e["type"] != "content_block_delta"]
    for event in events:
        block = event.get("content_block") or {}
        for call in anthropic_two:
            if block.get("id") == call["id"]:
                block["input"] = call["arguments"]
    out.append(
        _scenario(
            "k2-anthropic-input-whole",
            "K2",
            "each tool_use input given whole in content_block_start, no delta",
            "anthropic",
            chunks=events,
            calls=anthropic_two,
        )
    )
    thinking = _THINKING
    out.append(
        _scenario(
            "k3-anthropic-thinking",
            "K3",
            "a thinking block with its signature, a redacted_thinking block, then a call",
            "anthropic",
            chunks=anthropic_stream(
                anthropic_two[:1], thinking=thinking, signature=_SIGNATURE, redacted="cmVkYWN0ZWQ="
            ),
            calls=anthropic_two[:1],
            thinking_blocks=(
                {"type": "thinking", "thinking": thinking, "signature": _SIGNATURE},
                {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
            ),
        )
    )
    events = anthropic_stream(anthropic_two, stop_reason="max_tokens")
    second = [i for i, e in enumerate(events) if e["type"] == "content_block_delta"]
    cutoff = second[-2]  # inside the second call: its last piece and its stop never come
    events = [*events[: cutoff + 1], *events[-2:]]
    partial = "".join(
        e["delta"]["partial_json"] for e in events if e.get("index") == 1 and "delta" in e
    )
    out.append(
        _scenario(
            "k4-anthropic-max-tokens",
            "K4",
            "stop_reason max_tokens with the second tool_use block unfinished",
            "anthropic",
            chunks=events,
            calls=anthropic_two[:1],
            truncated=True,
            finish_reason="length",
            partial_calls=({**anthropic_two[1], "arguments": partial},),
        )
    )
    events = anthropic_stream(anthropic_two[:1])[:-2]
    events.append({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    out.append(
        _scenario(
            "k4-anthropic-error",
            "K4",
            "an overloaded_error event mid-stream, after a complete call",
            "anthropic",
            chunks=events,
            calls=anthropic_two[:1],
            error="overloaded_error: Overloaded",
        )
    )
    out.append(
        _scenario(
            "k5-anthropic-server-tool",
            "K5",
            "a web_search server_tool_use block (input streamed) and its result block "
            "between two text blocks, then a client tool_use block",
            "anthropic",
            chunks=_server_tool_stream(anthropic_two[0]),
            calls=anthropic_two[:1],
            text="Searching. It is sunny.",
        )
    )
    return out


#: K5: the server tool block and its result as the non-streamed message carries them.
SERVER_TOOL_BLOCKS: tuple[dict[str, Any], ...] = (
    {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "weather in Paris"},
    },
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://weather.example/paris",
                "title": "Paris weather",
                "encrypted_content": "RW5jcnlwdGVkUmVzdWx0",
            }
        ],
    },
)


def _server_tool_stream(call: _Call) -> list[dict[str, Any]]:
    """K5: text, a server tool block (its input as ``input_json_delta`` pieces) and its
    result block (whole), text, then a client ``tool_use`` block."""
    events = anthropic_stream([call], "Searching.")
    text_end = next(n for n, e in enumerate(events) if e["type"] == "content_block_stop") + 1
    use, result = SERVER_TOOL_BLOCKS
    query = _dumps(use["input"])
    middle: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": 1, "content_block": {**use, "input": {}}},
        *(
            {"type": "content_block_delta", "index": 1, "delta": d}
            for d in (
                {"type": "input_json_delta", "partial_json": query[:9]},
                {"type": "input_json_delta", "partial_json": query[9:]},
            )
        ),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": result},
        {"type": "content_block_stop", "index": 2},
        {"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "text_delta", "text": " It is sunny."},
        },
        {"type": "content_block_stop", "index": 3},
    ]
    rest = [{**e, "index": e["index"] + 3} if "index" in e else e for e in events[text_end:]]
    return [*events[:text_end], *middle, *rest]


def _gemini() -> list[Scenario]:
    out: list[Scenario] = []
    gemini_two = [{**WEATHER, "id": None}, {**TIME, "id": None}]
    out.append(
        _scenario(
            "l1-gemini-calls",
            "L1",
            "two functionCall parts whole in one chunk, each with its own thoughtSignature",
            "gemini",
            chunks=gemini_stream(gemini_two, "Checking.", signatures=["c2lnLTE=", "c2lnLTI="]),
            calls=gemini_two,
            text="Checking.",
            signatures=("c2lnLTE=", "c2lnLTI="),
        )
    )
    out.append(
        _scenario(
            "l2-gemini-first-signed",
            "L2",
            "parallel calls where only the first part carries a thoughtSignature",
            "gemini",
            chunks=gemini_stream(gemini_two, signatures=["c2lnLTE="]),
            calls=gemini_two,
            signatures=("c2lnLTE=", None),
        )
    )
    streamed = [{**SEARCH, "id": "fc_1"}, {**WEATHER, "id": "fc_2"}]
    out.append(
        _scenario(
            "l3-gemini-partial-args",
            "L3",
            "Gemini 3 streamed arguments: partialArgs by JSON path, each call ended by an "
            "empty functionCall",
            "gemini",
            chunks=gemini_stream(streamed, streamed=True, signatures=["c2lnLTE="]),
            calls=streamed,
            signatures=("c2lnLTE=", None),
        )
    )
    chunks = gemini_stream(streamed[:1], streamed=True)
    chunks = [c for c in chunks if c["candidates"][0]["content"]["parts"] != [{"functionCall": {}}]]
    out.append(
        _scenario(
            "l3-gemini-no-terminator",
            "L3",
            "streamed arguments whose empty functionCall never comes; the stream finishes (E3)",
            "gemini",
            chunks=chunks,
            calls=streamed[:1],
        )
    )
    thought = "Thinking about Paris."
    out.append(
        _scenario(
            "l4-gemini-thought",
            "L4",
            "thought: true text parts, then a call without an id (Gemini 2.5)",
            "gemini",
            chunks=gemini_stream(gemini_two[:1], thought=thought),
            calls=gemini_two[:1],
        )
    )
    return out


def _bedrock() -> list[Scenario]:
    out: list[Scenario] = []
    thinking = _THINKING
    bedrock_two = [
        {"id": "tooluse_1", "name": "get_temperature", "arguments": {"city": "Paris"}},
        {"id": "tooluse_2", "name": "get_humidity", "arguments": {"city": "Paris"}},
    ]
    out.append(
        _scenario(
            "m1-bedrock-parallel",
            "M1",
            "two toolUse blocks after a text block (no start event), keyed by contentBlockIndex",
            "bedrock",
            chunks=bedrock_stream(bedrock_two, "Checking."),
            calls=bedrock_two,
            text="Checking.",
        )
    )
    out.append(
        _scenario(
            "m1-bedrock-reasoning",
            "M1",
            "reasoning content (text, then its signature) before a call",
            "bedrock",
            chunks=bedrock_stream(bedrock_two[:1], reasoning=thinking, signature=_SIGNATURE),
            calls=bedrock_two[:1],
            thinking_blocks=({"type": "thinking", "thinking": thinking, "signature": _SIGNATURE},),
        )
    )
    events = bedrock_stream(bedrock_two, stop_reason="max_tokens")
    pieces = [i for i, e in enumerate(events) if "toolUse" in str(e.get("contentBlockDelta"))]
    cutoff = pieces[-2]  # inside the second call: its last piece and its stop never come
    events = [*events[: cutoff + 1], *events[-2:]]
    partial = "".join(
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in events[: cutoff + 1]
        if e.get("contentBlockDelta", {}).get("contentBlockIndex") == 1
    )
    out.append(
        _scenario(
            "m1-bedrock-max-tokens",
            "M1",
            "stopReason max_tokens with the second toolUse block unfinished",
            "bedrock",
            chunks=events,
            calls=bedrock_two[:1],
            truncated=True,
            finish_reason="length",
            partial_calls=({**bedrock_two[1], "arguments": partial},),
        )
    )
    events = bedrock_stream(bedrock_two[:1])[:-2]
    error = {"message": "The model stream failed.", "originalStatusCode": 500}
    events.append({"modelStreamErrorException": error})
    out.append(
        _scenario(
            "m1-bedrock-exception",
            "M1",
            "a modelStreamErrorException mid-stream, after a complete call",
            "bedrock",
            chunks=events,
            calls=bedrock_two[:1],
            error="modelStreamErrorException: The model stream failed.",
        )
    )
    return out


def _build() -> dict[str, Scenario]:
    every = [*_responses(), *_anthropic(), *_gemini(), *_bedrock()]
    return {scenario.name: scenario for scenario in every}


#: The J-M corpus by scenario name.
DIALECT_SCENARIOS: dict[str, Scenario] = _build()


def dialect_scenarios(dialect: str | None = None) -> dict[str, Scenario]:
    """The J-M corpus by name, optionally only one dialect's scenarios."""
    return {n: s for n, s in DIALECT_SCENARIOS.items() if dialect is None or s.dialect == dialect}


def dialect_problems(scenario: Scenario, items: Iterable[Any]) -> list[str]:
    """What :func:`streamfix.assemble` of ``items`` (the scenario's stream, as dicts or as
    its SDK's objects) gets wrong against the scenario, one sentence each (empty: right).
    A provider error (E5) must be raised with the provider's words, a cut call (E4) as
    :class:`~streamfix.TruncatedToolCallError` with its partial arguments."""
    try:
        message, error = assemble(items), None
    except StreamFixError as raised:
        message, error = raised.message or AssembledMessage(), raised
    calls = [{"id": c.id, "name": c.name, "arguments": c.parsed} for c in message.tool_calls]
    checks = [
        (calls == list(scenario.calls), f"calls {calls}"),
        (message.content == scenario.text, f"text {message.content!r}"),
        (_ended_right(scenario, error), f"ended with {error!r}"),
        (
            scenario.error is not None or message.finish_reason == scenario.finish_reason,
            f"finish {message.finish_reason!r}",
        ),
        (
            not scenario.signatures
            or tuple(c.thought_signature for c in message.tool_calls) == scenario.signatures,
            f"signatures {[c.thought_signature for c in message.tool_calls]}",
        ),
        (
            message.thinking_blocks == list(scenario.thinking_blocks),
            f"thinking_blocks {message.thinking_blocks}",
        ),
        (
            message.reasoning_details == list(scenario.reasoning_details),
            f"reasoning_details {message.reasoning_details}",
        ),
    ]
    return [problem for right, problem in checks if not right]


def _ended_right(scenario: Scenario, error: StreamFixError | None) -> bool:
    """E5: the provider's error with its words; E4: the cut calls' partial arguments."""
    if scenario.error is not None:
        return isinstance(error, ProviderStreamError) and scenario.error in str(error)
    if scenario.truncated:
        first = len(scenario.calls)
        cut = {n: c["arguments"] for n, c in enumerate(scenario.partial_calls, first)}
        return isinstance(error, TruncatedToolCallError) and error.partial_arguments == cut
    return error is None
