"""The fixed ``chunk_parser`` of litellm's Ollama ``/api/chat`` stream iterator.

Each stream keeps one :class:`streamfix.ToolCallAssembler` on its iterator: it decides
which call every tool-call entry is (its ``position``, given as the entry's ``index``) and
recognises Ollama's mid-stream error objects. The stock parser then builds litellm's
chunk as before.
"""

from __future__ import annotations

from typing import Any

import streamfix
from streamfix import _shimkit

__all__ = ["chunk_parser"]

_STATE = "_streamfix_assembler"
_STATUS = 500  # Ollama answers a failed request (out of memory, ...) with HTTP 500


def chunk_parser(self: Any, chunk: dict[str, Any]) -> Any:
    """``OllamaChatCompletionResponseIterator.chunk_parser``, fixed (see the package doc)."""
    assembler = self.__dict__.get(_STATE)
    if assembler is None:
        assembler = self.__dict__[_STATE] = streamfix.ToolCallAssembler()
    try:
        events = assembler.feed(chunk)
    except streamfix.ProviderStreamError as error:
        raise _provider_error(error, chunk) from None
    except streamfix.StreamFixError:  # refused input: leave the line to litellm as is
        events = []
    _number_calls(chunk, events)
    return _shimkit.stock_of(
        "litellm.llms.ollama.chat.transformation",
        "OllamaChatCompletionResponseIterator.chunk_parser",
    )(self, chunk)


def _number_calls(chunk: dict[str, Any], events: list[streamfix.Event]) -> None:
    """Give each tool-call entry of the line the position the assembler gave its call."""
    message = chunk.get("message")
    entries = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(entries, list):
        return
    positions = [e.position for e in events if isinstance(e, streamfix.ToolCallStarted)]
    latest = None
    for entry, position in zip(entries, positions + [None] * len(entries), strict=False):
        latest = position if position is not None else latest
        if isinstance(entry, dict) and latest is not None:
            entry["index"] = latest


def _provider_error(error: streamfix.ProviderStreamError, chunk: dict[str, Any]) -> Exception:
    from litellm.exceptions import InternalServerError

    return InternalServerError(
        message=error.provider_message,
        llm_provider="ollama_chat",
        model=str(chunk.get("model") or ""),
    )
