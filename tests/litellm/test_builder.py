"""``litellm.stream_chunk_builder`` through the shim: every shape on real
``ModelResponseStream`` chunks through the real ``litellm.stream_chunk_builder``, stock
failure asserted, patched equal to the ``ModelResponse`` litellm's non-streamed path
builds from the same provider response; where stock is right, patched gives stock's
``model_dump()`` exactly; errors raise litellm's own exceptions; every binding site is
patched and restored by identity.

Over real HTTP (``litellm.completion(stream=True)`` against the replay server):
``tests/e2e/test_litellm_builder.py``.

Direct mode (``STREAMFIX_DIRECT=1``, litellm patched with
``docs/upstream/litellm-builder.patch``, no shim): the ``patched`` tests drive litellm's own
``stream_chunk_builder``; the ``stock_failure`` and ``shim_only`` tests are deselected.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from builder_shapes import SHAPES, Shape
from support import to_litellm

import streamfix.testing
from streamfix import _shimkit

OPENAI = streamfix.testing.scenarios("openai")
USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]


def _corpus_shapes() -> list[Shape]:
    out = []
    for name, scenario in OPENAI.items():
        expected = None if scenario.error or scenario.truncated else scenario.completion()
        raises = scenario.error or ("truncated" if scenario.truncated else None)
        out.append(Shape(name, list(scenario.chunks), expected, raises))
    return out


ALL = {shape.id: shape for shape in [*_corpus_shapes(), *SHAPES]}


def non_streamed(body: dict[str, Any]) -> Any:
    """The ``ModelResponse`` litellm's non-streamed path builds from ``body``."""
    import litellm
    from litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response import (
        convert_to_model_response_object,
    )

    return convert_to_model_response_object(
        response_object=json.loads(json.dumps(body)), model_response_object=litellm.ModelResponse()
    )


def essence(response: Any, ids: bool = True) -> list[dict[str, Any]]:
    """What a response says, choice by choice: the calls (id, name, arguments as JSON
    text, every provider field), text, reasoning, thinking blocks, finish reason."""
    out = []
    for choice in response.choices:
        message = choice.message
        calls = []
        for call in message.tool_calls or []:
            dumped = call.model_dump(exclude_none=True)
            if not ids:
                dumped.pop("id", None)
            calls.append(dumped)
        blocks = getattr(message, "thinking_blocks", None) or None
        details = getattr(message, "reasoning_details", None) or None
        out.append(
            {
                "finish_reason": choice.finish_reason,
                "content": message.content or None,
                "reasoning_content": getattr(message, "reasoning_content", None) or None,
                "thinking_blocks": [dict(b) for b in blocks] if blocks else None,
                "reasoning_details": [dict(d) for d in details] if details else None,
                "tool_calls": calls or None,
                "function_call": message.function_call,
            }
        )
    return out


def same(response: Any, shape: Shape) -> bool:
    """Whether ``response`` says what the non-streamed response says. The corpus's
    non-streamed bodies leave the reasoning text out (they carry its details and blocks):
    there it is not compared."""
    assert shape.expected is not None
    ids = _with_ids(shape)
    got, want = essence(response, ids), essence(non_streamed(shape.expected), ids)
    message = shape.expected["choices"][0]["message"]
    if "reasoning_content" not in message and "reasoning" not in message:
        for choice in (*got, *want):
            choice.pop("reasoning_content")
    return got == want


def build(shape: Shape) -> Any:
    import litellm

    chunks = [to_litellm(body) for body in shape.chunks]
    return litellm.stream_chunk_builder(chunks, messages=USER)


def _with_ids(shape: Shape) -> bool:
    calls = (shape.expected or {}).get("choices", [{}])[0].get("message", {}).get("tool_calls")
    return all(call.get("id") for call in calls or [])


STOCK_RIGHT = {  # where stock already equals the non-streamed response
    name
    for name, shape in ALL.items()
    if shape.stock_right
    or name
    in {
        "text",
        "a1-one-chunk",
        "b1-interleaved",
        "b1-three-commands",
        "c1-repeated-names",
        "d3-escapes-split",
        "g1-placeholders",
        "g3-shared-id",
        "f5-reasoning-details",
        "f6-thinking-blocks",
    }
}

#: stock right from litellm 1.110 (the newest tested), lost by 1.80 (choice-less chunks
#: fail its builder; redacted and signature-only thinking blocks are dropped; it reads
#: only choices[0], so choice 1's call is glued into choice 0's)
FIXED_LATER = {
    "e6-usage-chunk",
    "e7-two-choices",
    "f6-redacted-then-signed",
    "f6-thinking-signature-only",
}
if _shimkit.release("litellm") < (1, 110):
    STOCK_RIGHT -= FIXED_LATER
