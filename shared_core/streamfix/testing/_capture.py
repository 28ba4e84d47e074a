"""Reading captured streams: the one reader ``streamfix replay``, ``serve --replay`` and
``record`` use.

A capture is one of:

- JSONL: one chunk (a JSON object) per line, as ``streamfix record`` writes it;
- raw SSE text, as an OpenAI-compatible server sends it (``data: {...}`` events,
  ``data: [DONE]``, comments and ``event:``/``id:`` fields ignored), read per the SSE
  specification (:mod:`streamfix._sse`);
- Ollama ``/api/chat`` NDJSON (one object per line with ``message``/``done``).

A file where the assembler reads nothing in any line (no choice, usage or error) is not a
capture either.

:func:`read_capture` returns the chunks and the dialect (:func:`load_capture` the same as a
corpus :class:`~streamfix.testing.Scenario`); anything else raises :class:`CaptureError`
with a sentence saying what is wrong, never a traceback. :func:`parse_sse` and
:func:`parse_lines` read the text of one stream whose format is known (the recording
proxy knows it from the response's content type).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import StreamFixError
from .._normalize import normalize
from .._sse import SSEDecoder, SSEError
from ._corpus import Dialect, Scenario

__all__ = [
    "CAPTURE_NAME",
    "Capture",
    "CaptureError",
    "load_capture",
    "parse_lines",
    "parse_sse",
    "read_capture",
]

CAPTURE_NAME = "capture"
"""The scenario name of a capture (what the replay server lists as its one model)."""

_MAX_BYTES = 256 * 1024 * 1024


class CaptureError(StreamFixError):
    """A file that is not a readable capture (unreadable, empty, or another format)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)


@dataclass(frozen=True)
class Capture:
    """The chunks of one captured stream, its dialect and its format."""

    chunks: tuple[dict[str, Any], ...]
    dialect: Dialect
    format: str  # "jsonl", "sse" or "ndjson"
    path: str = ""

    def scenario(self) -> Scenario:
        """The capture as a corpus scenario (what it must assemble to is not known)."""
        return Scenario(
            CAPTURE_NAME, "capture", f"replay of {self.path}", self.dialect, self.chunks
        )


def _looks_ollama(chunk: dict[str, Any]) -> bool:
    return "message" in chunk or "done" in chunk or isinstance(chunk.get("error"), str)


def _looks_openai(chunk: dict[str, Any]) -> bool:
    return "choices" in chunk or "error" in chunk or "usage" in chunk


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > _MAX_BYTES:
            raise CaptureError(f"{path}: {size} bytes is too large for a capture")
        data = path.read_bytes()
    except OSError as error:
        raise CaptureError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaptureError(f"{path}: not a capture (not UTF-8 text)") from None


def _parse_object(text: str, where: str) -> dict[str, Any]:
    """One JSON object; a control character raw inside a string (JSON wants it escaped)
    is read as the character, as the proxy reads it."""
    try:
        value = json.loads(text, strict=False)
    except json.JSONDecodeError as error:
        raise CaptureError(f"{where}: not JSON ({error.msg})") from None
    except ValueError as error:  # NaN-like constants refused by the decoder
        raise CaptureError(f"{where}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise CaptureError(f"{where}: a chunk must be a JSON object, got {type(value).__name__}")
    return value


def parse_sse(text: str, name: str = "stream") -> list[dict[str, Any]]:
    """The JSON objects of raw SSE text, read by the project's one SSE decoder
    (:mod:`streamfix._sse`, the WHATWG specification: lines end only at ``\\r\\n``,
    ``\\r`` or ``\\n``; comments, ``event:``/``id:``/``retry:`` and unknown fields skipped;
    the ``data:`` lines of an event joined with ``\\n``). An event's data ``[DONE]`` (or
    empty) is skipped; an event whose empty line never came is not one (the stream was
    cut inside it). ``name`` is used in error messages.

    Raises :class:`CaptureError` on text that is not UTF-8 or an event that is not a JSON
    object.
    """
    try:
        events = SSEDecoder().feed(text.encode("utf-8", "surrogatepass"))
    except SSEError as error:
        raise CaptureError(f"{name}: {error}") from None
    chunks = []
    for number, event in enumerate(events, 1):
        payload = event.data.strip()
        if payload and payload != "[DONE]":
            chunks.append(_parse_object(payload, f"{name}: event {number}"))
    return chunks


def parse_lines(text: str, name: str = "stream") -> list[dict[str, Any]]:
    """The JSON objects of JSONL / NDJSON text, one per non-blank line (a line ends at
    ``\\r\\n``, ``\\r`` or ``\\n``, as the proxy splits them, and nowhere else: U+2028
    and the other breaks of ``str.splitlines()`` may stand raw inside a JSON string).

    Raises :class:`CaptureError` on a line that is not one JSON object.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [
        _parse_object(line, f"{name}:{number}")
        for number, line in enumerate(lines, 1)
        if line.strip()
    ]


def read_capture(path: str | Path) -> Capture:
    """Read a capture file (JSONL of chunks, raw SSE text or Ollama NDJSON).

    Raises :class:`CaptureError` when the file cannot be read or is not a capture.
    """
    path = Path(path)
    text = _read_text(path)
    if not text.strip():
        raise CaptureError(f"{path}: empty file, no chunks")
    first = text.lstrip().split("\n", 1)[0]
    sse = first.startswith(("data:", "event:", "id:", ":"))
    # a file's end also ends its last event (an editor drops a trailing blank line)
    chunks = parse_sse(text + "\n\n", str(path)) if sse else parse_lines(text, str(path))
    if not chunks:
        raise CaptureError(f"{path}: no chunks in it")
    if _looks_ollama(chunks[0]):
        dialect: Dialect = "ollama"
        fmt = "ndjson"
    elif _looks_openai(chunks[0]):
        dialect = "openai"
        fmt = "sse" if sse else "jsonl"
    else:
        keys = ", ".join(sorted(chunks[0])[:6]) or "none"
        raise CaptureError(
            f"{path}: not a chat stream capture: the first object has neither 'choices'"
            f" (OpenAI chunk) nor 'message'/'done' (Ollama line); its keys: {keys}"
        )
    _check_readable(chunks, path)
    return Capture(tuple(chunks), dialect, fmt, str(path))


def _check_readable(chunks: list[dict[str, Any]], path: Path) -> None:
    """:class:`CaptureError` when the assembler reads nothing in any chunk: no choice,
    no usage, no provider error (every line would be skipped)."""
    read = [normalize(chunk) for chunk in chunks]
    if any(c.choices or c.usage is not None or c.error is not None for c in read):
        return
    why = next((problem for c in read for problem in c.problems), "no choice in any line")
    raise CaptureError(f"{path}: no line is a readable chunk ({why})")


def load_capture(path: str | Path) -> Scenario:
    """A capture file (as :func:`read_capture` reads it) as a corpus scenario, named
    ``"capture"``. What it must assemble to is not known: ``calls`` and ``text`` stay
    empty; the replay server builds its non-streamed answer by assembling the chunks.
    """
    return read_capture(path).scenario()
