"""Gemini native streams beyond the J-M corpus for ADK's ``Gemini`` path (wire-shapes L3,
L4, E4): a call streamed by JSON path cut off, by ``MAX_TOKENS`` or by the stream's end,
and ``MALFORMED_FUNCTION_CALL``. Built with the corpus's own builder
(:func:`streamfix.testing.gemini_stream`); :func:`served` puts them beside the corpus's
Gemini scenarios on the replay server for one test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from streamfix.testing import DIALECT_SCENARIOS, Scenario, gemini_stream

__all__ = ["CUT", "EXTRA", "MALFORMED", "SEARCH", "UNENDED", "WEATHER", "served"]

SEARCH = {"id": "fc_1", "name": "search", "arguments": {"query": "streamed arguments", "limit": 3}}
WEATHER = {"id": "fc_2", "name": "get_weather", "arguments": {"city": "Paris"}}


def _cut(finish: str | None) -> list[dict[str, Any]]:
    """Text, the search call streamed whole, then get_weather's ``$.city`` cut after its
    first piece: the rest of the call (and, without ``finish``, the last chunk) never
    comes."""
    chunks = gemini_stream([SEARCH, WEATHER], "Looking.", streamed=True, finish=finish or "STOP")
    first = next(
        n
        for n, chunk in enumerate(chunks)
        for part in chunk["candidates"][0]["content"]["parts"]
        if part.get("functionCall", {}).get("name") == "get_weather"
    )
    kept = chunks[: first + 1]
    if finish is not None:
        kept.append(chunks[-1])
    return kept


def _scenario(name: str, description: str, chunks: list[dict[str, Any]], **more: Any) -> Scenario:
    return Scenario(name, "L4", description, "gemini", tuple(chunks), **more)


_PARTIAL = json.dumps({"city": "P"})[:-1]  # the cut call's arguments as the core keeps them

CUT = {
    "l4-gemini-cut-max-tokens": _scenario(
        "l4-gemini-cut-max-tokens",
        "a call streamed by path cut mid-string by finishReason MAX_TOKENS (E4)",
        _cut("MAX_TOKENS"),
        calls=(SEARCH,),
        text="Looking.",
        finish_reason="length",
        truncated=True,
        partial_calls=({"id": "fc_2", "name": "get_weather", "arguments": _PARTIAL},),
    ),
    "l4-gemini-cut-stream-end": _scenario(
        "l4-gemini-cut-stream-end",
        "a call streamed by path, then the stream ends: no terminator, no finishReason (E4)",
        _cut(None),
        calls=(SEARCH,),
        text="Looking.",
        finish_reason=None,
        truncated=True,
        partial_calls=({"id": "fc_2", "name": "get_weather", "arguments": _PARTIAL},),
    ),
}

_malformed = gemini_stream([], "Let me check.", finish="MALFORMED_FUNCTION_CALL")
_malformed[-1]["candidates"][0]["finishMessage"] = "Malformed function call: get_weather(city=)"
MALFORMED = _scenario(
    "l4-gemini-malformed",
    "finishReason MALFORMED_FUNCTION_CALL with the model's finishMessage, after text",
    _malformed,
    text="Let me check.",
    error="MALFORMED_FUNCTION_CALL: Malformed function call: get_weather(city=)",
)

ROME = {"id": "fc_3", "name": "get_weather", "arguments": {"city": "Rome"}}


def _unended(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls streamed by path with no empty ``functionCall`` ending any of them."""
    chunks = gemini_stream(calls, streamed=True)
    return [c for c in chunks if c["candidates"][0]["content"]["parts"] != [{"functionCall": {}}]]


UNENDED = {
    "l3-gemini-unended-two-names": Scenario(
        "l3-gemini-unended-two-names",
        "L3",
        "two calls streamed by path, no terminator between them, different names",
        "gemini",
        tuple(_unended([SEARCH, WEATHER])),
        calls=(SEARCH, WEATHER),
    ),
    "l3-gemini-unended-same-name": Scenario(
        "l3-gemini-unended-same-name",
        "L3",
        "two calls of one tool streamed by path under their own ids, no terminator between",
        "gemini",
        tuple(_unended([WEATHER, ROME])),
        calls=(WEATHER, ROME),
    ),
}

#: The shapes above by name.
EXTRA: dict[str, Scenario] = {**CUT, MALFORMED.name: MALFORMED, **UNENDED}


@contextmanager
def served() -> Iterator[None]:
    """The replay server's Gemini endpoint serves :data:`EXTRA` too, for the block."""
    DIALECT_SCENARIOS.update(EXTRA)
    try:
        yield
    finally:
        for name in EXTRA:
            DIALECT_SCENARIOS.pop(name, None)
