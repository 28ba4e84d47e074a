"""Truncation (E4), provider errors (E5), and ADK's streaming contract: partial text and
reasoning responses stream as stock streams them; non-streamed calls are untouched.

In direct mode ``FIXED`` is google-adk's own patched ``LiteLlm``: a provider error is then
ADK's error response carrying the provider's message (the shim raises
``streamfix.ProviderStreamError`` instead)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import support
from adk_fakes import (
    ADK_MALFORMED_RESPONSE,
    FIXED,
    chunk,
    finals,
    model_response,
    run,
    summary,
    tc,
    usage_chunk,
)
from google.adk.models.lite_llm import LiteLlm
from google.genai import types
from support import report_stock_loss

import streamfix
from streamfix_adk import _versions

F_ARGS = '{"city":"Paris"}'


def _calls(responses: list[Any]) -> list[Any]:
    return [
        part.function_call
        for r in finals(responses)
        for part in (r.content.parts if r.content else None) or []
        if part.function_call
    ]


def _texts(responses: list[Any]) -> str:
    return "".join(
        part.text or ""
        for r in finals(responses)
        for part in (r.content.parts if r.content else None) or []
        if not part.thought
    )


TRUNCATED_BY_LENGTH = [
    chunk(content="Looking up."),
    chunk(tc(0, "c1", "f", F_ARGS)),
    chunk(tc(1, "c2", "g", '{"tz":"CE')),
    chunk(finish="length"),
    usage_chunk(),
]
ENDS_MID_VALUE = [
    chunk(content="Looking up."),
    chunk(tc(0, "c1", "f", F_ARGS)),
    chunk(tc(1, "c2", "g", '{"tz":"CE')),
    usage_chunk(),
]


@pytest.mark.parametrize(
    ("chunks", "code"),
    [
        (TRUNCATED_BY_LENGTH, types.FinishReason.MAX_TOKENS),
        (ENDS_MID_VALUE, types.FinishReason.MALFORMED_FUNCTION_CALL),
    ],
    ids=["E4-length", "E4-ends-mid-value"],
)
def test_truncated_arguments_give_adk_error_response(chunks: list[Any], code: Any) -> None:
    responses = run(FIXED, chunks)
    if _versions.truncation_settled() and not support.direct():
        # From 2.13 ADK's loop reports a call cut off itself (MAX_TOKENS after "length",
        # else MALFORMED_FUNCTION_CALL; none of the turn's calls run, the text kept):
        # stock loses nothing, so the fixed path leaves it to ADK, as on stock.
        expected = finals(run(LiteLlm, chunks))
        assert [_full(r) for r in finals(responses)] == [_full(r) for r in expected]
        assert any(r.error_code == code for r in expected)
        assert _calls(responses) == []
        assert _texts(responses) == "Looking up."
        return
    errors = [r for r in finals(responses) if r.error_code]
    assert len(errors) == 1
    assert errors[0].error_code == code
    assert errors[0].finish_reason == code
    assert "'g'" in errors[0].error_message  # names the call that was cut off
    # the shim says "truncated"; ADK's own MALFORMED_FUNCTION_CALL text, "ended early"
    assert re.search("truncated|ended early", errors[0].error_message)
    assert _calls(responses) == []  # no call of a half-understood batch is run
    assert _texts(responses) == "Looking up."  # the text is kept
    assert len([r for r in finals(responses) if r.usage_metadata]) == 1  # counted once


def _full(response: Any) -> tuple[Any, ...]:
    return (summary(response), response.error_message)


def test_truncated_without_text_keeps_usage() -> None:
    chunks = [chunk(tc(0, "c1", "f", '{"city":"Pa')), chunk(finish="length"), usage_chunk()]
    (only,) = finals(run(FIXED, chunks))
    assert only.error_code == types.FinishReason.MAX_TOKENS
    assert only.usage_metadata is not None and only.usage_metadata.total_token_count == 18


@pytest.mark.stock_failure
def test_stock_truncation_mid_value() -> None:
    """Stock google-adk < 2.9 raises JSONDecodeError out of the stream when a call's
    arguments end mid-value without finish_reason "length"; 2.9+ answers with
    MALFORMED_FUNCTION_CALL itself."""
    if ADK_MALFORMED_RESPONSE:
        codes = [r.error_code for r in finals(run(LiteLlm, ENDS_MID_VALUE))]
        assert types.FinishReason.MALFORMED_FUNCTION_CALL in codes
    else:
        with pytest.raises(ValueError) as raised:
            run(LiteLlm, ENDS_MID_VALUE)
        report_stock_loss("adk ends-mid-value", str(raised.value), "Unterminated string")


PROVIDER_ERROR = [
    chunk(content="Working on it."),
    chunk(tc(0, "c1", "f", '{"ci')),
    chunk(
        error={"message": "Upstream overloaded: CUDA out of memory", "code": 502},
        finish="error",
    ),
]


def test_provider_error_surfaces_with_its_message() -> None:
    if support.direct():  # patched ADK: its error response, the text kept, no call run
        responses = run(FIXED, PROVIDER_ERROR)
        errors = [r for r in finals(responses) if r.error_code]
        assert len(errors) == 1
        assert "Upstream overloaded: CUDA out of memory" in (errors[0].error_message or "")
        assert _calls(responses) == []
        assert _texts(responses) == "Working on it."
        return
    with pytest.raises(streamfix.ProviderStreamError, match="CUDA out of memory") as caught:
        run(FIXED, PROVIDER_ERROR)
    assert caught.value.provider_message == "Upstream overloaded: CUDA out of memory"


@pytest.mark.stock_failure
def test_stock_loses_provider_error() -> None:
    """Stock ADK (every version) ignores the error payload: the turn ends as if the model
    had stopped, and the provider's message appears nowhere."""
    try:
        responses = run(LiteLlm, PROVIDER_ERROR)
    except Exception as error:  # pragma: no cover - depends on the version
        assert "CUDA out of memory" not in str(error)
    else:
        dumped = " ".join(r.model_dump_json() for r in responses)
        assert "CUDA out of memory" not in dumped


TEXT_AND_REASONING = [
    chunk(reasoning="Let me "),
    chunk(reasoning="think."),
    chunk(content="Hello "),
    chunk(content="world"),
    chunk(content="."),
    chunk(finish="stop"),
    usage_chunk(),
]


def _partials(responses: list[Any]) -> list[dict[str, Any]]:
    return [summary(r)["parts"] for r in responses if r.partial]


def test_partial_text_and_reasoning_stream_as_stock() -> None:
    stock = run(LiteLlm, TEXT_AND_REASONING)
    patched = run(FIXED, TEXT_AND_REASONING)
    assert _partials(patched) == _partials(stock)
    assert len(_partials(patched)) == 5
    assert [summary(r) for r in finals(patched)] == [summary(r) for r in finals(stock)]


def test_partial_text_streams_live_around_tool_calls() -> None:
    chunks = [
        chunk(content="Checking "),
        chunk(tc(0, "c1", "f", '{"city":')),
        chunk(content="now."),
        chunk(tc(0, args='"Paris"}')),
        chunk(finish="tool_calls"),
    ]
    parts = [p for parts in _partials(run(FIXED, chunks)) for p in parts]
    texts = [p["text"] for p in parts if p["text"]]
    assert texts == ["Checking ", "now."]


def test_non_streamed_calls_unchanged() -> None:
    response = model_response(content="Hi.", calls=[("c1", "f", F_ARGS, None)])
    stock = [summary(r) for r in run(LiteLlm, response, stream=False)]
    patched = [summary(r) for r in run(FIXED, response, stream=False)]
    assert patched == stock
