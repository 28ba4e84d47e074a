"""``--record DIR``: every streamed response saved as a capture (JSONL, one chunk a line).

A capture holds the upstream's chunks as the upstream sent them (before any repair), named
``NNNN-<model>.jsonl`` after the request's ``model``, for ``streamfix replay`` and
``streamfix serve --replay``. It holds nothing of the request but the model's name in the
file name: no header (``Authorization``, ``api-key``, ``x-api-key`` never reach this
module) and no message. ``NNNN`` is the next free number in ``DIR``: each file is created
exclusively, so several processes (``uvicorn --workers N``) can record into one folder.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._wire import WireError, read_chunks

__all__ = ["Recorder", "capture_model"]

_SSE = "text/event-stream"
#: The most of one streamed response kept in memory to save it (a longer one is not saved).
MAX_RECORDED_BYTES = 256 * 1024 * 1024


def capture_model(request_body: bytes) -> str:
    """The request's ``model`` as a file-name part (``"stream"`` when it has none)."""
    try:
        model = str(json.loads(request_body or b"{}").get("model") or "stream")
    except (ValueError, AttributeError):
        model = "stream"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)[:60] or "stream"


class Recorder:
    """Writes captures into ``out_dir``; ``captures`` lists the files this one wrote."""

    def __init__(self, out_dir: str | Path) -> None:
        self.out_dir = Path(out_dir)
        self.captures: list[Path] = []

    def save_chunks(self, chunks: Iterable[dict[str, Any]], model: str) -> Path | None:
        """Save parsed chunks; the file (``None`` when there were none)."""
        text = "".join(json.dumps(chunk) + "\n" for chunk in chunks)
        return self._write(text, model) if text else None

    def save_stream(self, data: bytes, content_type: str, model: str) -> Path | None:
        """Save a streamed response's raw body (SSE or NDJSON), if it reads as chunks."""
        try:
            chunks = read_chunks(data, "openai" if content_type == _SSE else "ollama")
        except WireError:
            return None
        return self.save_chunks(chunks, model)

    def _write(self, text: str, model: str) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        number = len(list(self.out_dir.glob("[0-9][0-9][0-9][0-9]-*.jsonl"))) + 1
        while True:
            path = self.out_dir / f"{number:04d}-{model}.jsonl"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                number += 1
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
            self.captures.append(path)
            return path
