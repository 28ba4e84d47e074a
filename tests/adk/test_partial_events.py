"""ADK's streaming contract for tool calls: partial function-call responses stream as
stock streams them.

google-adk 2.10+ yields one partial ``LlmResponse`` per tool-call fragment (id, name,
``partial_args`` from its own JSON path tracker, ``will_continue``); 1.39 and 2.8 yield
none. Through the fix the same responses come at the same moments, built by ADK itself
from the fragments as the assembler routed them; only the final response differs, where
stock's is wrong.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from adk_fakes import chunk, finals, model_response, run, sig, summary, tc, usage_chunk
from google.adk.models.lite_llm import LiteLlm
from shapes import SHAPES, Shape

from streamfix_adk import StreamFixLiteLlm, _model

LIVE = _model.LIVE_CALLS
S1 = sig("signature-one")

STANDARD = [
    chunk(content="Checking "),
    chunk(tc(0, "c1", "get_weather", "")),
    chunk(tc(0, args='{"city": "Pa')),
    chunk(tc(0, args='ris", "days": [1, ')),
    chunk(tc(0, args='2], "note": "a \\"quoted\\" word"}')),
    chunk(content="and "),
    chunk(tc(1, "c2", "get_time", "", extra_content={"google": {"thought_signature": S1}})),
    chunk(tc(1, args='{"tz"')),
    chunk(tc(1, args=': "CET"}')),
    chunk(finish="tool_calls"),
    usage_chunk(),
]
STANDARD_FRAGMENTS = 7
STANDARD_ARGS = '{"city": "Paris", "days": [1, 2], "note": "a \\"quoted\\" word"}'
STANDARD_ANSWER = model_response(
    content="Checking and ",
    calls=[
        ("c1", "get_weather", STANDARD_ARGS, None),
        ("c2", "get_time", '{"tz": "CET"}', S1),
    ],
)

#: The shim's partial responses against stock's: not run in direct mode.
pytestmark = pytest.mark.shim_only


def _dumped(responses: list[Any]) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json", exclude_none=True) for r in responses if r.partial]


def _partial_calls(responses: list[Any]) -> list[Any]:
    return [
        part.function_call
        for r in responses
        if r.partial
        for part in (r.content.parts if r.content else None) or []
        if part.function_call
    ]


class _SecondPasses:
    """Counts the runs of ADK's loop over a second, canonical stream."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = _model._ReplayClient.__init__

        def counting(client: Any, chunks: list[Any]) -> None:
            self.count += 1
            original(client, chunks)

        monkeypatch.setattr(_model._ReplayClient, "__init__", counting)


def test_partial_responses_equal_stock_on_a_standard_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    second = _SecondPasses(monkeypatch)
    stock = run(LiteLlm, STANDARD)
    patched = run(StreamFixLiteLlm, STANDARD)
    assert _dumped(patched) == _dumped(stock)  # every partial response, in order
    non_streamed = run(LiteLlm, STANDARD_ANSWER, stream=False)  # stock < 2.13 drops S1
    assert [summary(r) for r in finals(patched)] == [summary(r) for r in non_streamed]
    calls = _partial_calls(patched)
    if LIVE:
        assert len(calls) == STANDARD_FRAGMENTS  # one per fragment, as stock
        assert {(c.id, c.name) for c in calls} == {("c1", "get_weather"), ("c2", "get_time")}
        assert any(c.partial_args for c in calls)
    else:
        assert calls == []  # this version streams none, stock or patched
    assert second.count == 0  # ADK finalized what it was sent: no second pass


#: A3 sends a call's header and its first arguments as two entries of one chunk: ADK
#: streams a partial response per entry, the fix one per call and chunk (the assembler's
#: events do not keep entry boundaries within a chunk), which is what ADK streams for
#: the same stream sent with one entry.
A3_ONE_ENTRY = [
    chunk(tc(0, "c1", "f", '{"ci')),
    chunk(tc(0, args='ty":"Paris"}')),
    chunk(finish="tool_calls"),
    usage_chunk(),
]
_RIGHT_ON_STOCK = [s for s in SHAPES if not s.stock_broken]


@pytest.mark.parametrize("shape", _RIGHT_ON_STOCK, ids=[s.id for s in _RIGHT_ON_STOCK])
def test_partial_responses_equal_stock_where_stock_is_right(shape: Shape) -> None:
    """Every shape stock already assembles right streams the same partial responses."""
    patched = _dumped(run(StreamFixLiteLlm, shape.chunks))
    stock_chunks = A3_ONE_ENTRY if shape.id == "A3" and LIVE else shape.chunks
    assert patched == _dumped(run(LiteLlm, stock_chunks))


