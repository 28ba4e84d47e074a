"""``OpenAIChatGenerator``'s stream handlers, each the stock one on the split stream.

The replacements of ``OpenAIChatGenerator._handle_stream_response`` and
``_handle_async_stream_response`` (``haystack.components.generators.chat.openai``): each
calls haystack's own method (the one that stood there before install) with the stream
wrapped so that a delta carrying text and tool calls comes as two chunks (``_split``).
Everything else (the ``StreamingChunk`` s, the callback, the assembly of the reply) is
haystack's.
"""

from __future__ import annotations

from typing import Any

from streamfix._shimkit import stock_of

from ._split import AsyncSplitStream, SplitStream

__all__ = ["handle_async_stream_response", "handle_stream_response"]

MODULE = "haystack.components.generators.chat.openai"


def handle_stream_response(self: Any, chat_completion: Any, callback: Any) -> Any:
    """haystack's ``_handle_stream_response`` on the split stream."""
    stock = stock_of(MODULE, "OpenAIChatGenerator._handle_stream_response")
    return stock(self, SplitStream(chat_completion), callback)


async def handle_async_stream_response(self: Any, chat_completion: Any, callback: Any) -> Any:
    """haystack's ``_handle_async_stream_response`` on the split stream."""
    stock = stock_of(MODULE, "OpenAIChatGenerator._handle_async_stream_response")
    return await stock(self, AsyncSplitStream(chat_completion), callback)
