"""Property: for any fragmentation of a standard stream (OpenAI dialect, one index per
call, possibly interleaved), the patched final response is ADK's non-streamed result for
the same answer, and the partial responses are stock's: on google-adk 2.13+ all of them
(stock is right on these streams there), on older versions the text ones (stock before
2.13 misroutes interleaved calls when a later call completes first:
B1-later-call-completes-first in shapes.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from adk_fakes import chunk, finals, model_response, run, summary, tc, usage_chunk
from google.adk.models.lite_llm import LiteLlm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamfix_adk import StreamFixLiteLlm, _model

#: The shim's partial responses against stock's: not run in direct mode.
pytestmark = pytest.mark.shim_only

_TEXT = st.text(alphabet=st.sampled_from(list('ab z"\\/\n\té€😀{}[]:,')), min_size=0, max_size=24)
_VALUE = st.one_of(
    _TEXT,
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 9), max_size=3),
)

_ARGS = st.dictionaries(st.sampled_from(["path", "content", "n", "flag", "é"]), _VALUE, max_size=4)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[Any], Any]:
    """Text, then 1-3 calls each cut into random pieces, interleaved or one after
    another, then the finish reason and usage; and the non-streamed response."""
    chunks: list[Any] = []
    calls: list[tuple[str, str, str, None]] = []
    text = draw(st.sampled_from(["", "Checking."]))
    if text:
        chunks.append(chunk(content=text))
    per_call: list[list[Any]] = []
    for index in range(draw(st.integers(1, 3))):
        arguments = json.dumps(draw(_ARGS), ensure_ascii=draw(st.booleans()))
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(arguments) - 1)), max_size=6)))
        pieces = [arguments[a:b] for a, b in zip([0, *cuts], [*cuts, len(arguments)], strict=True)]
        name = draw(st.sampled_from(["read_file", "get_time"]))
        calls.append((f"call_{index}", name, arguments, None))
        if draw(st.booleans()):  # header alone, as OpenAI sends it
            fragments = [tc(index, f"call_{index}", name, "")]
            fragments += [tc(index, args=piece) for piece in pieces if piece]
        else:
            first, *rest = [p for p in pieces if p]
            fragments = [tc(index, f"call_{index}", name, first)]
            fragments += [tc(index, args=piece) for piece in rest]
        per_call.append([chunk(f) for f in fragments])
    if draw(st.booleans()):  # round-robin interleaving
        while any(per_call):
            for queue in per_call:
                if queue:
                    chunks.append(queue.pop(0))
    else:
        for queue in per_call:
            chunks.extend(queue)
    chunks.append(chunk(finish="tool_calls"))
    chunks.append(usage_chunk())
    return chunks, model_response(content=text or None, calls=calls)


def _partials(responses: list[Any], *, calls: bool = True) -> list[dict[str, Any]]:
    return [
        r.model_dump(mode="json", exclude_none=True)
        for r in responses
        if r.partial and (calls or not any(p.function_call for p in r.content.parts or []))
    ]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=streams())
def test_any_fragmentation_streams_stock_partials_and_the_non_streamed_final(
    case: tuple[list[Any], Any],
) -> None:
    stream, answer = case
    patched = run(StreamFixLiteLlm, stream)
    expected = run(LiteLlm, answer, stream=False)
    assert [summary(r) for r in finals(patched)] == [summary(r) for r in expected]
    if _model.INDEX_ZERO_KEPT:
        assert _partials(patched) == _partials(run(LiteLlm, stream))
    else:
        texts = [c for c in stream if not c.choices or not c.choices[0].delta.tool_calls]
        assert _partials(patched, calls=False) == _partials(run(LiteLlm, texts), calls=False)
