"""litellm's Ollama parser, patched: each call keeps the provider's own index unless it is
missing or names another call of the stream (litellm's own test pins the first half:
``test_top_level_index_preserved_when_already_present``)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from support import direct


@pytest.fixture(params=["stock", "patched"])
def parser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """litellm's Ollama iterator: stock, or with the fixed parser. Installed, the fixed
    parser leaves the numbering to the repaired stream, which numbers every call of the
    stream once (tests/litellm_wire); the parser's own numbering is what an iterator
    class given the fixed parser does with nothing installed, so that is the patched
    parser here. Direct mode: litellm's own parser, patched upstream."""
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    import streamfix_litellm

    iterator: Any = OllamaChatCompletionResponseIterator
    if request.param == "patched" and direct():
        streamfix_litellm.install()
    elif request.param == "patched":

        class Fixed(OllamaChatCompletionResponseIterator):
            chunk_parser = streamfix_litellm.chunk_parser

        iterator = Fixed
    try:
        yield iterator(streaming_response=iter(()), sync_stream=True)
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


def _cloud_line(i: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Ollama Cloud's wire format: the id at the top of the entry, the index inside
    ``function``, the arguments an object."""
    entry = {"id": f"call_{i}", "function": {"index": i, "name": name, "arguments": arguments}}
    return _line(entry)


CLOUD = [
    _cloud_line(0, "get_weather", {"location": "Jakarta"}),
    _cloud_line(1, "get_stock_price", {"symbol": "AAPL"}),
    _cloud_line(2, "convert_currency", {"from": "USD", "to": "IDR", "amount": 100}),
]


def _patched(parser: Any) -> bool:
    return "streamfix_litellm._ollama" in type(parser).chunk_parser.__module__


def test_function_index_promoted_and_ollama_ids_kept(parser: Any) -> None:
    """litellm's newer tests pin both (test_function_index_promoted_to_top_level,
    test_ollama_id_preserved_not_overwritten_with_uuid); litellm 1.110 gives every call
    index 0 and a random id, so the next turn's tool results address calls that never
    existed."""
    calls = [
        call
        for line in copy.deepcopy(CLOUD)  # stock litellm writes its ids into the lines
        for call in parser.chunk_parser(line).choices[0].delta.tool_calls or []
    ]
    if _patched(parser):
        assert [(c.index, c.id) for c in calls] == [(0, "call_0"), (1, "call_1"), (2, "call_2")]
    else:
        assert [c.index for c in calls] == [0, 0, 0]
        assert not any(c.id.startswith("call_") for c in calls)
    assert [c.function.arguments for c in calls] == [
        '{"location": "Jakarta"}',
        '{"symbol": "AAPL"}',
        '{"from": "USD", "to": "IDR", "amount": 100}',
    ]


def test_stream_chunk_builder_gets_every_cloud_call_with_its_id(parser: Any) -> None:
    import litellm

    chunks = [parser.chunk_parser(line) for line in copy.deepcopy(CLOUD)]
    built = litellm.stream_chunk_builder(chunks)
    calls = [(c.id, c.function.name) for c in built.choices[0].message.tool_calls or []]
    if _patched(parser):
        assert calls == [
            ("call_0", "get_weather"),
            ("call_1", "get_stock_price"),
            ("call_2", "convert_currency"),
        ]
    else:  # stock: every call under index 0, so only the last one is built
        assert [name for _, name in calls] == ["convert_currency"]
