"""The four live cases answered by llama-server, read straight from its JSON (httpx, no
framework): what every framework's streamed answer is compared with.

The non-streamed answer of each case is checked to be what the case is for before any
framework is judged against it (a model that fills a string with ``<tool_call>`` tokens
until ``max_tokens`` would make every comparison meaningless), and the streamed answer of
the same request, assembled by streamfix's own assembler from the raw SSE chunks, equals
it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import streamfix
from streamfix.testing import LIVE_CASES, LiveCase, LiveTarget, live_request

CASES = {case.name: case for case in LIVE_CASES}
WEATHER = ("get_weather", {"city": "Paris"})
TIME = ("get_time", {"zone": "UTC"})


def answer(target: LiveTarget, case: LiveCase) -> dict[str, Any]:
    """The case's non-streamed answer: choice 0."""
    body = {**live_request(target, case), "stream": False}
    response = httpx.post(f"{target.url}/chat/completions", json=body, timeout=120)
    assert response.status_code == 200, response.text
    choice: dict[str, Any] = response.json()["choices"][0]
    return choice


def streamed_chunks(target: LiveTarget, case: LiveCase) -> list[dict[str, Any]]:
    """The same request streamed: every SSE ``data:`` chunk as JSON, in order."""
    body = {**live_request(target, case), "stream": True}
    chunks = []
    with httpx.stream("POST", f"{target.url}/chat/completions", json=body, timeout=120) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line.removeprefix("data: ")))
    return chunks


def calls_of(message: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for call in message.get("tool_calls") or []
    ]


def test_one_call(llama_target: LiveTarget) -> None:
    choice = answer(llama_target, CASES["one-call"])
    assert choice["finish_reason"] == "tool_calls"
    assert calls_of(choice["message"]) == [WEATHER]
    assert not choice["message"].get("content")


def test_parallel_calls(llama_target: LiveTarget) -> None:
    choice = answer(llama_target, CASES["parallel-calls"])
    assert choice["finish_reason"] == "tool_calls"
    assert calls_of(choice["message"]) == [WEATHER, TIME]
    ids = [call["id"] for call in choice["message"]["tool_calls"]]
    assert len(set(ids)) == 2, ids


def test_truncated_call(llama_target: LiveTarget) -> None:
    choice = answer(llama_target, CASES["truncated-call"])
    assert choice["finish_reason"] == "length"
    for call in choice["message"].get("tool_calls") or []:
        with pytest.raises(ValueError):  # what was cut off is no complete call
            json.loads(call["function"]["arguments"])


def test_text_only(llama_target: LiveTarget) -> None:
    choice = answer(llama_target, CASES["text-only"])
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["content"] == "OK."
    assert not choice["message"].get("tool_calls")


@pytest.mark.parametrize("name", [n for n in CASES if n != "truncated-call"])
def test_streamed_equals_non_streamed(llama_target: LiveTarget, name: str) -> None:
    """streamfix's assembler on llama-server's raw chunks gives the non-streamed answer."""
    choice = answer(llama_target, CASES[name])
    message = streamfix.assemble(streamed_chunks(llama_target, CASES[name]))
    assert [(c.name, c.parsed) for c in message.tool_calls] == calls_of(choice["message"])
    assert (message.content or "") == (choice["message"].get("content") or "")
    assert message.finish_reason == choice["finish_reason"]


def test_streamed_truncated_call_is_an_error(llama_target: LiveTarget) -> None:
    """Cut off by max_tokens inside a call: the assembler raises, carrying what it got."""
    chunks = streamed_chunks(llama_target, CASES["truncated-call"])
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"
    with pytest.raises(streamfix.StreamFixError):
        streamfix.assemble(chunks)


def fragments(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every ``delta.tool_calls`` entry of the stream, in order."""
    return [
        entry
        for chunk in chunks
        for choice in chunk["choices"]
        for entry in choice["delta"].get("tool_calls") or []
    ]


@pytest.mark.parametrize("name", ["one-call", "parallel-calls", "truncated-call"])
def test_wire_shape_of_calls(llama_target: LiveTarget, name: str) -> None:
    """The shape llama-server streams (docs/wire-shapes.md D4): each call opens with one
    fragment carrying its index, id, type, name and the arguments' first character ``{``;
    the rest of the arguments follow in fragments with the index alone; the calls come
    one after the other (index 0, then 1), the finish reason in a last empty delta."""
    chunks = streamed_chunks(llama_target, CASES[name])
    entries = fragments(chunks)
    openers = [e for e in entries if "id" in e]
    assert [e["index"] for e in openers] == list(range(len(openers)))
    for opener in openers:
        assert opener["type"] == "function"
        assert opener["function"]["arguments"] == "{"
        assert opener["function"]["name"] in ("get_weather", "get_time")
    rest = [e for e in entries if "id" not in e]
    assert all(
        set(e) == {"index", "function"} and set(e["function"]) == {"arguments"} for e in rest
    )
    indices = [e["index"] for e in entries]
    assert indices == sorted(indices)
    last = chunks[-1]["choices"][0]
    assert last["delta"] == {}
    assert last["finish_reason"] == ("length" if name == "truncated-call" else "tool_calls")


def test_wire_shape_of_text(llama_target: LiveTarget) -> None:
    """Text streams one token a chunk: ``O``, ``K``, ``.``."""
    chunks = streamed_chunks(llama_target, CASES["text-only"])
    pieces = [c["choices"][0]["delta"].get("content") for c in chunks]
    assert [p for p in pieces if p] == ["O", "K", "."]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
