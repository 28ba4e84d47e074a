"""The proxy's repaired stream, sans-I/O: the upstream's bytes in, the client's bytes out.

:class:`RepairedStream` reads the upstream's stream (OpenAI SSE or Ollama ``/api/chat``
NDJSON) as it arrives, feeds each chunk to a :class:`streamfix.StreamRepairer` and writes
what the repairer passes on in the wire's own form:

- OpenAI: ``data: {...}`` events and ``data: [DONE]``. A chunk the repairer passes on as
  the same object (R1) goes out as the upstream's own event text, byte for byte; a
  rewritten one as compact JSON. An error (the provider's, E5, or one the repairer ends
  with, R9/R10) is the event ``data: {"error": {...}}``, as OpenAI-compatible servers send
  a mid-stream error, and no ``[DONE]`` follows it.
- Ollama: one object per line, as Ollama writes them. A line the repair leaves as it is
  goes out as sent; a line with tool calls becomes one line per complete call
  (``message.tool_calls`` with that one entry: its ``id``, its place in the message as
  ``index`` and ``function.index``, its ``function.arguments`` an object); the
  ``done`` line last, as the upstream sent it (its ``done_reason`` and counts) without its
  calls; an error as Ollama's ``{"error": "..."}`` line.

The upstream's end decides how the client's stream ends: ``[DONE]`` (or Ollama's ``done``
line) ends it cleanly, once the repairer's :meth:`~streamfix.StreamRepairer.finish` has
passed on what it held; an end without it (the connection closed mid-stream) and a stream
that is not SSE or not JSON end with what is complete, then an error. An OpenAI stream
whose every choice carried its ``finish_reason`` is complete even without ``[DONE]``.

SSE is read by the project's one SSE decoder (:mod:`streamfix._sse`, per the SSE
specification: a line ends only at ``\\r\\n``, ``\\r`` or ``\\n``; any event form, a
comment, ``event:``, ``id:``, ``retry:``, several ``data:`` lines); an event whose empty
line never came is not one. NDJSON lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only; a last
line without its line end is read when it is whole. A chunk whose JSON holds a control
character raw inside a string (JSON wants it escaped) is read as the character and goes
out re-encoded, valid JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from .._emit import StreamRepairer
from .._errors import ProviderStreamError, StreamFixError
from .._scanner import JsonScanner
from .._sse import SSEDecoder, SSEError, SSEEvent

__all__ = ["MAX_EVENT_BYTES", "RepairedStream", "WireError", "error_code", "read_chunks"]

Dialect = Literal["openai", "ollama"]

#: The most the proxy holds of one upstream event (an SSE event, an NDJSON line) before
#: its end arrives: more is a malformed stream.
MAX_EVENT_BYTES = 64 * 1024 * 1024

_CODES = {
    "TruncatedToolCallError": "truncated_tool_call",
    "MalformedToolCallError": "malformed_tool_call",
    "ArgumentsTooLargeError": "arguments_too_large",
    "ProviderStreamError": "provider_error",
}


class WireError(Exception):
    """The upstream's stream cannot be read on (not SSE, not JSON, an event too large)."""


def error_code(error: StreamFixError) -> str:
    """The ``code`` of the error event for one of the repairer's errors."""
    return _CODES.get(type(error).__name__, "stream_error")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- reading the upstream -------------------------------------------------------------------


class _Splitter:
    """NDJSON: bytes in as they arrive, complete lines out (split at ``\\n``, ``\\r\\n`` or
    ``\\r`` only: U+2028 and the other breaks of ``str.splitlines()`` may stand raw inside
    a JSON string). Split on bytes: a UTF-8 character never holds a line end's byte, so
    each line is decoded on its own (and one that is not UTF-8 fails alone)."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[bytes]:
        data = self._buffer + data if self._buffer else data
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        records = data.split(b"\n")
        self._buffer = records.pop()
        if len(self._buffer) > MAX_EVENT_BYTES:
            raise WireError(f"an upstream event is over {MAX_EVENT_BYTES} bytes long")
        return records

    def rest(self) -> bytes:
        """What is left at the end: a last line without its line end, or a cut one."""
        rest, self._buffer = self._buffer, b""
        return rest


class _Event:
    """One upstream event: its chunk (``None`` for ``[DONE]``) and its text as sent."""

    __slots__ = ("chunk", "text")

    def __init__(self, chunk: dict[str, Any] | None, text: str | None) -> None:
        self.chunk = chunk
        self.text = text


def _object(value: Any) -> dict[str, Any]:
    """An upstream event's JSON value, which must be an object (:class:`WireError`)."""
    if not isinstance(value, dict):
        name = type(value).__name__
        raise WireError(f"an upstream event must be a JSON object, got {name}")
    return value


