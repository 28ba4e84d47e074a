"""Where stock's helper loses nothing, the patched helper is stock: the same events, in
the same order, with the same snapshots, and the same final completion, for streams that
exercise the helper's whole contract (content, refusal, logprobs, strict tools with
``parsed_arguments``, a pydantic ``response_format``, several calls, usage)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pydantic
import pytest
from helper import chunks, new_state
from openai import ContentFilterFinishReasonError, LengthFinishReasonError, pydantic_function_tool
from support import chunk
from support import tc as _tc

from streamfix import testing

pytestmark = pytest.mark.openai

tc = partial(_tc, typed="with id")


class GetWeather(pydantic.BaseModel):
    city: str
    units: str


class Answer(pydantic.BaseModel):
    city: str
    temperature: float


TOOLS = [pydantic_function_tool(GetWeather)]


def _logprob(token: str) -> dict[str, Any]:
    return {"token": token, "logprob": -0.1, "bytes": list(token.encode()), "top_logprobs": []}


def _pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


ARGS = json.dumps({"city": "Paris", "units": "c"})
ANSWER = json.dumps({"city": "Paris", "temperature": 21.5})
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

STREAMS: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "text-with-logprobs": (
        [chunk(delta={"role": "assistant", "content": ""})]
        + [
            chunk(content=p, logprobs={"content": [_logprob(p)], "refusal": None})
            for p in _pieces("Hello there, streamfix.")
        ]
        + [chunk(finish="stop"), chunk(choices=[], usage=USAGE)],
        {},
    ),
    "refusal": (
        [chunk(delta={"role": "assistant", "refusal": ""})]
        + [chunk(delta={"refusal": p}) for p in _pieces("I can't help with that.")]
        + [chunk(finish="stop")],
        {},
    ),
    "strict-tool-two-calls": (
        [chunk(delta={"role": "assistant", "content": None})]
        + [chunk(tc(0, "call_a", "GetWeather", ""))]
        + [chunk(tc(0, args=p)) for p in _pieces(ARGS)]
        + [chunk(tc(1, "call_b", "GetWeather", ""))]
        + [chunk(tc(1, args=p)) for p in _pieces(ARGS, 5)]
        + [chunk(finish="tool_calls")],
        {"input_tools": TOOLS},
    ),
    "text-then-tool": (
        [chunk(delta={"role": "assistant", "content": "Let me look. "})]
        + [chunk(tc(0, "call_a", "get_weather", '{"'))]
        + [chunk(tc(0, args=p)) for p in _pieces('city": "Paris"}')]
        + [chunk(finish="tool_calls")],
        {"input_tools": [{"type": "function", "function": {"name": "get_weather"}}]},
    ),
    "response-format": (
        [chunk(delta={"role": "assistant", "content": ""})]
        + [chunk(content=p) for p in _pieces(ANSWER)]
        + [chunk(finish="stop")],
        {"response_format": Answer},
    ),
    "empty-continuation": (
        [chunk(tc(0, "call_a", "get_weather", ""))]
        + [chunk(tc(0, args=""))]
        + [chunk(tc(0, args=p)) for p in _pieces('{"city": "Paris"}')]
        + [chunk(finish="tool_calls")],
        {},
    ),
}
STOCK_RIGHT = ["text", "a1-one-chunk", "b1-interleaved", "d3-escapes-split", "e1-stop"]
STOCK_RIGHT += ["f1-signature", "b1-three-commands", "a1-signature"]
for _name in STOCK_RIGHT:
    STREAMS[f"corpus-{_name}"] = (list(testing.scenarios()[_name].chunks), {})


def _dumped(kind: str, bodies: list[dict[str, Any]], options: dict[str, Any]) -> tuple[Any, Any]:
    """Every event as fired (dumped then: snapshots change as the stream goes on), and the
    final completion (or the error it raised)."""
    state = new_state(kind, **options)
    events = []
    for c in chunks(bodies):
        events.extend(e.model_dump() for e in state.handle_chunk(c))
    try:
        final: Any = state.get_final_completion().model_dump()
    except Exception as error:
        final = repr(error)
    return events, final


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_events_and_final_completion_equal_stocks(name: str, stock: Any) -> None:
    bodies, options = STREAMS[name]
    stock_events, stock_final = _dumped("stock", bodies, options)
    events, final = _dumped("patched", bodies, options)
    assert [e["type"] for e in events] == [e["type"] for e in stock_events]
    assert events == stock_events
    assert final == stock_final


def test_strict_tool_parsed_arguments_are_the_pydantic_model() -> None:
    bodies, options = STREAMS["strict-tool-two-calls"]
    state = new_state("patched", **options)
    done = [
        e
        for c in chunks(bodies)
        for e in state.handle_chunk(c)
        if e.type == "tool_calls.function.arguments.done"
    ]
    assert [e.index for e in done] == [0, 1]
    assert all(isinstance(e.parsed_arguments, GetWeather) for e in done)
    final = state.get_final_completion().choices[0].message
    assert [c.function.parsed_arguments for c in final.tool_calls or []] == [
        GetWeather(city="Paris", units="c")
    ] * 2


def test_response_format_parsed() -> None:
    bodies, options = STREAMS["response-format"]
    state = new_state("patched", **options)
    for c in chunks(bodies):
        state.handle_chunk(c)
    assert state.get_final_completion().choices[0].message.parsed == Answer(
        city="Paris", temperature=21.5
    )


@pytest.mark.parametrize(
    ("reason", "error"),
    [("length", LengthFinishReasonError), ("content_filter", ContentFilterFinishReasonError)],
)
@pytest.mark.parametrize("kind", ["stock", "patched"])
def test_finish_reason_errors_where_the_sdk_raises_them(
    kind: str, reason: str, error: type[Exception]
) -> None:
    bodies = [chunk(content='{"city": "Pa', delta={"role": "assistant"}), chunk(finish=reason)]
    state = new_state(kind, response_format=Answer)
    with pytest.raises(error):
        for c in chunks(bodies):
            state.handle_chunk(c)
