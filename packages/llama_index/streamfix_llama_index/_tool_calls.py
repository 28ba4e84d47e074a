"""``update_tool_calls`` keyed by index (the fix; no llama-index import).

llama-index's own (``llama_index.llms.openai.utils.update_tool_calls``) takes the running
list of ``ChoiceDeltaToolCall`` and one chunk's entries, reads only the first entry, and
merges it into the last call when their ``index`` is equal, else appends it as a new call.
This one reads every entry of the chunk and merges each into the call of its index
wherever it stands in the list (names, ids and arguments appended, as llama-index's does);
an entry with no index (B6) does what llama-index's does: it continues the last call when
that call has no index either. An entry without ``function`` (a signature-only entry)
merges its id only. Where llama-index's is right (each call's fragments one after another,
one entry per chunk) the list is the same, object for object.
"""

from __future__ import annotations

from typing import Any

__all__ = ["update_tool_calls"]


def update_tool_calls(tool_calls: list[Any], tool_calls_delta: list[Any] | None) -> list[Any]:
    """Merge a chunk's tool-call entries into the running ``tool_calls``; returns it."""
    for entry in tool_calls_delta or ():
        call = _call_of(tool_calls, entry.index)
        if call is None:
            tool_calls.append(entry)
        else:
            _merge(call, entry)
    return tool_calls


def _call_of(tool_calls: list[Any], index: Any) -> Any:
    if index is None:  # llama-index's own rule: the last call, if it has no index either
        last = tool_calls[-1] if tool_calls else None
        return last if last is not None and last.index is None else None
    return next((call for call in tool_calls if call.index == index), None)


def _merge(call: Any, entry: Any) -> None:
    if entry.function is not None:
        if call.function is None:
            call.function = entry.function
        else:
            call.function.arguments = (call.function.arguments or "") + (
                entry.function.arguments or ""
            )
            call.function.name = (call.function.name or "") + (entry.function.name or "")
    if entry.id:
        call.id = (call.id or "") + entry.id
