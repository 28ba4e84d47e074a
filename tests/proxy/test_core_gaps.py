"""What the core's repaired stream (``streamfix.repair``, wire-shapes R) still lacks for
real clients read through the proxy, without HTTP (``gaps.CORE_GAPS``), and what it now
gives them."""

from __future__ import annotations

from typing import Any

import pytest
from proxy_fixtures import stock_clients_fixture  # noqa: F401 (a fixture)
from proxy_helpers import SCENARIOS, TOOLS

import streamfix


def _repaired(name: str) -> list[dict[str, Any]]:
    return list(streamfix.repair(SCENARIOS[name].chunks, TOOLS))


def _entries(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        entry
        for chunk in chunks
        for choice in chunk.get("choices") or []
        for entry in (choice.get("delta") or {}).get("tool_calls") or []
    ]


def test_every_tool_call_entry_has_a_function_object() -> None:
    """The openai SDK's stream helper asserts it, @ai-sdk/openai-compatible's schema
    requires it (Gemini's late signature, F2, on an entry of its own included)."""
    assert all(
        isinstance(e.get("function"), dict) for e in _entries(_repaired("f2-late-signature"))
    )


def test_a_choice_begins_with_its_role() -> None:
    first = _repaired("g3-shared-id")[0]["choices"][0]["delta"]
    assert first.get("role") == "assistant"


def test_the_openai_sdks_stream_helper_reads_thinking_blocks() -> None:
    """litellm's ``thinking_blocks`` pieces carry no ``index``; the SDK's stream helper
    (stock) merges a delta's lists of objects by ``index`` and raises without one. The
    repaired stream gives each piece its block's place: the helper joins the block's text
    and keeps its signature, as the non-streamed message carries it."""
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    original = SCENARIOS["f6-thinking-blocks"].chunks
    stock: Any = ChatCompletionStreamState()
    with pytest.raises(RuntimeError, match="index"):
        for chunk in original:
            stock.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    state: Any = ChatCompletionStreamState()
    for chunk in _repaired("f6-thinking-blocks"):
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    message = state.get_final_completion().choices[0].message
    blocks = [
        {key: value for key, value in block.items() if key != "index"}
        for block in (message.model_extra or {})["thinking_blocks"]
    ]
    assert blocks == streamfix.assemble(original).thinking_blocks
    assert [call.function.name for call in message.tool_calls] == ["get_time"]
