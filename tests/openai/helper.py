"""Driving the openai SDK's chat-completions stream helper on chunk dicts, and the
non-streamed ``ParsedChatCompletion`` it must equal.

``PATCHED`` is the fixed state class: the shim's, or in direct mode (``STREAMFIX_DIRECT=1``,
the SDK patched upstream-style) the SDK's own ``ChatCompletionStreamState``."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

import openai
from openai.lib._parsing import parse_chat_completion
from openai.lib.streaming.chat._completions import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ParsedChatCompletion
from support import direct

from streamfix_openai import StreamFixChatCompletionStreamState

#: "not given" for the SDK's parameters (``omit`` from openai 2.x, ``NOT_GIVEN`` before).
OMIT: Any = getattr(openai, "omit", None) or openai.NOT_GIVEN

PATCHED: Any = ChatCompletionStreamState if direct() else StreamFixChatCompletionStreamState
STATES = {"stock": ChatCompletionStreamState, "patched": PATCHED}


def new_state(kind: str, **options: Any) -> Any:
    """The stock or the patched state (openai 1.40's requires both its arguments)."""
    return STATES[kind](**{"input_tools": OMIT, "response_format": OMIT, **options})


def chunks(bodies: Iterable[dict[str, Any]]) -> list[ChatCompletionChunk]:
    """The bodies as the SDK's ``Stream`` builds them (``construct``: no validation)."""
    return [ChatCompletionChunk.construct(**copy.deepcopy(body)) for body in bodies]


def feed(state: Any, bodies: Iterable[dict[str, Any]]) -> list[Any]:
    """Every event ``state`` fires for the stream, in order."""
    events: list[Any] = []
    for chunk in chunks(bodies):
        events.extend(state.handle_chunk(chunk))
    return events


def run(kind: str, bodies: Iterable[dict[str, Any]], **options: Any) -> ParsedChatCompletion[Any]:
    """The final completion of the stock or the patched state."""
    state = new_state(kind, **options)
    feed(state, bodies)
    return state.get_final_completion()


def non_streamed(
    calls: list[tuple[str, dict[str, Any]]] | list[tuple[str, dict[str, Any], str | None]],
    content: str | None = None,
    finish_reason: str = "tool_calls",
    **options: Any,
) -> ParsedChatCompletion[Any]:
    """The same response non-streamed, parsed as ``client.chat.completions.parse`` does."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": call[2] if len(call) > 2 else None,
                "type": "function",
                "function": {"name": call[0], "arguments": json.dumps(call[1])},
            }
            for call in calls
        ]
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    return parse_chat_completion(
        chat_completion=ChatCompletion.construct(**body),
        response_format=options.get("response_format", OMIT),
        input_tools=options.get("input_tools", OMIT),
    )


def summary(completion: ParsedChatCompletion[Any], ids: bool = True) -> dict[str, Any]:
    """What a non-streamed completion and an assembled one must share."""
    choice = completion.choices[0]
    message = choice.message
    return {
        "content": message.content or None,
        "parsed": message.parsed,
        "finish_reason": choice.finish_reason,
        "calls": [
            (
                call.id if ids else None,
                call.function.name,
                json.loads(call.function.arguments),
                call.function.parsed_arguments,
            )
            for call in message.tool_calls or []
        ],
        # F5, F6: the reasoning metadata, where the message carries any
        **{
            key: getattr(message, key)
            for key in ("reasoning_details", "thinking_blocks")
            if getattr(message, key, None) is not None
        },
    }
