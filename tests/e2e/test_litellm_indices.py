"""litellm's Ollama parser, patched: each call keeps the provider's own index unless it is
missing or names another call of the stream (litellm's own test pins the first half:
``test_top_level_index_preserved_when_already_present``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(params=["stock", "patched"])
def parser(request: pytest.FixtureRequest) -> Iterator[Any]:
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm

    if request.param == "patched":
        streamfix_litellm.install()
    try:
        yield OllamaChatCompletionResponseIterator(streaming_response=iter(()), sync_stream=True)
    finally:
        streamfix_litellm.uninstall()


def _line(*calls: dict[str, Any], done: bool = False) -> dict[str, Any]:
    return {
        "model": "qwen3",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "", "tool_calls": list(calls)},
        "done": done,
    }


def _call(name: str, arguments: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}, **top}


def _indices(parser: Any, *lines: dict[str, Any]) -> list[int]:
    return [
        call.index
        for line in lines
        for call in parser.chunk_parser(line).choices[0].delta.tool_calls or []
    ]


def test_a_top_level_index_is_kept(parser: Any) -> None:
    """Stock keeps it; the patch did renumber it to the call's position (0)."""
    line = _line(_call("tool_x", {"k": 1}, id="call_x", index=10))
    assert _indices(parser, line) == [10]


def test_distinct_provider_indices_are_kept(parser: Any) -> None:
    lines = [
        _line(_call("a", {"x": 1}, id="call_a", index=3)),
        _line(_call("b", {"x": 2}, id="call_b", index=7)),
    ]
    assert _indices(parser, *lines) == [3, 7]


def test_colliding_indices_are_renumbered_patched_only(parser: Any) -> None:
    """Ollama sends every call of a turn under index 0 (wire-shapes B2/B3): stock keeps
    0 for both, so consumers glue them; patched, the second call gets the first free
    index."""
    lines = [
        _line(_call("get_weather", {"city": "Paris"}, index=0)),
        _line(_call("get_time", {"zone": "Europe/Paris"}, index=0)),
    ]
    patched = "streamfix_litellm._ollama" in type(parser).chunk_parser.__module__
    assert _indices(parser, *lines) == ([0, 1] if patched else [0, 0])


def test_several_calls_on_one_line_keep_or_get_their_own_index(parser: Any) -> None:
    line = _line(
        _call("a", {"x": 1}, id="call_a", index=5),
        _call("b", {"x": 2}, id="call_b", index=5),
        _call("c", {"x": 3}, id="call_c"),
        done=True,
    )
    patched = "streamfix_litellm._ollama" in type(parser).chunk_parser.__module__
    if patched:
        assert _indices(parser, line) == [5, 1, 2]
    else:  # stock keeps the two 5s
        assert _indices(parser, line)[:2] == [5, 5]
