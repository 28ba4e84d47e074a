"""install() / uninstall(): every binding site, exact restore, idempotence, version check,
the registry entry point; and the incremental path the agent and UI sites get."""

from __future__ import annotations

import json
from typing import Any

import pytest
from smol_wire import chunk, stream_deltas, tc

SITES = ("smolagents.models", "smolagents.agents", "smolagents.gradio_ui")


def bindings() -> dict[str, Any]:
    import importlib

    return {name: importlib.import_module(name).agglomerate_stream_deltas for name in SITES}


def test_install_patches_every_site_and_uninstall_restores_exactly(stock: Any) -> None:
    import streamfix_smolagents as shim

    before = bindings()
    assert set(before.values()) == {stock}
    shim.install()
    shim.install()  # idempotent
    try:
        after = bindings()
        assert after["smolagents.models"] is shim.agglomerate_stream_deltas
        assert after["smolagents.agents"] is shim.agglomerate_growing_deltas
        assert after["smolagents.gradio_ui"] is shim.agglomerate_growing_deltas
        assert shim.installed()
    finally:
        shim.uninstall()
        shim.uninstall()  # idempotent
    assert bindings() == before
    assert all(bindings()[name] is before[name] for name in SITES)
    assert not shim.installed()


def test_uninstall_restores_what_each_site_held(stock: Any) -> None:
    """A site that held something else before install (another patch) gets it back."""
    import smolagents.agents

    import streamfix_smolagents as shim

    def other(*args: Any, **kwargs: Any) -> Any:
        return stock(*args, **kwargs)

    smolagents.agents.agglomerate_stream_deltas = other
    try:
        shim.install()
        shim.uninstall()
        assert smolagents.agents.agglomerate_stream_deltas is other
    finally:
        smolagents.agents.agglomerate_stream_deltas = stock


def test_registry_entry_point(stock: Any) -> None:
    import smolagents.models

    import streamfix

    assert streamfix.install("smolagents") == ["smolagents"]
    try:
        assert smolagents.models.agglomerate_stream_deltas is not stock
    finally:
        assert streamfix.uninstall("smolagents") == ["smolagents"]
    assert smolagents.models.agglomerate_stream_deltas is stock


@pytest.mark.parametrize("found", ["1.23.1", "2.0.0"])
def test_unsupported_version_is_refused(
    found: str, stock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import smolagents.models

    from streamfix_smolagents import _patch

    monkeypatch.setattr(_patch.SHIM, "version", lambda: found)
    with pytest.raises(RuntimeError, match=f"smolagents {found} is not supported"):
        _patch.SHIM.install()
    assert not _patch.SHIM.installed()
    assert smolagents.models.agglomerate_stream_deltas is stock


LONG = [
    chunk(content="Checking."),
    chunk(tc(0, name="search", args='{"query"')),
    chunk(tc(0, args=': "A"}')),
    chunk(tc(0, name="search", args='{"query": ')),
    chunk(tc(0, args='"B"}')),
    chunk(choices=[], usage={"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}),
]


def test_growing_list_feeds_each_delta_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's pattern (append, agglomerate, ..., then agglomerate once more): every
    delta is converted and fed once (linear), live updates show the message so far, and
    the last call is exactly the drop-in's message."""
    from streamfix_smolagents import _incremental, agglomerate_stream_deltas

    converted = 0
    real = _incremental.delta_to_chunk

    def counting(delta: Any) -> Any:
        nonlocal converted
        converted += 1
        return real(delta)

    monkeypatch.setattr(_incremental, "delta_to_chunk", counting)
    deltas = stream_deltas("litellm", LONG)
    growing: list[Any] = []
    live = []
    for delta in deltas:
        growing.append(delta)
        live.append(_incremental.agglomerate_growing_deltas(growing))
    final = _incremental.agglomerate_growing_deltas(growing)
    assert converted == len(deltas)
    assert final == agglomerate_stream_deltas(deltas)
    assert [(c.function.name, json.loads(c.function.arguments)) for c in final.tool_calls] == [
        ("search", {"query": "A"}),
        ("search", {"query": "B"}),
    ]
    assert live[0].content == "Checking."
    # Mid-stream: the second call is open, its text so far shown (stock shows it too).
    middle = live[3]
    assert [(c.function.name, c.function.arguments) for c in middle.tool_calls] == [
        ("search", '{"query": "A"}'),
        ("search", '{"query": '),
    ]
    assert final.token_usage.total_tokens == 14


def test_growing_list_truncated_stream() -> None:
    """Live updates of an unfinished call never raise; the end of a truncated stream does."""
    import streamfix
    from streamfix_smolagents import agglomerate_growing_deltas

    deltas = stream_deltas("openai", [chunk(tc(0, "c1", "f", '{"a": ')), chunk(tc(0, args='"x'))])
    growing: list[Any] = []
    for delta in deltas:
        growing.append(delta)
        assert agglomerate_growing_deltas(growing).tool_calls[0].function.name == "f"
    with pytest.raises(streamfix.TruncatedToolCallError):
        agglomerate_growing_deltas(growing)


def test_growing_list_other_patterns() -> None:
    """An empty stream, a list replaced between calls, a list changed in place."""
    from smolagents.models import ChatMessageStreamDelta

    from streamfix_smolagents import agglomerate_growing_deltas

    assert agglomerate_growing_deltas([]).content == ""
    first = [ChatMessageStreamDelta(content="a")]
    assert agglomerate_growing_deltas(first).content == "a"
    first[0] = ChatMessageStreamDelta(content="b")  # not an append: starts over
    assert agglomerate_growing_deltas(first).content == "b"
    second = [ChatMessageStreamDelta(content="c"), ChatMessageStreamDelta(content="d")]
    assert agglomerate_growing_deltas(second).content == "cd"
    assert agglomerate_growing_deltas(second).content == "cd"  # the end of the stream
