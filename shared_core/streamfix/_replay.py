"""``streamfix replay``: read a captured stream and assemble it.

A capture is one of:

- JSONL: one chunk (a JSON object) per line, as ``streamfix record`` writes it;
- raw SSE text, as an OpenAI-compatible server sends it (``data: {...}`` events,
  ``data: [DONE]``, comments and ``event:``/``id:`` fields ignored);
- Ollama ``/api/chat`` NDJSON (one object per line with ``message``/``done``).

:func:`read_capture` returns the chunks and the dialect; anything else raises
:class:`CaptureError` with a sentence saying what is wrong, never a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._assembler import assemble
from ._corpus import Dialect, Scenario
from ._errors import StreamFixError
from ._types import AssembledMessage

__all__ = ["Capture", "CaptureError", "Replay", "read_capture", "replay"]

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
        return Scenario("capture", "capture", f"replay of {self.path}", self.dialect, self.chunks)


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
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CaptureError(f"{where}: not JSON ({error.msg})") from None
    except ValueError as error:  # NaN-like constants refused by the decoder
        raise CaptureError(f"{where}: not JSON ({error})") from None
    if not isinstance(value, dict):
        raise CaptureError(f"{where}: a chunk must be a JSON object, got {type(value).__name__}")
    return value


def _sse_chunks(text: str, name: str) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    data: list[str] = []
    start = 0

    def flush() -> None:
        payload = "\n".join(data).strip()
        data.clear()
        if payload and payload != "[DONE]":
            chunks.append(_parse_object(payload, f"{name}:{start}"))

    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            flush()
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        if key == "data":
            if not data:
                start = number
            data.append(value[1:] if value.startswith(" ") else value)
        elif key not in ("event", "id", "retry"):
            raise CaptureError(f"{name}:{number}: not an SSE line: {line[:60]!r}")
    flush()
    return chunks


def _line_chunks(text: str, name: str) -> list[dict[str, Any]]:
    return [
        _parse_object(line, f"{name}:{number}")
        for number, line in enumerate(text.splitlines(), 1)
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
    chunks = _sse_chunks(text, str(path)) if sse else _line_chunks(text, str(path))
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
    return Capture(tuple(chunks), dialect, fmt, str(path))


@dataclass
class Replay:
    """The capture assembled: the message, or the error assembling it ended with."""

    capture: Capture
    message: AssembledMessage | None
    error: StreamFixError | None = None
    frameworks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message
        if message is None and self.error is not None:
            message = self.error.message
        out: dict[str, Any] = {
            "file": self.capture.path,
            "format": self.capture.format,
            "dialect": self.capture.dialect,
            "chunks": len(self.capture.chunks),
            "text": message.content if message else "",
            "reasoning": message.reasoning if message else "",
            "finish_reason": message.finish_reason if message else None,
            "calls": [
                {
                    "id": c.id,
                    "name": c.name,
                    "arguments": c.parsed,
                    "thought_signature": c.thought_signature,
                }
                for c in (message.tool_calls if message else [])
            ],
            "diagnostics": [
                {"code": d.code, "detail": d.detail, "position": d.position}
                for d in (message.diagnostics if message else [])
            ],
            "error": None
            if self.error is None
            else {
                "type": type(self.error).__name__,
                "text": str(self.error),
                "partial_arguments": {str(k): v for k, v in self.error.partial_arguments.items()},
            },
        }
        if self.frameworks:
            out["frameworks"] = self.frameworks
        return out


def replay(path: str | Path) -> Replay:
    """Read and assemble a capture (:class:`CaptureError` if it is not one)."""
    capture = read_capture(path)
    try:
        return Replay(capture, assemble(capture.chunks))
    except StreamFixError as error:
        return Replay(capture, None, error)
