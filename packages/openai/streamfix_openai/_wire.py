"""The openai wire: ``client.chat.completions.create(stream=True)`` yields repaired chunks.

Most frameworks read the SDK's raw ``Stream`` / ``AsyncStream`` of ``ChatCompletionChunk``
and assemble its tool calls themselves, by ``index`` (wire-shapes R). Installed, the SDK
builds the iterator of every such stream through :class:`streamfix.StreamRepairer`: the
SDK's ``Stream.__init__`` sets ``self._iterator = self.__stream__()``, and ``__stream__``
(of ``Stream`` and of ``AsyncStream``, the one class attribute every binding site and
every way of building a stream resolves) is :func:`stream` / :func:`astream` here. So
``for`` and ``async for``, ``next()`` / ``anext()`` on the stream itself (autogen), the
context managers, ``with_raw_response`` (``.parse()``) and ``with_streaming_response``
all read the repaired chunks. What the replacement does, once per stream:

- it repairs only streams whose items are chat-completion chunks (the stream's cast
  type is ``ChatCompletionChunk``); every other stream (Responses, audio, legacy
  completions, the ``.stream()`` helper's events) gets the SDK's own iterator, the
  same object stock builds;
- it leaves the ``.stream()`` helper's raw stream alone (the SDK marks its requests with
  ``X-Stainless-Helper-Method: chat.completions.stream``): that helper's state is already
  the shim's, and repairing its chunks too would assemble every chunk twice;
- it reads the request's declared ``tools`` (and legacy ``functions``) from the request
  body, so the repairer decides a call's name as soon as it arrives (R6, C2);
- a chunk that needs nothing is the SDK's own object, passed on (R1); a rewritten one is
  built by the client's own ``_process_response_data`` from plain JSON, exactly as the
  SDK builds a chunk it received (``construct``, or validated under strict response
  validation), with the fields the original chunk left unset still unset and provider
  fields (``extra_content`` on a tool-call entry) kept;
- an error payload inside the stream (E5) raises the SDK's ``openai.APIError``, stock's
  own object where it carries the provider's text, after what the repairer held back
  was passed on (R9);
- a call that never completes (E4, E8, E11) or never gets a name (E9) raises, after
  everything complete was yielded, :class:`StreamFixAPIError` (R10): an
  ``openai.APIError``, because that is what every framework built on the SDK already
  catches around a stream, and a :class:`streamfix.StreamFixError` of the core's own
  kind (``TruncatedToolCallError``, ``MalformedToolCallError``...), carrying the
  assembled ``message`` and the ``partial_arguments`` as the core's errors do. Its text
  is ``str(error)``; ``message`` is the core's, not ``APIError``'s string (see
  ``docs/design.md``, "Wire shims").
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from openai import APIError
from openai.types.chat import ChatCompletionChunk

from streamfix import (
    ArgumentsTooLargeError,
    MalformedToolCallError,
    ProviderStreamError,
    StreamFixError,
    StreamRepairer,
    TruncatedToolCallError,
)
from streamfix._shimkit import stock_of

from ._versions import STREAMING

__all__ = [
    "ArgumentsTooLargeAPIError",
    "MalformedToolCallAPIError",
    "StreamFixAPIError",
    "TruncatedToolCallAPIError",
    "astream",
    "stream",
]

#: The header the SDK's ``.stream()`` helper sends (``beta.chat.completions.stream`` on
#: openai 1.x): a stream it reads is assembled by the helper's (fixed) state.
HELPER_HEADER = "X-Stainless-Helper-Method"
HELPER_METHOD = "chat.completions.stream"


class StreamFixAPIError(APIError, StreamFixError):  # type: ignore[misc]
    """A streamed chat completion that cannot be handed on whole (wire-shapes R10).

    An ``openai.APIError`` (what the SDK's users catch around a stream) and a
    :class:`streamfix.StreamFixError`. ``message`` is the SDK's: the text (frameworks
    build their own errors from ``APIError.message``: pydantic-ai's ``ModelAPIError``);
    the assembled message of what did complete is ``assembled`` (the name litellm's shim
    gives it on litellm's errors; the core's error, the ``__cause__``, has it as
    ``message``), ``partial_arguments`` / ``partial_names`` the cut calls. ``request`` is
    the stream's request; ``body`` is ``None`` (the provider sent no error)."""

    def __init__(self, error: StreamFixError, request: Any) -> None:
        APIError.__init__(self, str(error), request, body=None)
        self.assembled = error.message
        self.partial_arguments = dict(error.partial_arguments)
        self.partial_names = dict(error.partial_names)


class TruncatedToolCallAPIError(StreamFixAPIError, TruncatedToolCallError):  # type: ignore[misc]
    """A call's arguments were cut off (E4, E8, E11)."""


class MalformedToolCallAPIError(StreamFixAPIError, MalformedToolCallError):  # type: ignore[misc]
    """A call never got a name (E9), or its arguments are not a JSON object."""


class ArgumentsTooLargeAPIError(StreamFixAPIError, ArgumentsTooLargeError):  # type: ignore[misc]
    """A call's arguments grew past ``max_argument_bytes``."""


_KINDS: tuple[tuple[type[StreamFixError], type[StreamFixAPIError]], ...] = (
    (TruncatedToolCallError, TruncatedToolCallAPIError),
    (MalformedToolCallError, MalformedToolCallAPIError),
    (ArgumentsTooLargeError, ArgumentsTooLargeAPIError),
)


# --- the replacements of Stream.__stream__ and AsyncStream.__stream__ ---------------------


def stream(self: Any) -> Iterator[Any]:
    """``Stream.__stream__``: the SDK's own iterator, repaired for chat-completion chunks."""
    chunks: Iterator[Any] = stock_of(STREAMING, "Stream.__stream__")(self)
    if not _repairs(self):
        return chunks
    return _repaired(_Wire(self), chunks)


def astream(self: Any) -> AsyncIterator[Any]:
    """``AsyncStream.__stream__``: :func:`stream` for the async client."""
    chunks: AsyncIterator[Any] = stock_of(STREAMING, "AsyncStream.__stream__")(self)
    if not _repairs(self):
        return chunks
    return _arepaired(_Wire(self), chunks)


def _repaired(wire: _Wire, chunks: Iterator[Any]) -> Iterator[Any]:
    try:
        while not wire.done:
            try:
                chunk = next(chunks)
            except StopIteration:
                out = wire.finish()
            except APIError as error:
                out = wire.failed(error)
            else:
                out = wire.feed(chunk)
            yield from out
            if wire.error is not None:
                raise wire.error
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


async def _arepaired(wire: _Wire, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    try:
        while not wire.done:
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                out = wire.finish()
            except APIError as error:
                out = wire.failed(error)
            else:
                out = wire.feed(chunk)
            for item in out:
                yield item
            if wire.error is not None:
                raise wire.error
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


def _repairs(stream: Any) -> bool:
    """Whether the stream's items are chat-completion chunks a consumer assembles: its
    cast type is ``ChatCompletionChunk``, and it is not the ``.stream()`` helper's."""
    cast_to = getattr(stream, "_cast_to", None)
    if not (isinstance(cast_to, type) and issubclass(cast_to, ChatCompletionChunk)):
        return False
    options = getattr(stream, "_options", None)
    if getattr(options, "synthesize_event_and_data", False):
        return False  # items are {"data", "event"} envelopes, not chunks
    request = _request(stream)
    method = "" if request is None else request.headers.get(HELPER_HEADER, "")
    return not method.endswith(HELPER_METHOD)


def _request(stream: Any) -> Any:
    """The HTTP request the stream answers, or ``None`` (a stream built by hand)."""
    try:
        return stream.response.request
    except (AttributeError, RuntimeError):
        return None


# --- one stream ---------------------------------------------------------------------------


class _Wire:
    """One stream's repair: the repairer, and what the generators raise when it ends."""

    __slots__ = ("_last", "_repairer", "_stream", "done", "error")

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._repairer = StreamRepairer(_declared_tools(_request(stream)), rebuild=self._rebuild)
        self._last: Any = None
        self.done = False
        self.error: BaseException | None = None

    def feed(self, chunk: Any) -> list[Any]:
        self._last = chunk
        out = self._repairer.feed(chunk)
        self._settle()
        return out

    def finish(self) -> list[Any]:
        self.done = True
        out = self._repairer.finish()
        self._settle()
        return out

    def failed(self, error: APIError) -> list[Any]:
        """Stock's ``Stream`` raised: an error payload inside the stream (E5). What the
        repairer held back goes out first, then stock's error (the provider's text put in
        it where stock has none: an error given as a string, Ollama's form)."""
        self.done = True
        self.error = error
        if type(error) is not APIError:
            return []
        out = self._repairer.feed({"error": error.body})
        found = self._repairer.error
        if isinstance(found, ProviderStreamError) and found.provider_message != error.message:
            self.error = APIError(found.provider_message, error.request, body=error.body)
            self.error.__cause__ = error
        return out

    def _settle(self) -> None:
        """The repairer's error as the SDK's: ``APIError`` for the provider's (R9),
        :class:`StreamFixAPIError` of the core's kind for the rest (R10)."""
        found = self._repairer.error
        if found is None:
            return
        self.done = True
        request = _request(self._stream)
        if isinstance(found, ProviderStreamError):
            body = _field(self._last, "error")
            error: APIError = APIError(found.provider_message, request, body=body)
        else:
            kind = next((k for base, k in _KINDS if isinstance(found, base)), StreamFixAPIError)
            error = kind(found, request)
        error.__cause__ = found
        self.error = error

    def _rebuild(self, body: dict[str, Any], like: Any) -> Any:
        """A chunk the repairer wrote, built as the SDK builds one it received."""
        stream = self._stream
        data = _plain_chunk(body, like)
        return stream._client._process_response_data(
            data=data, cast_to=stream._cast_to, response=stream.response
        )


def _declared_tools(request: Any) -> list[Any] | None:
    """The ``tools`` and legacy ``functions`` the request declared, from its JSON body."""
    try:
        content = request.content
    except Exception:  # no request, or a streamed body that was never read
        return None
    if not isinstance(content, bytes) or not (b'"tools"' in content or b'"functions"' in content):
        return None
    try:
        body = json.loads(content)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    declared: list[Any] = []
    for key in ("tools", "functions"):
        value = body.get(key)
        if isinstance(value, list):
            declared.extend(tool for tool in value if isinstance(tool, dict))
    return declared


# --- a chunk the repairer wrote, as plain JSON ----------------------------------------------


def _plain_chunk(body: dict[str, Any], like: Any) -> dict[str, Any]:
    """``body`` as the JSON the provider would have sent: the SDK's objects in it dumped
    as received (``to_dict``: the fields they were given), and the fields the repairer
    copied from ``like`` (the chunk it models the new one on) left out where they are
    ``None`` and ``like`` never had them, at each of the three levels it copies (the
    chunk, the choice, the delta)."""
    out = _level(body, like, skip="choices")
    choices = []
    for choice in body.get("choices") or ():
        like_choice = _like_choice(like, choice.get("index"))
        plain = _level(choice, like_choice, skip="delta")
        delta = choice.get("delta")
        if isinstance(delta, dict):
            plain["delta"] = _level(delta, _field(like_choice, "delta"), skip=None)
        choices.append(plain)
    out["choices"] = choices
    return out


def _level(values: dict[str, Any], like: Any, skip: str | None) -> dict[str, Any]:
    given = _given(like)
    return {
        key: _plain(value)
        for key, value in values.items()
        if key != skip and (value is not None or given is None or key in given)
    }


def _given(model: Any) -> set[str] | None:
    """The fields ``model`` was built with (declared ones set, and extras); ``None`` when
    there is no such model to compare with."""
    if model is None or isinstance(model, dict):
        return None if model is None else set(model)
    fields_set = getattr(model, "model_fields_set", None)
    if fields_set is None:
        fields_set = getattr(model, "__fields_set__", None)  # pydantic 1
    given: set[str] = set(fields_set or ())
    given.update(getattr(model, "__pydantic_extra__", None) or ())
    return given


def _like_choice(like: Any, number: Any) -> Any:
    for choice in _field(like, "choices") or ():
        if (_field(choice, "index") or 0) == (number or 0):
            return choice
    return None


def _field(value: Any, name: str) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get(name)
    extra = getattr(value, "__pydantic_extra__", None)
    if extra and name in extra:
        return extra[name]
    return getattr(value, name, None)


def _plain(value: Any) -> Any:
    """A value as JSON: the SDK's models dumped with the fields they were given."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, dict):
        return to_dict()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
