"""Errors name the calls they concern, so a shim can say which tool did not run."""

from __future__ import annotations

import pytest

import streamfix


def _chunk(*calls: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {
        "choices": [{"index": 0, "delta": {"tool_calls": list(calls)}, "finish_reason": finish}]
    }


def test_truncation_error_names_the_incomplete_call() -> None:
    chunks = [
        _chunk({"index": 0, "id": "a", "function": {"name": "ls", "arguments": "{}"}}),
        _chunk({"index": 1, "id": "b", "function": {"name": "cat", "arguments": '{"p": "x'}}),
        _chunk(finish="length"),
    ]
    with pytest.raises(streamfix.TruncatedToolCallError) as caught:
        streamfix.assemble(chunks)
    assert caught.value.partial_names == {1: "cat"}
    assert caught.value.partial_arguments == {1: '{"p": "x'}
    assert [call.name for call in caught.value.message.tool_calls] == ["ls"]  # type: ignore[union-attr]


def test_malformed_error_names_the_call() -> None:
    chunks = [_chunk({"index": 0, "id": "a", "function": {"name": "ls", "arguments": "[1, 2]"}})]
    with pytest.raises(streamfix.MalformedToolCallError) as caught:
        streamfix.assemble(chunks)
    assert caught.value.partial_names == {0: "ls"}
