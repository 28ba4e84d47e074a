"""The fixed ``chunk_parser`` of litellm's Ollama ``/api/chat`` stream iterator.

Used without the wire (a parser class given this method, nothing installed), each stream
keeps one :class:`streamfix.ToolCallAssembler` on its iterator: it decides which call
every tool-call entry is, and recognises Ollama's mid-stream error objects. Each call is
sent under its own ``index``: the provider's when it has one that no other call of the
stream has, else the first free one. The stock parser then builds litellm's chunk as
before.

Installed, ``CustomStreamWrapper`` yields the repaired stream (``_wire``), whose repairer
decides every call of the stream once: the parser then numbers nothing (no assembler of
its own) and only raises for an error line (the core reads that line alone) and keeps
Ollama's own call ids (litellm 1.110 replaces them, and nothing after the parser can put
them back).
"""

from __future__ import annotations

from typing import Any

import streamfix
from streamfix import _shimkit

from ._patch import SHIM as _SHIM

__all__ = ["chunk_parser"]

_STATE = "_streamfix_assembler"
_STATUS = 500  # Ollama answers a failed request (out of memory, ...) with HTTP 500


def chunk_parser(self: Any, chunk: dict[str, Any]) -> Any:
    """``OllamaChatCompletionResponseIterator.chunk_parser``, fixed (see the package doc)."""
    if _SHIM.installed():  # the repaired stream numbers the calls (``_wire``)
        _raise_for_error(chunk)
    else:
        state = self.__dict__.get(_STATE)
        if state is None:
            state = self.__dict__[_STATE] = _Calls()
        state.number(chunk)
    ids = _sent_ids(chunk)
    parsed = _shimkit.stock_of(
        "litellm.llms.ollama.chat.transformation",
        "OllamaChatCompletionResponseIterator.chunk_parser",
    )(self, chunk)
    if ids:
        _keep_ids(parsed, ids)
    return parsed


def _raise_for_error(chunk: dict[str, Any]) -> None:
    """litellm's exception for an error line (the core reads the line alone)."""
    if not isinstance(chunk, dict) or chunk.get("error") is None:
        return
    try:
        streamfix.ToolCallAssembler().feed(chunk, events=False)
    except streamfix.ProviderStreamError as error:
        raise _provider_error(error, chunk) from None
    except streamfix.StreamFixError:  # not an error the core reads: stock's to judge
        return


def _sent_ids(chunk: dict[str, Any]) -> list[str | None]:
    """The id Ollama sent on each tool-call entry of the line (``None`` where none)."""
    message = chunk.get("message")
    entries = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(entries, list) or not entries:
        return []
    ids = [e.get("id") if isinstance(e, dict) else None for e in entries]
    return ids if any(isinstance(i, str) and i for i in ids) else []


def _keep_ids(parsed: Any, ids: list[str | None]) -> None:
    """Ollama's own call ids on litellm's chunk (litellm 1.110 replaces them with random
    ones, so the next turn's tool results address calls that never existed)."""
    choices = getattr(parsed, "choices", None) or ()
    delta = getattr(choices[0], "delta", None) if choices else None
    calls = getattr(delta, "tool_calls", None) or ()
    if len(calls) != len(ids):
        return
    for call, sent in zip(calls, ids, strict=True):
        if isinstance(sent, str) and sent:
            call.id = sent


class _Calls:
    """One stream's calls: the assembler decides which call each tool-call entry is;
    each call keeps the ``index`` the provider gave it unless that index is missing or
    already names another call of the stream (Ollama gives every call index 0), which
    then gets the first free one."""

    def __init__(self) -> None:
        self.assembler = streamfix.ToolCallAssembler()
        self.indices: dict[int, int] = {}  # call position -> the index it is sent under

    def number(self, chunk: dict[str, Any]) -> None:
        message = chunk.get("message")
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(entries, list) or len(entries) < 2:
            self._feed(chunk, entries[0] if isinstance(entries, list) and entries else None)
            return
        # Several calls on one line: fed one entry at a time, to know which call each is.
        for at, entry in enumerate(entries):
            part = {**message, "tool_calls": [entry]}
            if at:
                part.pop("content", None)
                part.pop("thinking", None)
            last = at == len(entries) - 1
            self._feed({**chunk, "message": part} if last else {"message": part}, entry)

    def _feed(self, chunk: dict[str, Any], entry: object) -> None:
        try:
            events = self.assembler.feed(chunk)
        except streamfix.ProviderStreamError as error:
            raise _provider_error(error, chunk) from None
        except streamfix.StreamFixError:  # refused input: leave the line to litellm as is
            return
        position = next((e.position for e in events if isinstance(e, _CALL_EVENTS)), None)
        if isinstance(entry, dict) and position is not None:
            entry["index"] = self._index(position, _sent_index(entry))

    def _index(self, position: int, sent: object) -> int:
        index = self.indices.get(position)
        if index is None:
            taken = self.indices.values()
            index = sent if type(sent) is int and sent >= 0 and sent not in taken else None
            if index is None:
                index = position if position not in taken else max(taken) + 1
            self.indices[position] = index
        return index


def _sent_index(entry: dict[str, Any]) -> object:
    """The index Ollama gave the entry: top-level, else inside ``function`` (Ollama
    Cloud puts it there)."""
    index = entry.get("index")
    function = entry.get("function")
    if index is None and isinstance(function, dict):
        index = function.get("index")
    return index


_CALL_EVENTS = (streamfix.ToolCallStarted, streamfix.ArgumentsDelta, streamfix.ToolCallUpdated)


def _provider_error(error: streamfix.ProviderStreamError, chunk: dict[str, Any]) -> Exception:
    from litellm.exceptions import InternalServerError

    raised = InternalServerError(
        message=error.provider_message,
        llm_provider="ollama_chat",
        model=str(chunk.get("model") or ""),
    )
    raised.streamfix_error = chunk  # type: ignore[attr-defined]  # the line, for ``_wire``
    return raised
