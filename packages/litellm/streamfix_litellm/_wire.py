"""The litellm wire: ``CustomStreamWrapper`` yields the repaired stream (wire-shapes R).

``CustomStreamWrapper.__next__`` and ``__anext__`` (every provider's stream, sync and
async: litellm turns each provider's events into ``ModelResponseStream`` chunks there)
are wrapped: each chunk stock's method returns goes through one
:class:`streamfix.StreamRepairer`, and the consumer gets what it passes on: the same
object where the chunk needs nothing (R1), else real ``ModelResponseStream`` objects
(:func:`rebuild`). Stock's method still does everything else (its logging, its usage
chunk, its ``finish_reason`` handling, its own ``chunks`` list, which keeps the chunks as
stock made them).

The repairer is finished as soon as stock says the stream's content is over
(``sent_last_chunk``: only usage or a provider trace can follow, passed on as they are),
before stock's end-of-stream ``stream_chunk_builder`` call, which then reads the
messages this repairer settled instead of assembling ``chunks`` again (``_builder``).
The request's declared tools (the logging object's ``tools``, OpenAI's form) go to the
repairer, which reads them for names streamed in pieces (C2) and header-only calls (E11).

Errors, raised once everything complete was passed on (R9, R10):

- a call cut off or never named (E4, E8, E9, E11): ``litellm.APIError`` (status 500,
  what the patched builder raises), ``assembled`` and ``partial_arguments`` on it, the
  core's error as ``__cause__``;
- a provider's error inside the stream that stock raises (the openai SDK's ``error``
  event, mapped by ``_errors``; Ollama's error line, raised by ``_ollama``; any other
  exception): stock's own exception, raised through stock's own path (a 5xx wrapped for
  litellm's fallback as stock wraps it), after what the core says was complete (what
  it held), with ``assembled`` and ``partial_arguments`` added where missing;
- a provider's error the core reads in a chunk stock passed on (``finish_reason:
  "error"``): litellm's exception for its status (``_errors.provider_exception``), through
  stock's fallback mapping.

Another shim reading a litellm stream tells a repaired one by :data:`MARKER` on its
class's ``__next__``/``__anext__`` (:func:`repaired`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import streamfix
from streamfix import _shimkit

from ._errors import litellm_error

__all__ = ["MARKER", "Wire", "anext_repaired", "next_repaired", "rebuild", "repaired", "wire_of"]

_MODULE = "litellm.litellm_core_utils.streaming_handler"
_STATE = "_streamfix_wire"
#: Set (``True``) on the patched ``CustomStreamWrapper.__next__`` and ``__anext__``.
MARKER = "__streamfix_repaired__"


def repaired(stream: object) -> bool:
    """Whether ``stream`` (a ``CustomStreamWrapper``) yields the repaired stream."""
    kind = type(stream)
    return any(getattr(getattr(kind, name, None), MARKER, False) for name in _METHODS)


_METHODS = ("__next__", "__anext__")


class Wire:
    """One stream's repair: the repairer, what it passed on and not yet given out, and
    what the end of the stream raises.

    ``chunks``: the wrapper's own list (what litellm's builder is handed at the end);
    ``continued``: the ids of the chunks that only continued a call's arguments (the
    builder leaves them out, as it does when it assembles); ``messages``: each choice's
    message as the repairer settled it, once :attr:`finished`."""

    __slots__ = (
        "chunks",
        "continued",
        "ended",
        "error",
        "falls_back",
        "finished",
        "model",
        "out",
        "provider",
        "repairer",
    )

    @property
    def messages(self) -> dict[int, streamfix.AssembledMessage]:
        return self.repairer.messages

    def __init__(self, wrapper: Any) -> None:
        self.repairer = streamfix.StreamRepairer(
            declared_tools(wrapper.logging_obj), rebuild=rebuild
        )
        self.out: deque[Any] = deque()
        self.error: BaseException | None = None  # raised once ``out`` is given out
        self.falls_back = False  # the error is a provider's the core read: stock's path
        self.ended = False  # stock's iterator is done (ended, or raised)
        self.finished = False  # the repairer is done
        self.chunks: Any = getattr(wrapper, "chunks", None)
        self.continued: set[int] = set()
        self.model = str(getattr(wrapper, "model", None) or "")
        self.provider = str(getattr(wrapper, "custom_llm_provider", None) or "")

    def take(self, chunk: Any, last: bool) -> bool:
        """A chunk stock returned; ``last``: stock says the content is over. ``True``
        when the core read a provider error in it (the stream ends here)."""
        if self.finished:
            self.out.append(chunk)  # after the content: usage, a provider trace (R1)
            return False
        repairer = self.repairer
        self.out.extend(repairer.feed(chunk))
        if repairer.continued is not None:
            self.continued.add(id(chunk))
        if repairer.error is not None:
            self.finished = self.ended = True
            self._failed_with(repairer.error, _error_body(chunk))
            return True
        if last:
            self.finish()
        return False

    def _failed_with(self, error: streamfix.StreamFixError, body: object) -> None:
        self.error = litellm_error(error, body, self.model, self.provider)
        self.falls_back = isinstance(error, streamfix.ProviderStreamError)

    def finish(self) -> None:
        """End the repair: what the repairer held, settled; the error it ends in."""
        if self.finished:
            return
        self.finished = True
        repairer = self.repairer
        self.out.extend(repairer.finish())
        if repairer.error is not None:
            self._failed_with(repairer.error, None)

    def provider_error(self, body: dict[str, Any]) -> streamfix.StreamFixError | None:
        """The core's reading of a provider's error object that stock raised for (the
        stream's own assembly so far on it), what it completes passed on; ``None`` when
        the repairer is already done."""
        if self.finished:
            return None
        self.out.extend(out for out in self.repairer.feed(body) if out is not body)
        self.finished = self.repairer.error is not None
        return self.repairer.error

    def failed(self, exc: BaseException) -> None:
        """Stock raised ``exc``: what is complete goes out first, then ``exc``, with what
        the stream assembled on it."""
        self.ended = True
        if not self.finished:
            self.provider_error(_raised_body(exc))
        error = self.repairer.error
        if error is not None:
            _annotate(exc, error)
        if self.error is None:
            self.error = exc

    def end(self) -> None:
        """Stock's iterator ended."""
        self.ended = True
        self.finish()

    def pending(self, wrapper: Any = None) -> BaseException | None:
        """The error to raise now (once), else ``None``: a provider's error the core
        read as ``wrapper``'s own path raises a mid-stream error (``_through_fallback``)."""
        error, self.error = self.error, None
        if self.falls_back and wrapper is not None:
            self.falls_back = False
            error = _through_fallback(wrapper, error)
        return error


def wire_of(logging_obj: Any, chunks: Any) -> Wire | None:
    """The finished repair of the stream whose wrapper's ``chunks`` list is ``chunks``
    (litellm's builder is handed that list and the wrapper's logging object)."""
    wire = getattr(logging_obj, "__dict__", {}).get(_STATE)
    if not isinstance(wire, Wire) or wire.chunks is not chunks or not wire.finished:
        return None
    return wire if wire.repairer.error is not None or wire.messages else None


def _wire(wrapper: Any) -> Wire:
    wire = wrapper.__dict__.get(_STATE)
    if wire is None:
        wire = wrapper.__dict__[_STATE] = Wire(wrapper)
        logging_obj = getattr(wrapper, "logging_obj", None)
        if hasattr(logging_obj, "__dict__"):
            logging_obj.__dict__[_STATE] = wire
    return wire  # type: ignore[no-any-return]


def next_repaired(self: Any) -> Any:
    """``CustomStreamWrapper.__next__``, yielding the repaired stream (the stream as
    stock gives it where a framework shim assembles it itself)."""
    stock = _shimkit.stock_of(_MODULE, "CustomStreamWrapper.__next__")
    if _shimkit.is_assembled_downstream(self):
        return stock(self)
    wire = _wire(self)
    while not wire.out:
        if wire.ended:
            error = wire.pending(self)
            if error is not None:
                raise error
            raise StopIteration
        try:
            chunk = stock(self)
        except StopIteration:
            wire.end()
            continue
        except Exception as exc:
            wire.failed(exc)
            continue
        if wire.take(chunk, bool(getattr(self, "sent_last_chunk", False))):
            close = getattr(self, "close", None)  # litellm 1.80 has none
            if close is not None:
                close()
    return wire.out.popleft()


async def anext_repaired(self: Any) -> Any:
    """``CustomStreamWrapper.__anext__``, yielding the repaired stream (the stream as
    stock gives it where a framework shim assembles it itself)."""
    stock = _shimkit.stock_of(_MODULE, "CustomStreamWrapper.__anext__")
    if _shimkit.is_assembled_downstream(self):
        return await stock(self)
    wire = _wire(self)
    while not wire.out:
        if wire.ended:
            error = wire.pending(self)
            if error is not None:
                raise error
            raise StopAsyncIteration
        try:
            chunk = await stock(self)
        except StopAsyncIteration:
            wire.end()
            continue
        except Exception as exc:
            wire.failed(exc)
            continue
        if wire.take(chunk, bool(getattr(self, "sent_last_chunk", False))):
            aclose = getattr(self, "aclose", None)  # litellm 1.80 has none
            if aclose is not None:
                await aclose()
    return wire.out.popleft()


setattr(next_repaired, MARKER, True)
setattr(anext_repaired, MARKER, True)


def _through_fallback(wrapper: Any, error: BaseException | None) -> BaseException | None:
    """``error`` as stock's own path raises a mid-stream error: a 4xx as it is, a 5xx
    wrapped for litellm's fallback (``_handle_stream_fallback_error``)."""
    handle = getattr(wrapper, "_handle_stream_fallback_error", None)
    if not isinstance(error, Exception) or handle is None:
        return error
    try:
        handle(error)
    except Exception as raised:
        if raised is not error:
            _annotate(raised, getattr(error, "__cause__", None))
        return raised
    return error  # pragma: no cover - stock's handler always raises


# --- the request's tools ------------------------------------------------------------------


def declared_tools(logging_obj: Any) -> list[dict[str, Any]] | None:
    """The tools the request declared, in OpenAI's form (``tools``, else the legacy
    ``functions``), as the caller passed them to litellm; ``None`` if none are known."""
    details = getattr(logging_obj, "model_call_details", None)
    if not isinstance(details, dict):
        return None
    optional = details.get("optional_params")
    sources = [details, optional if isinstance(optional, dict) else {}]
    for source in sources:
        for key in ("tools", "functions"):
            tools = source.get(key)
            if isinstance(tools, list) and _openai_tools(tools, key):
                return list(tools)
    return None


def _openai_tools(tools: list[Any], key: str) -> bool:
    if not tools:
        return False
    for tool in tools:
        function = tool.get("function") if key == "tools" and isinstance(tool, dict) else tool
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return False
    return True


# --- chunks -------------------------------------------------------------------------------


def rebuild(body: dict[str, Any], like: Any) -> Any:
    """A ``ModelResponseStream`` made as litellm makes its chunks, from the plain chunk
    ``body`` the repairer wrote (``like``'s top-level fields, one choice): ``like``'s
    id, created, model, fingerprint, provider fields and hidden params; the choice as
    ``StreamingChoices(**choice)`` builds it (a ``Delta``, its entries
    ``ChatCompletionDeltaToolCall``). Its usage is ``like``'s own usage object where the
    body carries one. Its hidden params are a copy of ``like``'s, except on the chunk
    carrying the finish reason: there ``like``'s own dict, which stock updates with the
    final usage once the stream has ended."""
    from litellm.types.utils import StreamingChoices, Usage

    choices = [StreamingChoices(**_choice(choice, like)) for choice in body["choices"]]
    new = like.model_copy(update={"choices": choices})
    extra = new.__pydantic_extra__
    usage = body.get("usage")
    if usage is None:
        if extra is not None:
            extra.pop("usage", None)
    else:
        own = _field(like, "usage")
        new.usage = own if own is not None else Usage(**usage) if isinstance(usage, dict) else usage
    private = new.__pydantic_private__
    hidden = private.get("_hidden_params") if private else None
    if isinstance(hidden, dict) and not any(c.get("finish_reason") for c in body["choices"]):
        private["_hidden_params"] = dict(hidden)
    return new


def _choice(choice: dict[str, Any], like: Any) -> dict[str, Any]:
    """A choice of the body as litellm's own chunks spell it: the delta's fields left
    unset where ``like``'s delta left them unset (``None``, not sent), each tool-call
    entry's ``id`` set (``None`` on a continuation), as litellm's entries have it."""
    delta = choice.get("delta")
    if not isinstance(delta, dict):
        return choice
    sent = _sent_fields(like, choice.get("index"))
    delta = {key: value for key, value in delta.items() if value is not None or key in sent}
    calls = delta.get("tool_calls")
    if calls:
        delta["tool_calls"] = [{"id": None, **entry} for entry in calls]
    return {**choice, "delta": delta}


def _sent_fields(like: Any, index: object) -> frozenset[str]:
    """The fields ``like``'s delta of choice ``index`` was given (pydantic's set)."""
    for choice in _field(like, "choices") or ():
        if _field(choice, "index") == index:
            delta = _field(choice, "delta")
            return frozenset(getattr(delta, "__pydantic_fields_set__", ()))
    return frozenset()


def _field(value: Any, name: str) -> Any:
    extra = getattr(value, "__pydantic_extra__", None)
    if extra and name in extra:
        return extra[name]
    return value.__dict__.get(name)


def _error_body(chunk: Any) -> object:
    """The error object a chunk carries, if any."""
    return _field(chunk, "error") if hasattr(chunk, "__dict__") else None


def _raised_body(exc: BaseException) -> dict[str, Any]:
    """What stock raised, as the error object the core reads: the provider's own (an
    Ollama error line ``_ollama`` raised for), else the exception's text."""
    for error in (exc, getattr(exc, "original_exception", None)):
        body = getattr(error, "streamfix_error", None)
        if isinstance(body, dict):
            return body
    return {"error": {"message": str(exc) or type(exc).__name__}}


def _annotate(exc: BaseException | None, error: object) -> None:
    """``assembled`` and ``partial_arguments`` from the core's ``error`` on ``exc`` (and
    on the exception it wraps), where not already there."""
    if exc is None or not isinstance(error, streamfix.StreamFixError):
        return
    for target in (exc, getattr(exc, "original_exception", None)):
        if isinstance(target, BaseException) and getattr(target, "assembled", None) is None:
            target.assembled = error.message  # type: ignore[attr-defined]
            target.partial_arguments = dict(error.partial_arguments)  # type: ignore[attr-defined]
