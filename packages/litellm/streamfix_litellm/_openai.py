"""The fixed ``CustomStreamWrapper.chunk_creator`` for OpenAI-compatible streams.

A tool-call entry that carries only a thought signature (wire-shapes F2, F3: Gemini's
OpenAI-compatible endpoint, gateways) comes without a ``function``. litellm's
``ChatCompletionDeltaToolCall`` requires one, so validation fails inside
``chunk_creator``, the whole chunk is replaced by an empty delta and the signature is
lost: Gemini then rejects the next request. Such an entry gets an empty function, which
is what litellm's own providers emit for it, before the stock method runs.
"""

from __future__ import annotations

from typing import Any

from streamfix import _shimkit

__all__ = ["chunk_creator"]


def chunk_creator(self: Any, chunk: Any) -> Any:
    """``CustomStreamWrapper.chunk_creator``, keeping function-less tool-call entries."""
    _give_entries_a_function(chunk)
    return _shimkit.stock_of(
        "litellm.litellm_core_utils.streaming_handler", "CustomStreamWrapper.chunk_creator"
    )(self, chunk)


def _give_entries_a_function(chunk: Any) -> None:
    for choice in getattr(chunk, "choices", None) or ():
        delta = getattr(choice, "delta", None)
        for entry in getattr(delta, "tool_calls", None) or ():
            if getattr(entry, "function", "absent") is None:
                from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCallFunction

                entry.function = ChoiceDeltaToolCallFunction(arguments="")
