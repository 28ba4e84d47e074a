"""autogen-ext's streamed chunks with text and tool calls kept apart (the fix; no
autogen import).

``BaseOpenAIChatCompletionClient.create_stream`` reads each chunk's first choice and, when
its delta carries ``content``, yields the text and skips the rest of the chunk (its own
comment: "for OpenAI, tool_calls and content are mutually exclusive it seems"): a
tool-call entry that arrives in the same delta as text is dropped (its id and name lost,
or a whole call). OpenAI-compatible servers send text and calls in one delta (A2, F4),
and so does the repaired wire, legally (R5 keeps a chunk's other fields on its first
entry). The client's chunk sources (``_create_stream_chunks``, and
``_create_stream_chunks_beta_client`` for structured output) are wrapped: such a chunk is
handed on as two, the text first (with the delta's other fields: role, reasoning,
logprobs) and then the tool-call entries (with the chunk's ``finish_reason`` and
``usage``). Every other chunk is handed on as the very object the SDK gave, so where
stock is right nothing changes.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from streamfix._shimkit import stock_of

__all__ = ["create_stream_chunks", "create_stream_chunks_beta_client", "split"]

_MODULE = "autogen_ext.models.openai._openai_client"
_CLIENT = "BaseOpenAIChatCompletionClient"


def split(chunk: Any) -> tuple[Any, ...]:
    """``chunk`` alone, or, when its one choice's delta carries both text and tool-call
    entries, the text part and then the calls part (copies of the chunk)."""
    choices = getattr(chunk, "choices", None) or []
    if len(choices) != 1:
        return (chunk,)
    choice = choices[0]
    delta = choice.delta
    if not (delta.content and delta.tool_calls):
        return (chunk,)
    text = delta.model_copy(update={"tool_calls": None})
    calls: dict[str, Any] = {"content": None, "role": None}
    extra = delta.model_extra or {}
    if extra.get("reasoning_content"):  # still reasoning, nothing new: no second "<think>"
        calls["reasoning_content"] = ""
    first = chunk.model_copy(
        update={
            "choices": [choice.model_copy(update={"delta": text, "finish_reason": None})],
            "usage": None,
        }
    )
    second = chunk.model_copy(
        update={
            "choices": [
                choice.model_copy(
                    update={"delta": delta.model_copy(update=calls), "logprobs": None}
                )
            ]
        }
    )
    return first, second


async def create_stream_chunks(self: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
    """The client's own ``_create_stream_chunks``, each chunk through :func:`split`."""
    stock = stock_of(_MODULE, f"{_CLIENT}._create_stream_chunks")
    async for chunk in stock(self, *args, **kwargs):
        for part in split(chunk):
            yield part


async def create_stream_chunks_beta_client(
    self: Any, *args: Any, **kwargs: Any
) -> AsyncGenerator[Any, None]:
    """The client's own ``_create_stream_chunks_beta_client`` (structured output), each
    chunk through :func:`split`."""
    stock = stock_of(_MODULE, f"{_CLIENT}._create_stream_chunks_beta_client")
    async for chunk in stock(self, *args, **kwargs):
        for part in split(chunk):
            yield part