def _lenient(text: str) -> dict[str, Any]:
    """An event that is not valid JSON as sent: read with a control character raw inside
    a string (JSON wants it escaped) as the character. Such a chunk goes out re-encoded,
    valid, the character kept."""
    try:
        return _object(json.loads(text, strict=False))
    except ValueError as error:
        raise WireError(f"an upstream event is not JSON ({error})") from None


def _sse_event(event: SSEEvent) -> _Event | None:
    """An SSE event as an event (``None``: empty data). Its data is kept as sent when it
    can go out as one ``data:`` line (it holds no line end) and is valid JSON."""
    text = event.data
    if text == "[DONE]":
        return _Event(None, None)
    try:
        return _Event(_object(json.loads(text)), None if "\n" in text else text)
    except ValueError:
        pass
    stripped = text.strip()
    if stripped == "[DONE]":
        return _Event(None, None)
    return _Event(_lenient(text), None) if stripped else None


def _ndjson_event(record: bytes) -> _Event | None:
    """An NDJSON line as an event (``None``: a blank line); its text kept as sent when it
    is valid JSON."""
    try:
        line = record.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WireError(f"the upstream's stream is not UTF-8 text ({error.reason})") from None
    if not line.strip():
        return None
    try:
        return _Event(_object(json.loads(line)), line)
    except ValueError:
        return _Event(_lenient(line), None)


def read_chunks(data: bytes, dialect: Dialect) -> list[dict[str, Any]]:
    """The chunks of a whole upstream body, read as :class:`RepairedStream` reads it
    (``--record``); :class:`WireError` when one cannot be read."""
    if dialect == "ollama":
        events = [_ndjson_event(line) for line in _Splitter().feed(data + b"\n")]
    else:
        try:
            decoded = SSEDecoder().feed(data)
        except SSEError as error:
            raise WireError(f"the upstream's stream: {error}") from None
        events = [_sse_event(event) for event in decoded]
    return [event.chunk for event in events if event is not None and event.chunk is not None]


# --- writing the client's stream -------------------------------------------------------------


class _OpenAIWriter:
    """Repaired chunks as OpenAI SSE events: a chunk passed on as the same object (R1) as
    the upstream's own event text (also one whose finish reason waited for the next, E2)."""

    def __init__(self) -> None:
        self._held: dict[int, _Event] = {}  # events with a finish reason not passed on yet

    def chunks(self, outs: list[Any], fed: _Event, done: bool) -> list[str]:
        del done
        parts = [f"data: {self._text(out, fed)}\n\n" for out in outs]
        chunk = fed.chunk
        if chunk is not None and _finishes(chunk) and not any(out is chunk for out in outs):
            if len(self._held) >= 16:
                self._held.clear()
            self._held[id(chunk)] = fed
        return parts

    def end(self, outs: list[Any]) -> list[str]:
        return [f"data: {self._text(out, None)}\n\n" for out in outs] + ["data: [DONE]\n\n"]

    def error(self, error: dict[str, Any]) -> str:
        return f"data: {_dumps({'error': error})}\n\n"

    def _text(self, out: Any, fed: _Event | None) -> str:
        if fed is not None and out is fed.chunk and fed.text is not None:
            return fed.text
        held = self._held.pop(id(out), None) if self._held else None
        if held is not None and held.chunk is out and held.text is not None:
            return held.text
        return _dumps(out)


def _finishes(chunk: dict[str, Any]) -> bool:
    choices = chunk.get("choices")
    return isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") for c in choices
    )


