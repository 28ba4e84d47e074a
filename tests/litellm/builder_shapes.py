"""Wire shapes for ``litellm.stream_chunk_builder``: each stream (OpenAI chunk dicts, made
``ModelResponseStream`` the way litellm makes them) with the ``chat.completion`` body a
non-streamed server answers for the same response (what the builder must equal), or the
provider's error text / the truncation it must raise. The public corpus adds its own
(``streamfix.testing.scenarios("openai")``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from support import chunk, tc

W, T = json.dumps({"city": "Paris"}), json.dumps({"zone": "Europe/Paris"})
SIG = "c2lnLW9mLWNhbGwtYQ=="
ROLE = chunk(delta={"role": "assistant", "content": ""})


def call(id: str, name: str, arguments: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
        **extra,
    }


def whole(
    *calls: dict[str, Any], content: str | None = None, finish: str = "tool_calls", **message: Any
) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` for the same answer."""
    body: dict[str, Any] = {"role": "assistant", "content": content, **message}
    if calls:
        body["tool_calls"] = list(calls)
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": body, "finish_reason": finish}],
    }


@dataclass(frozen=True)
class Shape:
    id: str
    chunks: list[dict[str, Any]]
    #: the non-streamed body; None when the builder must raise
    expected: dict[str, Any] | None = None
    #: the provider's text the raised error must carry (E5), or a piece of the
    #: truncation / malformed-call error's text
    raises: str | None = None
    #: whether stock's builder gets it right already
    stock_right: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _thinking(*pieces: dict[str, Any]) -> dict[str, Any]:
    """A chunk as litellm's Anthropic stream builds one: ``delta.thinking_blocks``."""
    text = "".join(p.get("thinking", "") for p in pieces)
    return chunk(delta={"thinking_blocks": list(pieces), "reasoning_content": text})


def _piece(text: str, signature: str | None = None, index: int = 0) -> dict[str, Any]:
    """One ``thinking_blocks`` piece as litellm's Anthropic stream sends it."""
    piece: dict[str, Any] = {"type": "thinking", "thinking": text, "index": index}
    if signature is not None:
        piece["signature"] = signature
    return piece


def _thought_shape(
    id: str, pieces: list[dict[str, Any]], blocks: list[dict[str, Any]], stock_right: bool = False
) -> Shape:
    """F6: thinking pieces (one chunk each), then one call; the non-streamed message
    carries ``blocks`` and their joined text as ``reasoning_content``."""
    reasoning = "".join(b.get("thinking", "") for b in blocks) or None
    return Shape(
        id,
        [
            *(_thinking(piece) for piece in pieces),
            chunk(tc(0, "call_a", "get_weather", W, typed="with id")),
            chunk(finish="tool_calls"),
        ],
        whole(
            call("call_a", "get_weather", W), reasoning_content=reasoning, thinking_blocks=blocks
        ),
        stock_right=stock_right,
    )


DONE = chunk(finish="tool_calls")
BOTH = whole(call("call_a", "get_weather", W), call("call_b", "get_time", T))


def _call(index: Any, id: str, name: str, arguments: str) -> dict[str, Any]:
    """A chunk with one whole call."""
    return chunk(tc(index, id, name, arguments, typed="with id"))


def _weather_only(id: str, *middle: dict[str, Any], stock_right: bool = False) -> Shape:
    """A stream whose whole answer is one call, get_weather(city=Paris)."""
    return Shape(
        id,
        [ROLE, *middle, chunk(finish="tool_calls")],
        whole(call("call_a", "get_weather", W)),
        stock_right=stock_right,
    )


