"""Every wire shape through the openai SDK's own stream helper: its real
``ChatCompletionStreamState`` fed real ``ChatCompletionChunk`` s, stock and patched.

Each case pins what stock does (the exception it raises, or the wrong calls it builds)
and asserts the patched helper's final ``ParsedChatCompletion`` equals the non-streamed
one. The corpus (``streamfix.testing.scenarios("openai")``) runs the same way below, its
non-streamed side being the scenario's own ``completion()``.

In direct mode (``STREAMFIX_DIRECT=1``) the fixed outcomes are asserted on the SDK's own
(patched) helper; what stock gets wrong (``stock_failure``) and the shim's own API and
error types (``shim_only``) are not run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from helper import OMIT, PATCHED, chunks, feed, non_streamed, run, summary
from openai import APIError, LengthFinishReasonError
from openai.lib._parsing import parse_chat_completion
from openai.types.chat import ChatCompletion
from support import ABSENT, chunk
from support import tc as _tc

import streamfix
from streamfix import testing
from streamfix_openai import StreamFixChatCompletionStreamState

pytestmark = pytest.mark.openai

tc = partial(_tc, typed="with id")
W, T = "get_weather", "get_time"
PARIS, ZONE = {"city": "Paris"}, {"zone": "Europe/Paris"}
GLUED = '{"city": "Paris"}{"zone": "Europe/Paris"}'


@dataclass
class Case:
    name: str
    bodies: list[dict[str, Any]]
    calls: list[tuple[str, dict[str, Any], str | None]]
    stock: Any  # an exception type, or stock's [(name, raw arguments)]
    content: str | None = None


def _chars(text: str) -> list[str]:
    return list(text)


CASES = [
    Case(
        "mistral-whole-call-no-index",
        [chunk(tc(ABSENT, "c1", W, json.dumps(PARIS)), finish="tool_calls")],
        [(W, PARIS, "c1")],
        TypeError,
    ),
    Case(
        "mistral-two-calls-no-index",
        [
            chunk(
                tc(ABSENT, "c1", W, json.dumps(PARIS)),
                tc(ABSENT, "c2", T, json.dumps(ZONE)),
                finish="tool_calls",
            )
        ],
        [(W, PARIS, "c1"), (T, ZONE, "c2")],
        TypeError,
    ),
    Case(
        "litellm-claude-indices-from-1",
        [
            chunk(content="Let me check.", delta={"role": "assistant"}),
            chunk(tc(1, "toolu_1", W, "")),
            chunk(tc(1, args='{"city": ')),
            chunk(tc(1, args='"Paris"}')),
            chunk(finish="tool_calls"),
        ],
        [(W, PARIS, "toolu_1")],
        IndexError,
        content="Let me check.",
    ),
    Case(
        "llama-cpp-name-and-id-on-every-character",
        [chunk(tc(0, "call_1", W, c)) for c in _chars(json.dumps(PARIS))]
        + [chunk(finish="tool_calls")],
        [(W, PARIS, "call_1")],
        [(W * len(json.dumps(PARIS)), json.dumps(PARIS))],
    ),
    Case(
        "c1-name-repeated-on-every-fragment",
        [chunk(_tc(0, ABSENT, W, c)) for c in _chars(json.dumps(PARIS))]
        + [chunk(finish="tool_calls")],
        [(W, PARIS, None)],
        [(W * len(json.dumps(PARIS)), json.dumps(PARIS))],
    ),
    Case(
        "b2-same-index-parallel-calls",
        [
            chunk(tc(0, "a", W, json.dumps(PARIS))),
            chunk(tc(0, "b", T, json.dumps(ZONE)), finish="tool_calls"),
        ],
        [(W, PARIS, "a"), (T, ZONE, "b")],
        [(W + T, GLUED)],
    ),
    Case(
        "b3-same-index-no-ids",
        [
            chunk(_tc(0, ABSENT, W, '{"city": "Pa')),
            chunk(_tc(0, ABSENT, ABSENT, 'ris"}')),
            chunk(_tc(0, ABSENT, T, json.dumps(ZONE)), finish="tool_calls"),
        ],
        [(W, PARIS, None), (T, ZONE, None)],
        [(W + T, GLUED)],
    ),
    Case(
        "b7-negative-and-skipping-indices",
        [
            chunk(tc(-1, "a", W, json.dumps(PARIS))),
            chunk(tc(5, "b", T, json.dumps(ZONE)), finish="tool_calls"),
        ],
        [(W, PARIS, "a"), (T, ZONE, "b")],
        IndexError,
    ),
    Case(
        "b8-index-changes-inside-one-call",
        [chunk(tc(1, "x", W, "")), chunk(tc(0, args=json.dumps(PARIS)), finish="tool_calls")],
        [(W, PARIS, "x")],
        IndexError,
    ),
    Case(
        "g1-placeholder-identity",
        [
            chunk(tc(0, "c1", W, "")),
            chunk(_tc(0, "", "", '{"city": "Paris"}', type="")),
            chunk(finish="tool_calls"),
        ],
        [(W, PARIS, "c1")],
        AssertionError,
    ),
    Case(
        "g6-index-as-digit-string",
        [chunk(tc("0", "c1", W, "")), chunk(tc(0, args=json.dumps(PARIS)), finish="tool_calls")],
        [(W, PARIS, "c1")],
        [(W, json.dumps(PARIS))],  # stock right: the patched helper gives the same
    ),
    Case(
        "c2-name-in-pieces",
        [
            chunk(tc(0, "c1", "get_wea", "")),
            chunk(_tc(0, ABSENT, "ther", json.dumps(PARIS)), finish="tool_calls"),
        ],
        [(W, PARIS, "c1")],
        [(W, json.dumps(PARIS))],
    ),
    Case(
        "i3-restarted-arguments",
        [
            chunk(tc(0, "c1", W, '{"location": "Pa')),
            chunk(tc(0, args=json.dumps(PARIS)), finish="tool_calls"),
        ],
        [(W, PARIS, "c1")],
        [(W, '{"location": "Pa{"city": "Paris"}')],
    ),
    Case(
        "b4-values-in-one-argument-string",
        [chunk(tc(0, "c1", W, '{"city": "Paris"} {"city": "Rome"}'), finish="tool_calls")],
        [(W, PARIS, "c1"), (W, {"city": "Rome"}, "c1-1")],
        [(W, '{"city": "Paris"} {"city": "Rome"}')],
    ),
]


def _stock_outcome(bodies: list[dict[str, Any]]) -> Any:
    try:
        completion = run("stock", bodies)
    except Exception as error:
        return type(error)
    return [
        (c.function.name, c.function.arguments)
        for c in completion.choices[0].message.tool_calls or []
    ]


@pytest.mark.stock_failure
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_stock_is_wrong(case: Case) -> None:
    stock = _stock_outcome(case.bodies)
    if isinstance(case.stock, type):
        assert stock is case.stock or (isinstance(stock, type) and issubclass(stock, case.stock))
    else:
        assert stock == case.stock


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_patched_equals_the_non_streamed(case: Case) -> None:
    patched = run("patched", case.bodies)
    expected = non_streamed(case.calls, case.content)
    assert summary(patched) == summary(expected)


@pytest.mark.shim_only
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_installed_helper_is_the_fixed_one(case: Case, patched: None) -> None:
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState

    assert ChatCompletionStreamState is StreamFixChatCompletionStreamState
    state = ChatCompletionStreamState(input_tools=OMIT, response_format=OMIT)
    feed(state, case.bodies)
    assert summary(state.get_final_completion()) == summary(non_streamed(case.calls, case.content))


GROQ_ERROR = {"message": "Rate limit reached for model `llama-3.3-70b`", "type": "tokens"}


GROQ_BODIES = [
    chunk(content="Hel", delta={"role": "assistant"}),
    chunk(content="lo"),
    {"error": GROQ_ERROR},
]


@pytest.mark.stock_failure
def test_groq_bare_error_chunk_after_text_stock() -> None:
    with pytest.raises(TypeError):
        run("stock", GROQ_BODIES)


def test_groq_bare_error_chunk_after_text() -> None:
    state = PATCHED(input_tools=OMIT, response_format=OMIT)
    with pytest.raises(APIError) as raised:
        feed(state, GROQ_BODIES)
    assert raised.value.message == GROQ_ERROR["message"]
    assert raised.value.body == GROQ_ERROR
    assert state.current_completion_snapshot.choices[0].message.content == "Hello"


@pytest.mark.shim_only
def test_groq_bare_error_chunk_after_text_carries_the_assembled_message() -> None:
    state = StreamFixChatCompletionStreamState(input_tools=OMIT, response_format=OMIT)
    with pytest.raises(APIError) as raised:
        feed(state, GROQ_BODIES)
    cause = raised.value.__cause__
    assert isinstance(cause, streamfix.ProviderStreamError)
    assert cause.message is not None and cause.message.content == "Hello"


@pytest.mark.stock_failure
def test_finish_reason_error_with_an_error_object_stock() -> None:
    scenario = testing.scenarios()["e5-error"]
    stock = run("stock", scenario.chunks)  # stock: the error is swallowed
    assert stock.choices[0].finish_reason == "error"


def test_finish_reason_error_with_an_error_object() -> None:
    scenario = testing.scenarios()["e5-error"]
    with pytest.raises(APIError, match="upstream overloaded"):
        run("patched", scenario.chunks)


@pytest.mark.shim_only
def test_truncated_arguments_raise_a_typed_error_carrying_the_complete_calls() -> None:
    bodies = [
        chunk(tc(0, "a", W, json.dumps(PARIS))),
        chunk(tc(1, "b", T, '{"zone": "Eur')),
    ]
    stock = run("stock", bodies)  # stock hands on invalid JSON
    assert stock.choices[0].message.tool_calls[1].function.arguments == '{"zone": "Eur'
    with pytest.raises(streamfix.TruncatedToolCallError) as raised:
        run("patched", bodies)
    assert raised.value.message is not None
    assert [c.name for c in raised.value.message.tool_calls] == [W]


def test_length_finish_raises_the_sdks_error_as_stock() -> None:
    scenario = testing.scenarios()["e4-truncated"]
    with pytest.raises(LengthFinishReasonError):
        run("stock", scenario.chunks)
    with pytest.raises(LengthFinishReasonError):
        run("patched", scenario.chunks)


@pytest.mark.shim_only
def test_length_finish_error_is_caused_by_the_cores_truncation_error() -> None:
    scenario = testing.scenarios()["e4-truncated"]
    with pytest.raises(LengthFinishReasonError) as raised:
        run("patched", scenario.chunks)
    assert isinstance(raised.value.__cause__, streamfix.TruncatedToolCallError)


# -- the corpus ------------------------------------------------------------------------

CORPUS = testing.scenarios("openai")
# Scenarios stock's helper already assembles right (it loses nothing on them).
STOCK_RIGHT = {
    "text",
    "a1-one-chunk",
    "b1-interleaved",
    "d3-escapes-split",
    "g3-shared-id",
    "e1-stop",
    "f1-signature",
    "b1-three-commands",
    "a1-signature",
}


def _expected(scenario: testing.Scenario) -> Any:
    body = scenario.completion()
    return parse_chat_completion(
        chat_completion=ChatCompletion.construct(**body),
        response_format=OMIT,
        input_tools=OMIT,
    )


def _complete(scenario: testing.Scenario) -> bool:
    return scenario.error is None and not scenario.truncated


def _want(name: str) -> dict[str, Any]:
    want = summary(_expected(CORPUS[name]), ids=False)
    want["content"] = want["content"] or None
    if name == "h1-legacy-function-call":
        want["finish_reason"] = "function_call"  # the SDK's
    return want


# H1 (the legacy ``delta.function_call`` dialect) as a tool call is the shim's: the SDK's
# message keeps it as ``function_call``, the non-streamed response's field, patched or not.
SHIM_ONLY_SCENARIOS = {"h1-legacy-function-call"}
CORPUS_PARAMS = [
    pytest.param(name, marks=[pytest.mark.shim_only] if name in SHIM_ONLY_SCENARIOS else [])
    for name in sorted(CORPUS)
]


@pytest.mark.parametrize("name", CORPUS_PARAMS)
def test_corpus_scenario(name: str) -> None:
    scenario = CORPUS[name]
    if not _complete(scenario):
        with pytest.raises((APIError, LengthFinishReasonError)):
            run("patched", scenario.chunks)
        return
    assert summary(run("patched", scenario.chunks), ids=False) == _want(name)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_scenario_stock(name: str) -> None:
    scenario = CORPUS[name]
    try:
        stock: Any = summary(run("stock", scenario.chunks), ids=False)
    except Exception as error:
        stock = error
    if not _complete(scenario):
        return
    assert (stock == _want(name)) is (name in STOCK_RIGHT), stock


def test_chunks_are_real_sdk_chunks() -> None:
    from openai.types.chat import ChatCompletionChunk

    assert all(isinstance(c, ChatCompletionChunk) for c in chunks(CASES[0].bodies))