class _OllamaWriter:
    """Repaired chunks (OpenAI chunk dicts, R11) back in Ollama's own form."""

    def __init__(self) -> None:
        self._calls: dict[int, _OllamaCall] = {}  # wire index -> the call being written
        self._template: dict[str, Any] = {}
        self._done: dict[str, Any] | None = None

    def chunks(self, outs: list[Any], fed: _Event, done: bool) -> list[str]:
        line = fed.chunk or {}
        self._template = line
        message = line.get("message")
        sent_calls = isinstance(message, dict) and bool(message.get("tool_calls"))
        if done:
            self._done = line
            return self._lines(outs, text=False)
        if not sent_calls and not any(_entries(out) for out in outs) and fed.text is not None:
            return [fed.text.strip() + "\n"] if outs else []
        return self._lines(outs, text=True)

    def end(self, outs: list[Any]) -> list[str]:
        lines = self._lines(outs, text=False)
        done = dict(self._done or {"model": self._template.get("model", ""), "done": True})
        message = done.get("message")
        message = dict(message) if isinstance(message, dict) else {"role": "assistant"}
        message.pop("tool_calls", None)
        message.setdefault("content", "")
        done["message"] = message
        return [*lines, _dumps(done) + "\n"]

    def error(self, error: dict[str, Any]) -> str:
        return _dumps({"error": str(error.get("message", error))}) + "\n"

    def _lines(self, outs: list[Any], *, text: bool) -> list[str]:
        lines = []
        for out in outs:
            delta = _delta(out)
            if text and (delta.get("content") or delta.get("reasoning_content")):
                message = {"role": "assistant", "content": delta.get("content") or ""}
                if delta.get("reasoning_content"):
                    message["thinking"] = delta["reasoning_content"]
                lines.append(self._line(message))
            for entry in _entries(out):
                call = self._complete(entry)
                if call is not None:
                    message = {"role": "assistant", "content": "", "tool_calls": [call]}
                    lines.append(self._line(message))
        return lines

    def _line(self, message: dict[str, Any]) -> str:
        line: dict[str, Any] = {
            k: self._template[k] for k in ("model", "created_at") if k in self._template
        }
        line.update(message=message, done=False)
        return _dumps(line) + "\n"

    def _complete(self, entry: dict[str, Any]) -> dict[str, Any] | None:
        """The call ``entry`` completes, in Ollama's form, or ``None`` while it grows.

        The repaired stream's pieces of one call join into one JSON object (R4); the one
        scanner says when it is whole, and it is parsed once then."""
        index = entry.get("index", 0)
        function = entry.get("function") or {}
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _OllamaCall(entry.get("id"))
        call.name = function.get("name") or call.name
        piece = function.get("arguments") or ""
        if piece:
            call.parts.append(piece)
            call.scanner.advance(piece)
        if not call.scanner.complete:
            return None
        try:
            arguments = json.loads("".join(call.parts))
        except ValueError:
            return None
        del self._calls[index]
        # ``function.index`` as Ollama writes it; ``index`` too, where the OpenAI-shaped
        # readers of Ollama's stream (litellm's ``ollama_chat/``) look for a call's place
        out: dict[str, Any] = {"id": call.id, "index": index}
        out["function"] = {"index": index, "name": call.name, "arguments": arguments}
        if not call.id:
            del out["id"]
        return out


class _OllamaCall:
    """One call being written back in Ollama's form: its id, name, argument pieces."""

    __slots__ = ("id", "name", "parts", "scanner")

    def __init__(self, call_id: Any) -> None:
        self.id = call_id
        self.name: Any = None
        self.parts: list[str] = []
        self.scanner = JsonScanner()


def _delta(chunk: Any) -> dict[str, Any]:
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return {}
    delta = choices[0].get("delta")
    return delta if isinstance(delta, dict) else {}


def _entries(chunk: Any) -> list[dict[str, Any]]:
    return list(_delta(chunk).get("tool_calls") or ())


# --- the stream -----------------------------------------------------------------------------


