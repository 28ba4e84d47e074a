"""crewai's streamed litellm path, given what its non-streamed path gives (the fix; crewai
is imported only when a fixed method runs).

``LLM._handle_streaming_response`` (what ``LLM(stream=True).call`` runs on the litellm
path) accumulates tool-call deltas by ``index`` and, when the caller runs the calls itself
(``available_functions`` not given: crewai's agents), returns them as
``ChatCompletionDeltaToolCall`` objects built from the name and the arguments alone: every
call's id is dropped (``None``), where the non-streamed path returns the provider's
``tool_calls`` with their ids. And when the stream fails after some text came, it logs the
error and returns that text as if it were the answer, where the non-streamed path (and the
streamed one before any text) raises. Neither is a wire shape: both happen on OpenAI's own
form, so the repaired wire alone cannot help.

The fixed methods, each calling crewai's own:

- :func:`handle_streaming_response` (and :func:`ahandle_streaming_response`, ``acall``'s)
  runs crewai's with a record of this stream (a context variable): afterwards each
  returned call whose id crewai dropped gets the id the stream gave its index; if the
  stream failed, it raises what crewai raises for a stream that fails before any text
  (sync: ``LLMCallFailedEvent`` emitted, then ``Exception("Failed to get streaming
  response: ...")`` from the error; async: the error itself);
- ``extract_finish_reason_and_response_id`` (what crewai calls on every chunk) records the
  first id each index's tool-call deltas carry, then runs crewai's;
- :func:`handle_emit_call_events`: called by crewai's streamed handlers inside their
  ``except`` to report the partial text as a completed call: it records the error and
  emits nothing (the call failed); everywhere else it is crewai's.

Where crewai loses nothing the result is crewai's own, object for object (a call whose id
crewai kept, or a stream that gave no id, is left as it is).
"""

from __future__ import annotations

import importlib
import sys
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from streamfix import _shimkit

__all__ = [
    "ahandle_streaming_response",
    "extract_finish_reason_and_response_id",
    "handle_emit_call_events",
    "handle_streaming_response",
]

_MODULE = "crewai.llm"


@dataclass
class _Stream:
    """One streamed call: the first id of each index, and the error the stream failed
    with."""

    ids: dict[Any, str] = field(default_factory=dict)
    failed: BaseException | None = None


_CURRENT: ContextVar[_Stream | None] = ContextVar("streamfix_crewai_stream", default=None)


def handle_streaming_response(self: Any, *args: Any, **kwargs: Any) -> Any:
    """crewai's ``LLM._handle_streaming_response``, with the calls' ids and the stream's
    error kept."""
    stock = _shimkit.stock_of(_MODULE, "LLM._handle_streaming_response")
    stream = _Stream()
    token = _CURRENT.set(stream)
    try:
        result = stock(self, *args, **kwargs)
    finally:
        _CURRENT.reset(token)
    if stream.failed is not None:
        task = _argument(args, kwargs, 3, "from_task")
        _raise_failed(self, stream.failed, task, _argument(args, kwargs, 4, "from_agent"))
    return _with_ids(result, stream.ids)


async def ahandle_streaming_response(self: Any, *args: Any, **kwargs: Any) -> Any:
    """crewai's ``LLM._ahandle_streaming_response`` (``acall``), with the calls' ids and
    the stream's error kept: the error raised as crewai's async path raises it when the
    stream fails before any text (the error itself)."""
    stock = _shimkit.stock_of(_MODULE, "LLM._ahandle_streaming_response")
    stream = _Stream()
    token = _CURRENT.set(stream)
    try:
        result = await stock(self, *args, **kwargs)
    finally:
        _CURRENT.reset(token)
    if stream.failed is not None:
        raise stream.failed
    return _with_ids(result, stream.ids)


def _extract(chunk: Any) -> tuple[str | None, str | None]:
    """crewai's ``LLM._extract_finish_reason_and_response_id`` (called on every chunk of a
    stream, sync and async), the first id of each index's tool-call deltas recorded first
    while a stream is read."""
    stream = _CURRENT.get()
    if stream is not None:
        for entry in _tool_calls(chunk):
            call_id = _field(entry, "id")
            index = _field(entry, "index")
            if call_id and index not in stream.ids:
                stream.ids[index] = call_id
    stock = _shimkit.stock_of(_MODULE, "LLM._extract_finish_reason_and_response_id")
    return stock(chunk)  # type: ignore[no-any-return]


extract_finish_reason_and_response_id = staticmethod(_extract)
""":func:`_extract` as the class attribute it replaces (a ``staticmethod``)."""


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _tool_calls(chunk: Any) -> list[Any]:
    """The tool-call entries of a chunk's first choice's delta (none for a whole
    response, whose choices carry a message)."""
    choices = _field(chunk, "choices") or ()
    delta = _field(choices[0], "delta") if choices else None
    return list(_field(delta, "tool_calls") or ()) if delta is not None else []


def _with_ids(result: Any, ids: dict[Any, str]) -> Any:
    """Each call of ``result`` (a list of calls) whose id crewai dropped given the id the
    stream gave its index; anything else as it is."""
    if isinstance(result, list) and ids:
        for call in result:
            if getattr(call, "id", "") is None and getattr(call, "index", None) in ids:
                call.id = ids[call.index]
    return result


def handle_emit_call_events(self: Any, *args: Any, **kwargs: Any) -> Any:
    """crewai's ``LLM._handle_emit_call_events``; inside a stream's failure (crewai about
    to return the text streamed before the error), the error recorded and nothing
    emitted."""
    stream = _CURRENT.get()
    if stream is not None and _failing(sys._getframe(1)):
        stream.failed = sys.exc_info()[1]
        return None
    stock = _shimkit.stock_of(_MODULE, "LLM._handle_emit_call_events")
    return stock(self, *args, **kwargs)


def _failing(caller: Any) -> bool:
    """Whether ``caller`` (the frame calling ``_handle_emit_call_events``) is crewai's own
    streamed handler handling an exception it caught itself: its ``except`` branch for a
    stream that failed after some text."""
    error = sys.exc_info()[1]
    if error is None or error.__traceback__ is None or error.__traceback__.tb_frame is not caller:
        return False
    handlers = ("LLM._handle_streaming_response", "LLM._ahandle_streaming_response")
    return any(caller.f_code is _shimkit.stock_of(_MODULE, h).__code__ for h in handlers)


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], place: int, name: str) -> Any:
    """An argument of ``_handle_streaming_response(params, callbacks, available_functions,
    from_task, from_agent, response_model)``, given by place (after ``params``) or name."""
    return args[place] if len(args) > place else kwargs.get(name)


def _raise_failed(self: Any, error: BaseException, from_task: Any, from_agent: Any) -> None:
    """What crewai does when a stream fails before any text: ``LLMCallFailedEvent``, then
    its ``Exception`` from the error."""
    llm: Any = importlib.import_module(_MODULE)
    failed = llm.LLMCallFailedEvent(
        error=str(error),
        from_task=from_task,
        from_agent=from_agent,
        call_id=llm.get_current_call_id(),
    )
    llm.crewai_event_bus.emit(self, event=failed)
    raise Exception(f"Failed to get streaming response: {error!s}") from error
