"""A loopback Anthropic Messages endpoint (``POST /v1/messages``, streamed as SSE events)
for litellm's ``anthropic/`` provider: litellm turns Anthropic's own stream into its
chunks in its provider handler, then its stream wrapper (the wire) yields them.

Each model name is one scripted response (:data:`RESPONSES`): two parallel ``tool_use``
blocks after a text block (K1: the blocks' indices count the text block too, B7), and
the second one cut off by ``max_tokens`` (K4/E4)."""

from __future__ import annotations

import json
from typing import Any

from streamfix.testing import BackgroundServer, lifespan, read_json

__all__ = ["RESPONSES", "AnthropicServer"]


def _start(model: str) -> dict[str, Any]:
    message = {
        "id": "msg_streamfix",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}


def _text(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


def _tool(index: int, call_id: str, name: str, *pieces: str, stop: bool = True) -> list[Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": piece},
        }
        for piece in ("", *pieces)
    ]
    if stop:
        events.append({"type": "content_block_stop", "index": index})
    return events


def _end(reason: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"type": "message_delta", "stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]


RESPONSES: dict[str, list[dict[str, Any]]] = {
    "parallel-tools": [
        _start("parallel-tools"),
        *_text(0, "Let me check both."),
        *_tool(1, "toolu_a", "get_weather", '{"ci', 'ty": "Pa', 'ris"}'),
        *_tool(2, "toolu_b", "get_time", '{"zone": ', '"Europe/Paris"}'),
        *_end("tool_use"),
    ],
    "max-tokens": [
        _start("max-tokens"),
        *_tool(0, "toolu_a", "get_weather", '{"city": "Paris"}'),
        *_tool(1, "toolu_b", "get_time", '{"zone": "Eur', stop=False),
        *_end("max_tokens"),
    ],
}


async def _app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    body = await read_json(receive)
    events = RESPONSES[str(body.get("model", "")).rpartition("/")[2]]
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:
        line = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
        await send({"type": "http.response.body", "body": line, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


class AnthropicServer(BackgroundServer):
    """:data:`RESPONSES` on a loopback port (``url`` is litellm's ``api_base``)."""

    name = "anthropic-replay"

    def __init__(self) -> None:
        super().__init__(_app)
