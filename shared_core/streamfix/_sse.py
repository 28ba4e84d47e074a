"""Server-sent events decoded as the WHATWG HTML specification says ("Parsing an event
stream"), sans-I/O: bytes in as they arrive, events out. The one SSE decoder of the
project: the proxy reads its upstream with it, the test kit its captures (``parse_sse``).

Read as the specification reads a stream:

- a line ends at ``\\r\\n``, ``\\r`` or ``\\n`` and nowhere else: never where
  ``str.splitlines()`` also breaks (U+2028, U+2029, U+0085, which JSON allows raw inside
  a string, ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``); a ``\\r\\n`` split between two
  pieces of the stream is one line end;
- one leading byte order mark is skipped;
- an empty line dispatches the event; one with no ``data`` field is no event;
- ``data`` lines are joined with ``\\n``; ``event`` sets the event's type (``message``
  when none); ``id`` sets the last event id, which later events keep (a value holding
  U+0000 is ignored); ``retry`` sets :attr:`SSEDecoder.retry` when it is ASCII digits only;
- a line beginning with ``:`` is a comment; a line without ``:`` is a field with an empty
  value; one space after the colon is dropped (``data:x`` and ``data: x`` are the same);
  any other field name is ignored.

Two decisions where the specification leaves a reader room:

- the end of the stream discards an event whose empty line has not come (the
  specification's rule: the stream was cut inside it). A caller that knows its text is
  whole (a capture file) ends it with a blank line itself;
- text that is not UTF-8 raises :class:`SSEError` (the specification decodes it with
  U+FFFD in place of each bad byte): a tool call's arguments never change silently. Each
  event is decoded on its own (no UTF-8 character holds a line end's byte), so a bad one
  fails alone.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["SSEDecoder", "SSEError", "SSEEvent"]

_BOM = b"\xef\xbb\xbf"
_new = tuple.__new__


class SSEError(ValueError):
    """The stream cannot be read on: an event over the size limit, or not UTF-8 text.
    ``events`` are those the same bytes completed before the one that failed; the decoder
    refuses more input after it."""

    def __init__(self, text: str, events: list[SSEEvent] | None = None) -> None:
        super().__init__(text)
        self.events = events or []


class SSEEvent(NamedTuple):
    """One dispatched event: its data (the ``data`` lines joined with ``\\n``), its type,
    and the last event id when it was dispatched (``""``: none yet). A named tuple:
    immutable, and made once an upstream event at a third of a frozen dataclass's cost."""

    data: str
    event: str = "message"
    id: str = ""


class SSEDecoder:
    """Bytes in (:meth:`feed`, as they arrive), events out. ``max_event_bytes`` bounds
    what is held of one event before its end (:class:`SSEError` past it; ``None``: no
    bound). :attr:`last_event_id` and :attr:`retry` (milliseconds, ``None``: not sent)
    are the stream's, as the specification keeps them."""

    def __init__(self, max_event_bytes: int | None = None) -> None:
        self.max_event_bytes = max_event_bytes
        self.last_event_id = ""
        self.retry: int | None = None
        self._buffer = b""  # the pending bytes, their line ends as \n
        self._after_cr = False  # the last byte fed was a \r (a \n next is its \r\n)
        self._started = False  # past where a byte order mark can be
        self._failed: str | None = None  # why the stream cannot be read on
        self._data: list[str] = []  # the specification's data buffer, one entry a line
        self._type = ""  # its event type buffer

    def feed(self, data: bytes) -> list[SSEEvent]:
        """The events the bytes complete (each once its empty line has come)."""
        if self._failed is not None:
            raise SSEError(f"no more input after an error ({self._failed})")
        events: list[SSEEvent] = []
        for block in self._blocks(data):
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError as error:
                raise self._fail(f"not UTF-8 text ({error.reason})", events) from None
            if text.startswith("data: ") and "\n" not in text:  # the common event, inline
                # SSEEvent(...) without its Python-level __new__: a third of the cost
                events.append(_new(SSEEvent, (text[6:], "message", self.last_event_id)))
                continue
            event = self._event(text)
            if event is not None:
                events.append(event)
        return events

    def _blocks(self, data: bytes) -> list[bytes]:
        """The blocks the bytes complete: each the lines before an empty line, with
        ``\\n`` between them. The rest is held."""
        if self._after_cr and data:  # a \r ended the last piece: a \n now is its pair
            self._after_cr = False
            data = data[1:] if data[:1] == b"\n" else data
        if self._started and b"\n" not in data and b"\r" not in data:  # inside one line
            self._buffer += data
            return self._check_size([])
        data = self._buffer + data if self._buffer else data
        if not self._started:
            if len(data) < len(_BOM) and _BOM.startswith(data):
                self._buffer = data  # perhaps the start of a byte order mark
                return []
            self._started = True
            data = data.removeprefix(_BOM)
        if b"\r" in data:
            self._after_cr = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        blocks = data.split(b"\n\n")
        self._buffer = blocks.pop()
        return self._check_size(blocks)

    def _check_size(self, blocks: list[bytes]) -> list[bytes]:
        """``blocks``, unless what is held of the next event is over the bound."""
        if self.max_event_bytes is not None and len(self._buffer) > self.max_event_bytes:
            raise self._fail(f"an event is over {self.max_event_bytes} bytes long", [])
        return blocks

    def _fail(self, why: str, events: list[SSEEvent]) -> SSEError:
        self._failed, self._buffer = why, b""
        return SSEError(why, events)

    def _event(self, text: str) -> SSEEvent | None:
        """The event of one block's lines (``None``: no ``data`` line)."""
        for line in text.split("\n"):
            if line and line[0] != ":":  # not an empty line left by the split, a comment
                self._field(line)
        data, kind = self._data, self._type
        self._data, self._type = [], ""
        if not data:
            return None
        return SSEEvent("\n".join(data), kind or "message", self.last_event_id)

    def _field(self, line: str) -> None:
        """One field line (without a colon: the whole line is the name, the value empty)."""
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
