"""litellm's own Ollama streaming tests, pinned here: stock and patched give the same chunks.

litellm's ``tests/test_litellm/llms/ollama/test_ollama_chat_transformation.py`` asserts
what ``OllamaChatCompletionResponseIterator.chunk_parser`` makes of Ollama's ``/api/chat``
lines (the upstream test is named in each docstring). Each behaviour is restated here with
this project's own lines and run stock and with ``streamfix_litellm`` installed: both give
the asserted outcome, and the patched chunks equal stock's. The index rules are pinned in
``test_indices.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import streamfix_litellm
from streamfix._shimkit import release

#: The upstream tests pinned here are those of litellm 1.110 (the newest release tested).
#: 1.80 predates three of them: its parser keeps only the first two thinking lines as
#: reasoning, reads the content after a thinking line as reasoning too, and leaves
#: Ollama's ``stop`` after a call as it is. There both runs give 1.80's own outcome (and
#: the patched chunks equal stock's, as everywhere).
UPSTREAM_TESTS = release("litellm") >= (1, 110)


def _iterator() -> Any:
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    return OllamaChatCompletionResponseIterator(streaming_response=iter(()), sync_stream=True)


@pytest.fixture(params=["stock", "patched"])
def parse(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Parses a stream's lines in the current mode, after checking that every chunk
    equals stock's for the same lines."""

    def run(*lines: dict[str, Any]) -> list[Any]:
        parser = _iterator()
        chunks = [parser.chunk_parser(dict(line)) for line in lines]
        if request.param == "patched":
            streamfix_litellm.uninstall()
            stock_parser = _iterator()
            stock = [stock_parser.chunk_parser(dict(line)) for line in lines]
            streamfix_litellm.install()
            assert [_seen(c) for c in chunks] == [_seen(c) for c in stock]
        return chunks

    if request.param == "patched":
        streamfix_litellm.install()
    try:
        yield run
    finally:
        streamfix_litellm.uninstall()


def _seen(chunk: Any) -> Any:
    """A chunk without what differs from run to run (litellm's generated ids, times)."""
    choice = chunk.choices[0]
    delta = choice.delta
    calls = [(c.index, c.function.name, c.function.arguments) for c in delta.tool_calls or ()]
    usage = getattr(chunk, "usage", None)
    return (
        delta.content,
        getattr(delta, "reasoning_content", None),
        calls,
        choice.finish_reason,
        (usage.prompt_tokens, usage.completion_tokens) if usage else None,
    )


def _line(done: bool = False, **message: Any) -> dict[str, Any]:
    return {
        "model": "deepseek-r1",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", **message},
        "done": done,
    }


def test_every_thinking_line_is_reasoning_content(parse: Any) -> None:
    """``test_multiple_thinking_chunks_all_returned_as_reasoning_content``."""
    lines = [_line(thinking=f"step {i}") for i in range(6)]
    chunks = parse(*lines)
    expected = [f"step {i}" if UPSTREAM_TESTS or i < 2 else None for i in range(6)]
    assert [getattr(c.choices[0].delta, "reasoning_content", None) for c in chunks] == expected


@pytest.mark.parametrize(
    ("thinking", "answer", "reasoning", "text"),
    [
        (_line(thinking="Hmm."), _line(content="Answer."), "Hmm.", "Answer."),
        (_line(content="<think>weighing it"), _line(content="</think>Yes."), "weighing it", "Yes."),
    ],
    ids=["thinking-field", "think-tags"],
)
def test_reasoning_then_content(
    parse: Any, thinking: dict[str, Any], answer: dict[str, Any], reasoning: str, text: str
) -> None:
    """``test_thinking_to_content_transition`` (Ollama's ``thinking`` field) and
    ``test_think_tags_in_content`` (``<think>`` tags in the content)."""
    first, second = parse(thinking, answer)
    assert first.choices[0].delta.reasoning_content == reasoning
    assert first.choices[0].delta.content is None
    as_reasoning = not UPSTREAM_TESTS and "thinking" in thinking["message"]  # 1.80
    assert second.choices[0].delta.content == (None if as_reasoning else text)
    second_reasoning = getattr(second.choices[0].delta, "reasoning_content", None)
    assert second_reasoning == (text if as_reasoning else None)


def test_the_done_line_keeps_its_thinking_and_finish(parse: Any) -> None:
    """``test_done_chunk_with_thinking``."""
    line = {**_line(done=True, thinking="Last thought"), "done_reason": "stop"}
    (chunk,) = parse(line)
    assert chunk.choices[0].delta.reasoning_content == "Last thought"
    assert chunk.choices[0].finish_reason == "stop"


def test_a_call_then_done_with_usage(parse: Any) -> None:
    """A call's line, then the done line with Ollama's token counts: the call as sent
    (index 0, arguments as JSON text), then the done line: ``tool_calls`` (litellm reads
    Ollama's ``stop`` after a call so, as ``test_finish_reason_tool_calls_non_streaming``
    does unstreamed) and the usage."""
    call = {"function": {"name": "get_time", "arguments": {"zone": "UTC"}}}
    done = {**_line(done=True, content=""), "done_reason": "stop"}
    done.update(prompt_eval_count=21, eval_count=8)
    first, last = parse(_line(content="", tool_calls=[call]), done)
    (entry,) = first.choices[0].delta.tool_calls
    assert (entry.index, entry.function.name) == (0, "get_time")
    assert entry.function.arguments == '{"zone": "UTC"}'
    assert last.choices[0].finish_reason == ("tool_calls" if UPSTREAM_TESTS else "stop")
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (21, 8)