SHAPES = [
    Shape(
        "c4-resent",
        [
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W[:6], typed="with id")),
            chunk(tc(0, args=W[6:])),
            chunk(tc(0, "call_a", "get_weather", W, typed="with id")),
            chunk(finish="tool_calls"),
        ],
        whole(call("call_a", "get_weather", W)),
    ),
    Shape(
        "c5-cumulative",
        [
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W[:5], typed="with id")),
            chunk(tc(0, args=W[:10])),
            chunk(tc(0, args=W)),
            chunk(finish="tool_calls"),
        ],
        whole(call("call_a", "get_weather", W)),
    ),
    _weather_only(
        "b9-phantom",
        chunk(tc(0, "call_a", "get_weather", W, typed="with id")),
        chunk(tc(-1, args="{}")),
        stock_right=True,
    ),
    _weather_only(
        "a3-same-index-one-delta",
        chunk(tc(0, "call_a", "get_weather", typed="with id"), tc(0, args=W)),
        stock_right=True,
    ),
    Shape(
        "b5-name-alone",
        [
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W, typed="with id")),
            chunk(tc(0, "call_b", "get_time", typed="with id")),
            chunk(tc(0, args=T)),
            chunk(finish="tool_calls"),
        ],
        whole(call("call_a", "get_weather", W), call("call_b", "get_time", T)),
    ),
    Shape(
        "e2-mid-stream-finish",
        [
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W, typed="with id"), finish="tool_calls"),
            chunk(tc(1, "call_b", "get_time", T, typed="with id")),
            chunk(finish="tool_calls"),
        ],
        whole(call("call_a", "get_weather", W), call("call_b", "get_time", T)),
        stock_right=True,
    ),
    Shape(
        "f4-text-between",
        [
            ROLE,
            chunk(content="Checking.\n"),
            chunk(tc(0, "call_a", "get_weather", W, typed="with id")),
            chunk(content="\n"),
            chunk(tc(1, "call_b", "get_time", T, typed="with id")),
            chunk(finish="tool_calls"),
        ],
        whole(
            call("call_a", "get_weather", W), call("call_b", "get_time", T), content="Checking.\n\n"
        ),
        stock_right=True,
    ),
    Shape(
        "e6-usage-chunk",
        [
            chunk(choices=[]),
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W[:4], typed="with id")),
            chunk(tc(0, args=W[4:])),
            chunk(finish="tool_calls"),
            chunk(
                choices=[],
                usage={"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
            ),
        ],
        whole(call("call_a", "get_weather", W)),
        stock_right=True,
    ),
    Shape(
        "f1-signature-in-psf",
        [
            ROLE,
            chunk(
                tc(
                    0,
                    "call_a",
                    "get_weather",
                    W,
                    typed="with id",
                    provider_specific_fields={"thought_signature": SIG},
                )
            ),
            chunk(finish="tool_calls"),
        ],
        whole(
            call("call_a", "get_weather", W, provider_specific_fields={"thought_signature": SIG})
        ),
        stock_right=True,
    ),
    _thought_shape(
        "f6-thinking-signed",
        [_piece("Let me "), _piece("look."), _piece("", SIG)],
        [{"type": "thinking", "thinking": "Let me look.", "signature": SIG}],
        stock_right=True,
    ),
    _thought_shape(
        "f6-thinking-unsigned",
        [_piece("Let me look.")],
        [{"type": "thinking", "thinking": "Let me look."}],
    ),
    _thought_shape(
        "f6-thinking-signature-only",
        [_piece("", SIG)],
        [{"type": "thinking", "thinking": "", "signature": SIG}],
        stock_right=True,
    ),
    _thought_shape(
        "f6-redacted-then-signed",
        [
            {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk", "index": 0},
            _piece("Paris.", index=1),
            _piece("", SIG, index=1),
        ],
        [
            {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
            {"type": "thinking", "thinking": "Paris.", "signature": SIG},
        ],
        stock_right=True,
    ),
    Shape(
        "b4-values-in-one-string",
        [ROLE, chunk(tc(0, "call_a", "get_weather", W + " " + W, typed="with id")), DONE],
        whole(call("call_a", "get_weather", W), call("call_a-1", "get_weather", W)),
    ),
    Shape(
        "b7-indices-above-0",
        [ROLE, _call(3, "call_a", "get_weather", W), _call(7, "call_b", "get_time", T), DONE],
        BOTH,
        stock_right=True,
    ),
    _weather_only(
        "b8-index-changes",
        chunk(tc(1, "call_a", "get_weather", "", typed="with id")),
        chunk(tc(0, args=W[:5])),
        chunk(tc(0, args=W[5:])),
    ),
    _weather_only(
        "c2-name-in-pieces",
        chunk(tc(0, "call_a", "get_wea", typed="with id")),
        chunk(tc(0, name="ther", args=W)),
    ),
    _weather_only(
        "c3-name-late",
        chunk(tc(0, "call_a", args=W, typed="with id")),
        chunk(tc(0, name="get_weather")),
        stock_right=True,
    ),
    Shape(
        "d2-empty-arguments",
        [ROLE, _call(0, "call_a", "get_time", ""), DONE],
        whole(call("call_a", "get_time", "{}")),
        stock_right=True,
    ),
    Shape(
        "e3-no-finish-reason",
        [ROLE, _call(0, "call_a", "get_weather", W)],
        whole(call("call_a", "get_weather", W), finish="stop"),  # litellm: tool_calls
    ),
    _weather_only(
        "g2-id-changes",
        chunk(tc(0, "call_a", "get_weather", W[:5], typed="with id")),
        chunk(tc(0, "call_other", args=W[5:])),
    ),
    _weather_only(
        "g4-repeated-call",
        _call(0, "call_a", "get_weather", W),
        _call(1, "call_a", "get_weather", W),
    ),
    _weather_only(
        "g6-digit-string-index",
        chunk(tc("0", "call_a", "get_weather", W[:5], typed="with id")),
        chunk(tc(0, args=W[5:])),
        stock_right=True,
    ),
    Shape(
        "e7-two-choices",
        [
            ROLE,
            _call(0, "call_a", "get_weather", W),
            chunk(tc(0, "call_b", "get_time", T, typed="with id"), choice=1),
            chunk(finish="tool_calls"),
            chunk(finish="tool_calls", choice=1),
        ],
        {
            **whole(call("call_a", "get_weather", W)),
            "choices": [
                *whole(call("call_a", "get_weather", W))["choices"],
                {**whole(call("call_b", "get_time", T))["choices"][0], "index": 1},
            ],
        },
        stock_right=True,
    ),
    Shape(
        "e11-header-then-end",
        [ROLE, _call(0, "call_a", "get_weather", "")],
        raises="get_weather",
    ),
    Shape(
        "e8-cut-under-tool-calls",
        [
            ROLE,
            chunk(tc(0, "call_a", "get_weather", W[:9], typed="with id")),
            chunk(finish="tool_calls"),
        ],
        raises="get_weather",
    ),
    Shape(
        "e9-nameless",
        [
            ROLE,
            chunk(tc(0, "call_a", args=W, typed="with id")),
            chunk(finish="tool_calls"),
        ],
        raises="call_a",
    ),
    Shape(
        "e5-error-chunk-no-choices",
        [
            ROLE,
            chunk(content="Let me"),
            {"error": {"message": "Tool choice is required", "type": "invalid_request_error"}},
        ],
        raises="Tool choice is required",
    ),
    Shape(
        "e5-finish-error-with-object",
        [
            ROLE,
            chunk(content="Let me"),
            chunk(finish="error", error={"message": "Token limit reached", "code": 400}),
        ],
        raises="Token limit reached",
    ),
]