def _final_calls(responses: list[Any]) -> dict[str, str]:
    return {
        part.function_call.id: part.function_call.name
        for r in finals(responses)
        for part in (r.content.parts if r.content else None) or []
        if part.function_call
    }


def _has_calls(shape: Shape) -> bool:
    return any(
        choice.delta.tool_calls or choice.delta.function_call
        for chunk in shape.chunks
        for choice in chunk.choices or []
    )


_WITH_CALLS = [s for s in SHAPES if _has_calls(s)]


@pytest.mark.parametrize("shape", _WITH_CALLS, ids=[s.id for s in _WITH_CALLS])
def test_partial_call_responses_name_the_assembled_calls(shape: Shape) -> None:
    """On every shape, broken on stock or not, partial function-call responses stream,
    and each one that names its call is about a call of the final response (its id, with
    a signature embedded as ADK streams it; its name or the part of it known so far).
    One without a name may be a phantom the final drops (B9)."""
    responses = run(StreamFixLiteLlm, shape.chunks)
    calls = _partial_calls(responses)
    final = _final_calls(responses)
    if not LIVE:
        assert calls == []
        return
    assert calls, "no partial function-call response streamed"
    for call in calls:
        assert call.will_continue
        if call.name is None:
            continue
        call_id = call.id if call.id in final else call.id.split("__thought__")[0]
        assert call_id in final, (call.id, final)
        assert final[call_id].startswith(call.name)


C5_CUMULATIVE = [
    chunk(tc(0, "c1", "f", '{"city":')),
    chunk(tc(0, args='{"city":"Par')),
    chunk(tc(0, args='{"city":"Paris"}')),
    chunk(finish="tool_calls"),
]
B4_ONE_STRING = [
    chunk(tc(0, "c1", "f", '{"city":"Paris"}{"city":"Tokyo"}')),
    chunk(finish="tool_calls"),
]
SIGNATURE_REPLACED = [
    chunk(tc(0, "c1", "f", '{"city":', extra_content={"google": {"thought_signature": S1}})),
    chunk(tc(0, args='"Paris"}')),
    chunk(tc(0, extra_content={"google": {"thought_signature": sig("the-last-one")}})),
    chunk(finish="tool_calls"),
]


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        (C5_CUMULATIVE, [("c1", "f", {"city": "Paris"}, None)]),
        (
            B4_ONE_STRING,
            [("c1", "f", {"city": "Paris"}, None), ("c1-1", "f", {"city": "Tokyo"}, None)],
        ),
        (SIGNATURE_REPLACED, [("c1", "f", {"city": "Paris"}, sig("the-last-one"))]),
    ],
    ids=["C5-cumulative", "B4-one-string", "signature-replaced"],
)
def test_repair_known_only_at_the_end_gives_the_assembled_final(
    monkeypatch: pytest.MonkeyPatch, chunks: list[Any], expected: list[Any]
) -> None:
    """What only the end of the stream can tell (cumulative arguments, several values
    in one string, a signature replaced) was streamed live as sent; the final response
    carries the assembled calls (from 2.7, where the calls go through ADK's loop live,
    from a second run of it; from 2.10 ADK streams them as partial responses)."""
    second = _SecondPasses(monkeypatch)
    responses = run(StreamFixLiteLlm, chunks)
    (final,) = finals(responses)
    got = [
        (
            part.function_call.id,
            part.function_call.name,
            dict(part.function_call.args or {}),
            part.thought_signature,
        )
        for part in final.content.parts
        if part.function_call
    ]
    assert got == [(i, n, a, _bytes(s)) for i, n, a, s in expected]
    assert second.count == (1 if _model.FORWARDED_CALLS else 0)
    if LIVE:
        assert _partial_calls(responses)  # streamed live before the repair


def _bytes(signature: str | None) -> bytes | None:
    return base64.b64decode(signature) if signature else None


_REASONING = [s for s in SHAPES if s.id.startswith(("F5", "F6"))]


@pytest.mark.parametrize("shape", _REASONING, ids=[s.id for s in _REASONING])
def test_reasoning_metadata_streams_as_stock(shape: Shape) -> None:
    """F5, F6: thinking pieces and reasoning text stream in the partial responses as
    stock streams them, on every version (where the fix differs, it is in the final)."""
    assert _dumped(run(StreamFixLiteLlm, shape.chunks)) == _dumped(run(LiteLlm, shape.chunks))
