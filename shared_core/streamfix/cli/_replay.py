"""``streamfix replay``: read a captured stream and assemble it.

The capture is read by :func:`streamfix.testing.read_capture` (JSONL, raw SSE text or
Ollama NDJSON); :func:`replay_capture` assembles it into a :class:`Replay`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import AssembledMessage, StreamFixError, assemble
from ..testing import Capture, read_capture

__all__ = ["Replay", "replay_capture"]


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


def replay_capture(path: str | Path) -> Replay:
    """Read and assemble a capture (:class:`CaptureError` if it is not one)."""
    capture = read_capture(path)
    try:
        return Replay(capture, assemble(capture.chunks))
    except StreamFixError as error:
        return Replay(capture, None, error)