class RepairedStream:
    """One upstream stream repaired: :meth:`feed` the bytes as they arrive, then
    :meth:`end` (the upstream's body ended) or :meth:`cut` (it failed); each returns the
    bytes to send to the client now. :attr:`over` is set once the client's stream is
    complete (``[DONE]``, Ollama's ``done`` line, or an error): later bytes are ignored.

    ``tools`` and ``max_argument_bytes`` as for :class:`streamfix.StreamRepairer`;
    ``keep`` is called with every upstream chunk (``--record``).
    """

    def __init__(
        self,
        dialect: Dialect,
        tools: Any = None,
        *,
        max_argument_bytes: int | None = None,
        keep: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.dialect = dialect
        self.repairer = _repairer(tools, max_argument_bytes)
        self.over = False
        self.error: dict[str, Any] | None = None  # the error event's object, once sent
        self.chunks_in = 0
        self._keep = keep
        ollama = dialect == "ollama"
        self._lines = _Splitter() if ollama else None  # Ollama's NDJSON, line by line
        self._decoder = SSEDecoder(max_event_bytes=MAX_EVENT_BYTES)  # OpenAI's SSE
        self._writer: _OpenAIWriter | _OllamaWriter = _OllamaWriter() if ollama else _OpenAIWriter()
        self._settled = False  # the repairer's finish() was called
        self._seen: set[Any] = set()  # choices seen, and those that carried a finish reason
        self._finished: set[Any] = set()

    def feed(self, data: bytes) -> bytes:
        """Bytes from the upstream; the bytes for the client now."""
        if self.over:
            return b""
        if self._lines is not None:
            try:
                lines = self._lines.feed(data)
            except WireError as error:
                return self.cut("upstream_malformed", str(error))
            return self._records(lines, _ndjson_event)
        try:
            events = self._decoder.feed(data)
        except SSEError as error:  # the events before the one that failed, then the error
            out = self._records(error.events, _sse_event)
            return out + self.cut("upstream_malformed", f"the upstream's stream: {error}")
        return self._records(events, _sse_event)

    def end(self) -> bytes:
        """The upstream's body ended; the rest of the client's stream."""
        if self.over:
            return b""
        out = b""
        if self._lines is not None:  # NDJSON's last line may come without its line end
            try:
                event = _ndjson_event(self._lines.rest())
            except WireError:  # the connection closed inside a line
                event = None
            out = self._events([event]) if event is not None else b""
        if self.over:
            return out
        if self.dialect == "openai" and self._seen and self._seen <= self._finished:
            return out + self._finish()
        end = "[DONE]" if self.dialect == "openai" else "its done line"
        return out + self.cut("upstream_closed", f"the upstream closed the stream before {end}")

    def cut(self, code: str, text: str) -> bytes:
        """The upstream's stream failed (``code``, ``text``): what is complete, then the
        error event."""
        if self.over:
            return b""
        self.over = True
        parts: list[str] = []
        if not self._settled and self.repairer.error is None:
            self._settled = True
            parts = self._writer_chunks(self.repairer.finish(), None)
        if self.repairer.error is not None:
            text = f"{text}: {self.repairer.error}"
        return self._failed(parts, {"message": text, "type": "streamfix_error", "code": code})

    # --- inside ---------------------------------------------------------------------------

    def _records(self, records: list[Any], read: Callable[[Any], _Event | None]) -> bytes:
        """The client's bytes for upstream records (SSE events, NDJSON lines) read by
        ``read``; one that cannot be read ends the stream after those before it."""
        events: list[_Event] = []
        for record in records:
            try:
                event = read(record)
            except WireError as error:
                return self._events(events) + self.cut("upstream_malformed", str(error))
            if event is not None:
                events.append(event)
        return self._events(events)

    def _events(self, events: list[_Event]) -> bytes:
        parts: list[str] = []
        for event in events:
            if self.over:
                break
            if event.chunk is None:  # [DONE]
                return "".join(parts).encode() + self._finish()
            parts.extend(self._chunk(event))
        return "".join(parts).encode()

    def _chunk(self, event: _Event) -> list[str]:
        chunk = event.chunk
        assert chunk is not None
        self.chunks_in += 1
        if self._keep is not None:
            self._keep(chunk)
        done = self.dialect == "ollama" and chunk.get("done") is True
        if self.dialect == "openai":
            self._note_choices(chunk)
        outs = self.repairer.feed(chunk)
        parts = self._writer.chunks(outs, event, done)
        error = self.repairer.error
        if error is not None:
            self.over = True
            return [*parts, self._writer.error(self._error_object(error, chunk))]
        if done:
            parts.append(self._finish().decode())
        return parts

    def _finish(self) -> bytes:
        self.over = self._settled = True
        outs = self.repairer.finish()
        error = self.repairer.error
        if error is not None:
            return self._failed(self._writer_chunks(outs, None), self._error_object(error, None))
        return "".join(self._writer.end(outs)).encode()

    def _writer_chunks(self, outs: list[Any], event: _Event | None) -> list[str]:
        if self.dialect == "openai":
            return self._writer.chunks(outs, event or _Event(None, None), False)
        assert isinstance(self._writer, _OllamaWriter)
        return self._writer._lines(outs, text=True)

    def _failed(self, parts: list[str], error: dict[str, Any]) -> bytes:
        self.error = error
        return ("".join(parts) + self._writer.error(error)).encode()

    def _error_object(self, error: StreamFixError, chunk: dict[str, Any] | None) -> dict[str, Any]:
        """The error event's object: the provider's own (E5), or the repairer's error."""
        sent = chunk.get("error") if chunk is not None else None
        if isinstance(error, ProviderStreamError):
            if isinstance(sent, dict):
                self.error = dict(sent)
                return self.error
            self.error = {"message": error.provider_message, "type": "provider_error"}
            if error.status_code is not None:
                self.error["code"] = error.status_code
            return self.error
        self.error = {"message": str(error), "type": "streamfix_error", "code": error_code(error)}
        return self.error

    def _note_choices(self, chunk: dict[str, Any]) -> None:
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if isinstance(choice, dict):
                number = choice.get("index", 0)
                self._seen.add(number)
                if choice.get("finish_reason"):
                    self._finished.add(number)


def _repairer(tools: Any, max_argument_bytes: int | None) -> StreamRepairer:
    """A repairer for the request's ``tools`` (tools it cannot read: as if none)."""
    try:
        return StreamRepairer(tools, max_argument_bytes=max_argument_bytes)
    except (TypeError, ValueError, AttributeError, KeyError):
        return StreamRepairer(None, max_argument_bytes=max_argument_bytes)
