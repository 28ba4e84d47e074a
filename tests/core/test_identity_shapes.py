"""Wire shapes G2-G4 (identity): fed as dicts, openai ``ChatCompletionChunk`` and litellm
``ModelResponseStream`` objects."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from support import KINDS, chunk, convert, tc

import streamfix

#: The entries as the SDKs spell them: ``"type": "function"`` next to an id.
_tc = partial(tc, typed="with id")


def _chunk(*entries: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return chunk(*entries, finish=finish)


def _assemble(kind: str, chunks: list[dict[str, Any]]) -> streamfix.AssembledMessage:
    return streamfix.assemble(convert(kind, chunks))


def _calls(message: streamfix.AssembledMessage) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.parsed) for c in message.tool_calls]


def _codes(message: streamfix.AssembledMessage) -> list[str]:
    return [d.code for d in message.diagnostics]


@pytest.mark.parametrize("kind", KINDS)
def test_g3_one_id_shared_by_calls_at_different_indices(kind: str) -> None:
    """DeepSeek and GLM reuse one id within a turn: before, both calls came out named
    get_weatherget_time, silently."""
    chunks = [
        _chunk(_tc(0, "call_0", "get_weather", "")),
        _chunk(_tc(0, None, None, '{"city": "Paris"}')),
        _chunk(_tc(1, "call_0", "get_time", "")),
        _chunk(_tc(1, None, None, '{"zone": "CET"}'), finish="tool_calls"),
    ]
    message = _assemble(kind, chunks)
    assert _calls(message) == [
        ("call_0", "get_weather", {"city": "Paris"}),
        ("call_0", "get_time", {"zone": "CET"}),
    ]
    assert _codes(message) == ["shared-id"]


@pytest.mark.parametrize("kind", KINDS)
def test_g3_shared_id_on_every_fragment_interleaved(kind: str) -> None:
    chunks = [
        _chunk(_tc(0, "c", "get_weather", '{"city": ')),
        _chunk(_tc(1, "c", "get_time", '{"zone": ')),
        _chunk(_tc(0, "c", None, '"Paris"}')),
        _chunk(_tc(1, "c", None, '"CET"}'), finish="tool_calls"),
    ]
    assert _calls(_assemble(kind, chunks)) == [
        ("c", "get_weather", {"city": "Paris"}),
        ("c", "get_time", {"zone": "CET"}),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_g4_one_call_repeated_at_another_index_is_dropped(kind: str) -> None:
    chunks = [
        _chunk(_tc(0, "call_1", "get_weather", '{"city": "Paris"}')),
        _chunk(_tc(1, "call_1", "get_weather", '{"city": "Paris"}'), finish="tool_calls"),
    ]
    message = _assemble(kind, chunks)
    assert _calls(message) == [("call_1", "get_weather", {"city": "Paris"})]
    assert _codes(message) == ["repeated-call"]


@pytest.mark.parametrize("kind", KINDS)
def test_g2_the_id_changes_inside_one_call(kind: str) -> None:
    """The header has id A, every later fragment id B and no name: one call (before, a
    MalformedToolCallError)."""
    chunks = [
        _chunk(_tc(0, "id_a", "get_weather", '{"city"')),
        _chunk(_tc(0, "id_b", None, ': "Par')),
        _chunk(_tc(0, "id_b", None, 'is"}'), finish="tool_calls"),
    ]
    assert _calls(_assemble(kind, chunks)) == [("id_a", "get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("kind", KINDS)
def test_b2_a_new_id_with_a_name_after_a_complete_call_still_splits(kind: str) -> None:
    chunks = [
        _chunk(_tc(0, "a", "f", '{"q": 1}')),
        _chunk(_tc(0, "b", "f", '{"q": 2}'), finish="tool_calls"),
    ]
    assert _calls(_assemble(kind, chunks)) == [("a", "f", {"q": 1}), ("b", "f", {"q": 2})]


def test_g3_with_unique_ids_for_frameworks_that_answer_by_id() -> None:
    """``AssembledMessage.with_unique_ids()``: the first call keeps the shared id, the
    others get ``id-N`` (the first free); a message without repeats is returned as is."""
    message = _assemble(
        "dict",
        [
            _chunk(_tc(0, "call_1", "get_weather", '{"city": "Paris"}')),
            _chunk(_tc(1, "call_1", "get_time", "{}")),
            _chunk(_tc(2, "call_1-1", "get_date", "{}")),
            _chunk(_tc(3, "call_1", "get_news", "{}"), finish="tool_calls"),
        ],
    )
    unique = message.with_unique_ids()
    assert [c.id for c in unique.tool_calls] == ["call_1", "call_1-2", "call_1-1", "call_1-3"]
    assert [c.name for c in unique.tool_calls] == [c.name for c in message.tool_calls]
    assert unique.diagnostics == message.diagnostics
    assert unique.with_unique_ids() is unique
