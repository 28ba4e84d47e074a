"""Arguments that are whole but never were JSON (``a0;a1;``, a stream not cut off): where
the litellm shim's two paths part on purpose.

- ``litellm.stream_chunk_builder`` (the builder path) returns stock's message, the text
  joined as sent: litellm's own ``get_combined_tool_content`` tests make that its contract
  (``tests/litellm/test_builder_upstream_pins.py``), and the caller reads a message;
- the repaired stream (``completion(stream=True)``, this file) never hands a consumer
  arguments that are not one JSON object (wire-shapes R, README "The repaired wire"): the
  frameworks reading it run function tools with what they join (agno wraps the text as
  ``{"text": ...}`` and runs the tool, strands runs it with ``{}``). The call's text is
  held, everything else passes on, and the stream ends in ``litellm.APIError`` (the core's
  ``TruncatedToolCallError`` its cause: arguments that are not one JSON object when the
  stream ends) whose ``partial_arguments`` carry the text as sent and ``assembled`` the
  rest: nothing is lost, nothing invalid is run.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import litellm
import openai
import pytest

import streamfix
from streamfix import testing

pytestmark = pytest.mark.shim_only

TEXT = "a0;a1;"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [choice],
    }


def _entry(**fields: Any) -> dict[str, Any]:
    return {"tool_calls": [{"index": 0, **fields}]}


CHUNKS = [
    _chunk({"role": "assistant", "content": "Running it."}),
    _chunk(_entry(id="call_1", type="function", function={"name": "run", "arguments": ""})),
    _chunk(_entry(function={"arguments": "a0;"})),
    _chunk(_entry(function={"arguments": "a1;"})),
    _chunk({}, "tool_calls"),
]


def _client() -> openai.OpenAI:
    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=testing.sse(CHUNKS))

    http = httpx.Client(transport=httpx.MockTransport(answer))
    return openai.OpenAI(api_key="sk-test", base_url="http://streamfix.test/v1", http_client=http)


def _stream() -> tuple[list[Any], BaseException | None]:
    seen: list[Any] = []
    try:
        response = litellm.completion(
            model="openai/m", messages=[{"role": "user", "content": "go"}], stream=True,
            client=_client(), api_key="sk-test",
        )  # fmt: skip
        seen.extend(response)
    except Exception as error:
        return seen, error
    return seen, None


def _joined(chunks: list[Any]) -> dict[int, str]:
    """The arguments an index-keyed consumer joins from the chunks it got."""
    joined: dict[int, str] = {}
    for chunk in chunks:
        for entry in chunk.choices[0].delta.tool_calls or ():
            joined[entry.index] = joined.get(entry.index, "") + (entry.function.arguments or "")
    return joined


def test_stock_hands_the_text_on_as_sent() -> None:
    chunks, error = _stream()
    assert error is None
    assert _joined(chunks) == {0: TEXT}


def test_the_wire_ends_in_litellm_s_error_carrying_the_text(patched: None) -> None:
    chunks, error = _stream()
    assert isinstance(error, litellm.APIError)
    # the core's reading: arguments that are not one JSON object when the stream ends
    assert isinstance(error.__cause__, streamfix.TruncatedToolCallError)
    assert error.partial_arguments == {0: TEXT}  # type: ignore[attr-defined]
    assert error.assembled.content == "Running it."  # type: ignore[attr-defined]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Running it."
    for arguments in _joined(chunks).values():  # nothing that is not JSON went out
        assert arguments == "" or isinstance(json.loads(arguments), dict)


def test_the_builder_on_the_same_chunks_is_stock_s(patched: None) -> None:
    """The builder path keeps stock's answer (litellm's own contract for it)."""
    from litellm.types.utils import ModelResponseStream

    built = litellm.stream_chunk_builder([ModelResponseStream(**c) for c in CHUNKS])
    calls = built.choices[0].message.tool_calls
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [
        ("call_1", "run", TEXT)
    ]
