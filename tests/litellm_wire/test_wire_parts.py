"""The wire's parts without HTTP: the request's tools as the repairer gets them, a
provider error the core reads in a chunk litellm passed on (``finish_reason: "error"``
reaching the wrapper), and stock's failure path (``failed``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import litellm
import pytest
from support import chunk, tc, to_litellm

import streamfix
from streamfix_litellm._wire import Wire, declared_tools

pytestmark = pytest.mark.shim_only

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def _logging(**details: Any) -> Any:
    return SimpleNamespace(model_call_details=details)


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"tools": [WEATHER]}, [WEATHER]),
        ({"optional_params": {"tools": [WEATHER]}}, [WEATHER]),
        ({"functions": [{"name": "get_weather", "parameters": {}}]}, "functions"),
        ({"tools": [{"name": "get_weather", "input_schema": {}}]}, None),  # not OpenAI's
        ({"tools": []}, None),
        ({}, None),
    ],
)
def test_declared_tools(details: dict[str, Any], expected: Any) -> None:
    found = declared_tools(_logging(**details))
    assert found == (details.get("functions") if expected == "functions" else expected)


def test_no_logging_details_no_tools() -> None:
    assert declared_tools(None) is None
    assert declared_tools(SimpleNamespace(model_call_details=None)) is None


def _wire() -> Wire:
    wrapper = SimpleNamespace(
        logging_obj=_logging(), chunks=[], model="m", custom_llm_provider="openai"
    )
    return Wire(wrapper)


def test_a_provider_error_in_a_chunk_ends_the_stream() -> None:
    """What is complete goes out, then litellm's exception for the provider's error,
    carrying what was assembled."""
    wire = _wire()
    call = to_litellm(
        chunk(
            tc(0, "call_a", "get_weather", '{"city": "Paris"}', typed="with id"),
            delta={"role": "assistant"},  # a choice's first chunk names its role, as OpenAI's
        )
    )
    assert not wire.take(call, last=False)
    failing = to_litellm(chunk(content="", error={"message": "overloaded", "code": 502}))
    assert wire.take(failing, last=False)
    assert list(wire.out) == [call] and wire.ended and wire.finished
    error = wire.pending()  # given no wrapper: not through litellm's fallback handling
    assert isinstance(error, litellm.InternalServerError) and "overloaded" in str(error)
    assert [c.name for c in error.assembled.tool_calls] == ["get_weather"]  # type: ignore[attr-defined]
    assert isinstance(error.__cause__, streamfix.ProviderStreamError)
    assert wire.pending() is None  # raised once


def test_stock_raising_passes_on_what_is_complete_then_its_exception() -> None:
    """Any exception stock raises mid-stream: its own exception, after the core's
    reading of the stream so far (held chunks passed on), ``assembled`` added to it."""
    wire = _wire()
    text = to_litellm(chunk(content="Let me", delta={"role": "assistant"}))
    wire.take(text, last=False)
    raised = litellm.APIConnectionError(message="reset", llm_provider="openai", model="m")
    wire.failed(raised)
    assert list(wire.out) == [text]
    assert wire.pending() is raised
    assert raised.assembled.content == "Let me"  # type: ignore[attr-defined]


def test_chunks_after_the_end_pass_as_they_are() -> None:
    """After stock said the content is over (usage, a provider trace)."""
    wire = _wire()
    wire.take(to_litellm(chunk(content="hi", finish="stop")), last=True)
    usage = to_litellm(
        chunk(choices=[], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
    )
    before = len(wire.out)
    assert not wire.take(usage, last=False)
    assert wire.out[before] is usage


def test_a_provider_error_is_raised_through_the_wrapper_s_own_handling() -> None:
    """As stock raises a mid-stream error (``_handle_stream_fallback_error``: a 5xx
    wrapped for litellm's fallback), ``assembled`` on what it raises too."""

    class Wrapped(Exception):
        def __init__(self, original: Exception) -> None:
            super().__init__(str(original))
            self.original_exception = original

    def handle(error: Exception) -> None:
        raise Wrapped(error)

    wire = _wire()
    wire.take(to_litellm(chunk(content="Let me")), last=False)
    wire.take(to_litellm(chunk(content="", error={"message": "overloaded"})), last=False)
    raised = wire.pending(SimpleNamespace(_handle_stream_fallback_error=handle))
    assert isinstance(raised, Wrapped)
    assert isinstance(raised.original_exception, litellm.InternalServerError)
    assert raised.assembled.content == "Let me"  # type: ignore[attr-defined]
