"""Errors name the calls they concern, so a shim can say which tool did not run."""

from __future__ import annotations

import pytest
from support import chunk, tc

import streamfix


def test_truncation_error_names_the_incomplete_call() -> None:
    chunks = [
        chunk(tc(0, "a", "ls", "{}")),
        chunk(tc(1, "b", "cat", '{"p": "x')),
        chunk(finish="length"),
    ]
    with pytest.raises(streamfix.TruncatedToolCallError) as caught:
        streamfix.assemble(chunks)
    assert caught.value.partial_names == {1: "cat"}
    assert caught.value.partial_arguments == {1: '{"p": "x'}
    assert [call.name for call in caught.value.message.tool_calls] == ["ls"]  # type: ignore[union-attr]


def test_malformed_error_names_the_call() -> None:
    chunks = [chunk(tc(0, "a", "ls", "[1, 2]"))]
    with pytest.raises(streamfix.MalformedToolCallError) as caught:
        streamfix.assemble(chunks)
    assert caught.value.partial_names == {0: "ls"}
