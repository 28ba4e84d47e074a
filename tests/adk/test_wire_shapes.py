"""Every wire shape through stock ``LiteLlm`` and ``StreamFixLiteLlm`` (shapes.py); in
direct mode through google-adk's own ``LiteLlm`` patched upstream-style (``FIXED``).

For each shape the reference is ADK's own **non-streamed** path fed the non-streamed
``ModelResponse`` for the same answer: the patched final ``partial=False`` response must
equal it (calls, ids, arguments, signature bytes on the part, text, reasoning, finish
reason, usage). Stock must be broken exactly where ``Shape.stock_broken`` says, on the
version under test: "<2.13" shapes are fixed upstream in google-adk 2.13 (adk-python#7004,
streamed signatures), so on those versions stock is asserted right instead.
"""

from __future__ import annotations

from typing import Any

import pytest
from adk_fakes import ADK_VERSION, FIXED, finals, run, summary
from google.adk.models.lite_llm import LiteLlm
from shapes import SHAPES, Shape


def _sent_ids(shape: Shape) -> set[str]:
    ids = set()
    for chunk in shape.chunks:
        for choice in chunk.choices or []:
            for call in choice.delta.tool_calls or []:
                if call.id:
                    ids.add(call.id)
    return ids


def _comparable(summaries: list[dict[str, Any]], sent: set[str]) -> list[dict[str, Any]]:
    """Ids the provider never sent (litellm's or ADK's invention) become "<generated>"."""
    out = []
    for item in summaries:
        parts = []
        for part in item["parts"]:
            call = part["call"]
            if call is not None and not any(
                call[0] == s or s.startswith(f"{call[0]}__thought__") for s in sent
            ):
                parts.append({**part, "call": ("<generated>", call[1], call[2])})
            else:
                parts.append(part)
        out.append({**item, "parts": parts})
    return out


def _expected(shape: Shape) -> list[dict[str, Any]]:
    return [summary(r) for r in finals(run(LiteLlm, shape.expected, stream=False))]


def _streamed(cls: type[LiteLlm], shape: Shape) -> list[dict[str, Any]]:
    return [summary(r) for r in finals(run(cls, shape.chunks))]


def _stock_is_broken(shape: Shape) -> bool:
    if shape.stock_broken.startswith("<"):
        major, minor = shape.stock_broken[1:].split(".")
        return (int(major), int(minor)) > ADK_VERSION
    return shape.stock_broken == "all"


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_patched_final_equals_non_streamed(shape: Shape) -> None:
    sent = _sent_ids(shape)
    got = _streamed(FIXED, shape)
    assert _comparable(got, sent) == _comparable(_expected(shape), sent)
    ids = [p["call"][0] for item in got for p in item["parts"] if p["call"]]
    assert all(ids) and len(set(ids)) == len(ids)


@pytest.mark.stock_failure
@pytest.mark.parametrize(
    "shape", [s for s in SHAPES if s.stock_broken], ids=[s.id for s in SHAPES if s.stock_broken]
)
def test_stock(shape: Shape) -> None:
    """Stock ADK on this shape: broken where the table says so for this version (a lost
    call, a lost or misplaced signature, a call with no name, a doubled name, or an
    exception), right otherwise."""
    sent = _sent_ids(shape)
    expected = _comparable(_expected(shape), sent)
    try:
        got: Any = _comparable(_streamed(LiteLlm, shape), sent)
    except Exception as error:  # stock raises JSONDecodeError on some shapes
        got = error
    if _stock_is_broken(shape):
        assert got != expected
    else:
        assert got == expected
