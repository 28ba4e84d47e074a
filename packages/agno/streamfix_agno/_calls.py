"""``OpenAIChat.parse_tool_calls`` keeping each call's ``extra_content`` (no agno import).

agno's streamed path gathers every ``ChoiceDeltaToolCall`` of the stream and builds the
calls at its end with ``OpenAIChat.parse_tool_calls``: a dict per ``index`` with ``id``,
``type`` and ``function`` (name, arguments), nothing else. Its non-streamed path keeps the
SDK's whole call (``model_dump()``), ``extra_content`` included, and sends it back on the
next request. So a Gemini thought signature (``extra_content.google.thought_signature``,
on an entry of its call: wire-shapes R7) survives agno's non-streamed path and is dropped
by its streamed one, and Gemini rejects the next request ("Function call is missing a
thought_signature"), on the repaired wire too: the wire carries the signature, agno's
merge leaves it out.

:func:`parse_tool_calls` is agno's own, then each entry's ``extra_content`` put on the
call of its index, where the non-streamed call carries it (several entries of a call:
their ``extra_content`` merged, later keys over earlier). A call none of whose entries
carries one is agno's dict as it was, key for key.
"""

from __future__ import annotations

from typing import Any

from streamfix._shimkit import stock_of

__all__ = ["PARSE_TOOL_CALLS", "parse_tool_calls"]

MODULE = "agno.models.openai.chat"


def parse_tool_calls(tool_calls_data: list[Any]) -> list[dict[str, Any]]:
    """agno's ``OpenAIChat.parse_tool_calls``, each call with its entries'
    ``extra_content``."""
    calls: list[dict[str, Any]] = stock_of(MODULE, "OpenAIChat.parse_tool_calls")(tool_calls_data)
    for entry in tool_calls_data:
        extra = _extra_content(entry)
        index = getattr(entry, "index", None) or 0  # agno's own rule
        if not extra or not isinstance(index, int) or not 0 <= index < len(calls):
            continue
        call = calls[index]
        if call:  # agno made the call from an entry at this index
            call["extra_content"] = _merged(call.get("extra_content") or {}, extra)
    return calls


PARSE_TOOL_CALLS = staticmethod(parse_tool_calls)
"""What stands on ``OpenAIChat`` (agno's is a static method)."""


def _extra_content(entry: Any) -> dict[str, Any] | None:
    extra = getattr(entry, "extra_content", None)
    if extra is None and isinstance(getattr(entry, "model_extra", None), dict):
        extra = entry.model_extra.get("extra_content")
    return extra if isinstance(extra, dict) and extra else None


def _merged(have: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    out = dict(have)
    for key, value in new.items():
        old = out.get(key)
        out[key] = (
            _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out
