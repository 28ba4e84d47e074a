"""litellm's own exception for an error the provider sent inside a stream, and the fixed
``CustomStreamWrapper._map_stream_exception`` that raises it.

The openai SDK raises a bare ``openai.APIError`` (no HTTP status) for an SSE event that
carries ``error`` (Groq's ``{"error": ...}`` chunk, OpenRouter's ``finish_reason:
"error"`` chunk with an error object); stock litellm maps it to ``APIConnectionError``,
as if the connection had failed, and wraps it for a fallback even when the provider
said 400. Patched, the provider's own status picks the exception (the status the core
reads, else the object's ``status_code``, else 400 for an ``invalid_request_error``),
so a 4xx is raised as it is and a 5xx (or no status) goes to litellm's fallback as stock
sends every other mid-stream server error. On a repaired stream (``_wire``) the error
object goes to that stream's own repairer, which passes on what it completes and reads
the error with everything assembled so far; otherwise the core reads it alone.
"""

from __future__ import annotations

from typing import Any

import streamfix
from streamfix import _shimkit

__all__ = ["litellm_error", "map_stream_exception", "provider_exception"]

_WRAPPER = "litellm.litellm_core_utils.streaming_handler"


def map_stream_exception(self: Any, original_exception: Exception) -> Exception:
    """``CustomStreamWrapper._map_stream_exception``, with in-stream provider errors
    mapped by the provider's status (see the module doc). Like stock (litellm's
    ``exception_type``), it raises the mapped exception."""
    body = _in_stream_error(original_exception)
    if body is not None:
        error = _read(self, {"error": body})
        if isinstance(error, streamfix.ProviderStreamError):
            raised = provider_exception(
                error, body, str(self.model or ""), self.custom_llm_provider
            )
            raise raised from original_exception  # as stock's exception_type raises
    stock = _shimkit.stock_of(_WRAPPER, "CustomStreamWrapper._map_stream_exception")
    mapped: Exception = stock(self, original_exception)
    return mapped


def _read(wrapper: Any, chunk: dict[str, Any]) -> streamfix.StreamFixError | None:
    """The core's reading of an error chunk: by the stream's own repairer when the
    stream is repaired (``_wire``), else by an assembler of its own."""
    wire = wrapper.__dict__.get("_streamfix_wire")
    provider_error = getattr(wire, "provider_error", None)
    if provider_error is not None:
        read: streamfix.StreamFixError | None = provider_error(chunk)
        if read is not None:
            return read
    try:
        streamfix.ToolCallAssembler().feed(chunk, events=False)
    except streamfix.StreamFixError as error:
        return error
    return None


def _in_stream_error(exception: Exception) -> dict[str, Any] | None:
    """The error object of an SSE event, when ``exception`` is the openai SDK's error
    for one (an ``APIError`` that is neither an HTTP status error nor a connection
    error)."""
    import openai

    if type(exception) is not openai.APIError:
        return None
    body = exception.body
    return body if isinstance(body, dict) else None


def provider_exception(
    error: streamfix.ProviderStreamError,
    body: object,
    model: str,
    provider: str | None,
) -> Exception:
    """litellm's exception for the provider's status, with the provider's own text;
    ``assembled`` is what the core had assembled (``None`` when not known)."""
    from litellm import exceptions

    status = _status(error, body)
    kinds: dict[int | None, Any] = {
        400: exceptions.BadRequestError,
        429: exceptions.RateLimitError,
        503: exceptions.ServiceUnavailableError,
    }
    text, name = error.provider_message, provider or ""
    raised: Exception
    if status in kinds:
        raised = kinds[status](message=text, model=model, llm_provider=name)
    elif status is not None and 400 <= status < 500:
        raised = exceptions.APIError(
            status_code=status, message=text, llm_provider=name, model=model
        )
    else:
        raised = exceptions.InternalServerError(message=text, model=model, llm_provider=name)
    raised.assembled = error.message  # type: ignore[attr-defined]
    raised.partial_arguments = dict(error.partial_arguments)  # type: ignore[attr-defined]
    return raised


def litellm_error(
    error: streamfix.StreamFixError, body: object, model: str, provider: str | None
) -> Exception:
    """litellm's own exception for what the core refused, carrying what was assembled:
    a provider's error by its status (:func:`provider_exception`), anything else (a cut
    off, nameless or malformed call) as the builder's own ``litellm.APIError`` (status
    500); the core's error as ``__cause__``."""
    from litellm import exceptions

    raised: Exception
    if isinstance(error, streamfix.ProviderStreamError):
        raised = provider_exception(error, body, model, provider)
    else:
        raised = exceptions.APIError(
            status_code=500, message=str(error), llm_provider=provider or "", model=model
        )
        raised.assembled = error.message  # type: ignore[attr-defined]
        raised.partial_arguments = dict(error.partial_arguments)  # type: ignore[attr-defined]
    raised.__cause__ = error
    return raised


def _status(error: streamfix.ProviderStreamError, body: object) -> int | None:
    if error.status_code is not None:
        return error.status_code
    if isinstance(body, dict):
        status = body.get("status_code")
        if type(status) is int:
            return status
        if body.get("type") == "invalid_request_error":
            return 400
    return None
