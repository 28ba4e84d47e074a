"""Text and tool calls of one delta handed to haystack as two chunks (no haystack import).

haystack's ``OpenAIChatGenerator`` turns each ``ChatCompletionChunk`` into one
``StreamingChunk``, and a ``StreamingChunk`` may carry text or tool calls, never both
(its ``__post_init__`` raises ``ValueError``, by design: upstream's
``test_create_chunk_with_content_and_tool_call``). OpenAI's form allows both in one
delta, and providers send it (Mistral, Groq, gateways; wire-shapes A2), so the generator
fails on a legal stream, the repaired one included (the wire passes such a chunk on as
it came, R1, and puts a split chunk's other fields on its first piece, R5).

:func:`split` hands such a chunk on as two: first the text (every field of the delta
but ``tool_calls``, no finish reason, no usage), then the calls (the delta without
``content``, the finish reason and usage as sent): what haystack would have built had the
provider sent them one after the other. Every other chunk is passed on as the same
object, so where haystack was right nothing changes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

__all__ = ["AsyncSplitStream", "SplitStream", "split"]


def split(chunk: Any) -> tuple[Any, ...]:
    """The chunk, or its text and its calls as two chunks when one delta has both."""
    choices = getattr(chunk, "choices", None)
    if not choices or len(choices) != 1 or not hasattr(chunk, "model_copy"):
        return (chunk,)
    choice = choices[0]
    delta = getattr(choice, "delta", None)
    if delta is None or not getattr(delta, "content", None) or not delta.tool_calls:
        return (chunk,)
    text = chunk.model_copy(
        update={
            "choices": [
                choice.model_copy(
                    update={
                        "delta": delta.model_copy(update={"tool_calls": None}),
                        "finish_reason": None,
                    }
                )
            ],
            "usage": None,
        }
    )
    calls = chunk.model_copy(
        update={
            "choices": [
                choice.model_copy(update={"delta": delta.model_copy(update={"content": None})})
            ]
        }
    )
    return text, calls


class SplitStream:
    """A chat-completion stream with :func:`split` applied to every chunk; ``close()``
    and every other attribute are the stream's."""

    def __init__(self, stream: Iterable[Any]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[Any]:
        for chunk in self._stream:
            yield from split(chunk)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class AsyncSplitStream:
    """The async stream with :func:`split` applied to every chunk; ``close()`` (what
    haystack awaits when its task is cancelled) and every other attribute are the
    stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def _chunks(self) -> AsyncIterator[Any]:
        async for chunk in self._stream:
            for piece in split(chunk):
                yield piece

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