PROVIDER_ERRORS = {"e5-error", "e5-error-chunk-no-choices", "e5-finish-error-with-object"}

COMPLETE = sorted(name for name, shape in ALL.items() if shape.expected is not None)
FAILING = sorted(name for name, shape in ALL.items() if shape.raises is not None)


@pytest.mark.parametrize("name", COMPLETE)
def test_patched_equals_non_streamed(patched: None, name: str) -> None:
    assert same(build(ALL[name]), ALL[name])


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", COMPLETE)
def test_stock_result(name: str) -> None:
    """Stock is right exactly on the shapes marked so (and the corpus's stock-right
    ones); on every other it differs from the non-streamed response."""
    shape = ALL[name]
    assert shape.expected is not None
    import litellm

    try:
        right = same(build(shape), shape)
    except litellm.APIError:  # 1.80: "Error building chunks" on a chunk without choices
        right = False
    assert right == (name in STOCK_RIGHT)


@pytest.mark.shim_only
@pytest.mark.parametrize("name", sorted(n for n in COMPLETE if n in STOCK_RIGHT))
def test_patched_gives_stock_s_exact_response_where_stock_is_right(name: str) -> None:
    import streamfix_litellm

    stock = build(ALL[name])
    streamfix_litellm.install()
    patched = build(ALL[name])
    assert patched.model_dump() == stock.model_dump()
    assert patched._hidden_params == stock._hidden_params


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", FAILING)
def test_stock_returns_a_response_for_errors_and_truncation(name: str) -> None:
    """Stock raises nothing; a provider's error text is nowhere in what it returns."""
    response = build(ALL[name])
    if name in PROVIDER_ERRORS:
        assert str(ALL[name].raises) not in json.dumps(response.model_dump(), default=str)


def _raised(shape: Shape) -> Exception:
    """What building ``shape`` raises: one of litellm's exceptions, with the provider's
    text or the cut call's name."""
    import litellm

    assert shape.raises is not None
    with pytest.raises(
        (litellm.APIError, litellm.InternalServerError, litellm.BadRequestError)
    ) as caught:
        build(shape)
    assert shape.raises in str(caught.value)
    return caught.value


@pytest.mark.parametrize("name", FAILING)
def test_patched_raises_litellm_s_exception(patched: None, name: str) -> None:
    _raised(ALL[name])


@pytest.mark.shim_only
@pytest.mark.parametrize("name", FAILING)
def test_the_shim_s_exception_carries_what_was_assembled(patched: None, name: str) -> None:
    error = _raised(ALL[name])
    assert isinstance(error.__cause__, streamfix.StreamFixError)
    assert hasattr(error, "assembled") and hasattr(error, "partial_arguments")


@pytest.mark.shim_only
def test_truncation_carries_the_complete_calls_and_the_cut_text(patched: None) -> None:
    import litellm

    with pytest.raises(litellm.APIError) as caught:
        build(ALL["e4-truncated"])
    error: Any = caught.value
    assert [c.name for c in error.assembled.tool_calls] == ["get_weather"]
    assert error.partial_arguments == {1: '{"zone": "Eur'}


def test_provider_error_status_picks_the_exception(patched: None) -> None:
    import litellm

    with pytest.raises(litellm.BadRequestError, match="Token limit reached"):
        build(ALL["e5-finish-error-with-object"])
    with pytest.raises(litellm.InternalServerError, match="upstream overloaded"):
        build(ALL["e5-error"])


# -- binding sites ------------------------------------------------------------------------


def _bindings() -> dict[str, Any]:
    import sys

    import litellm  # noqa: F401

    return {
        name: module.__dict__["stream_chunk_builder"]
        for name, module in list(sys.modules.items())
        if module is not None
        and name.startswith("litellm")
        and callable(getattr(module, "__dict__", {}).get("stream_chunk_builder"))
    }


@pytest.mark.shim_only
def test_every_binding_is_patched_and_restored_by_identity() -> None:
    import litellm.main

    import streamfix_litellm

    original = litellm.main.stream_chunk_builder
    before = _bindings()
    defined = original.__module__  # streaming_chunk_builder_utils in newer releases
    assert {"litellm", "litellm.main", defined} <= before.keys()
    assert all(f is original for f in before.values())
    streamfix_litellm.install()
    after = _bindings()
    assert after.keys() >= before.keys()
    assert all(f is streamfix_litellm.stream_chunk_builder for f in after.values())
    streamfix_litellm.uninstall()
    assert all(_bindings()[name] is original for name in before)
