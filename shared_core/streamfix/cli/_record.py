"""``streamfix record``: a loopback proxy that saves every streamed response as a capture.

Put it in front of an OpenAI-compatible or Ollama endpoint and point the client at it.
Every request is forwarded to ``upstream`` (same method, path, query, headers, body) and
the response is passed back unchanged, byte for byte, as it arrives. A streamed response
(``text/event-stream`` or ``application/x-ndjson``) is also saved, once complete, as a
JSONL capture (one chunk per line) in ``out_dir``, named ``NNNN-<model>.jsonl``, for
``streamfix replay`` and ``streamfix serve --replay``. The stream is read by the same reader
they use (:func:`streamfix.testing.parse_sse` / :func:`~streamfix.testing.parse_lines`).

Runs on uvicorn with httpx (the ``serve`` extra and the openai SDK's dependency), both
imported when the proxy starts.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from ..testing import (
    BackgroundServer,
    CaptureError,
    Message,
    Receive,
    Send,
    lifespan,
    parse_lines,
    parse_sse,
    read_body,
    send_json,
)

__all__ = ["RecordApp", "RecordServer"]

_HOP = {
    b"host",
    b"connection",
    b"keep-alive",
    b"transfer-encoding",
    b"upgrade",
    b"proxy-connection",
    b"te",
    b"trailer",
    b"content-length",
}
_STREAMED = ("text/event-stream", "application/x-ndjson")


class RecordApp:
    """The proxy as an ASGI application. ``captures`` lists the files written."""

    def __init__(self, upstream: str, out_dir: str | Path) -> None:
        self.upstream = upstream.rstrip("/")
        self.out_dir = Path(out_dir)
        self.captures: list[Path] = []
        self._lock = threading.Lock()
        self._client: Any = None

    def _http(self) -> Any:
        if self._client is None:
            import httpx  # noqa: PLC0415 (optional: the openai SDK's dependency)

            self._client = httpx.AsyncClient(timeout=None)
        return self._client

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send, on_shutdown=self._close)
            return
        if scope["type"] != "http":  # pragma: no cover
            return
        body = await read_body(receive)
        url = self.upstream + scope["path"]
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        client = self._http()
        request = client.build_request(scope["method"], url, headers=headers, content=body)
        try:
            response = await client.send(request, stream=True)
        except Exception as error:
            message = f"streamfix record: upstream {url}: {error}"
            await send_json(send, 502, {"error": {"message": message}})
            return
        try:
            out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP]
            await send(
                {"type": "http.response.start", "status": response.status_code, "headers": out}
            )
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            keep = kind in _STREAMED and not response.headers.get("content-encoding")
            seen = bytearray()
            async for piece in response.aiter_raw():
                if keep:
                    seen += piece
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            if keep:  # saved before the response ends: a client that has it finds the file
                self._save(bytes(seen), kind, body)
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()

    def _save(self, data: bytes, kind: str, request_body: bytes) -> None:
        try:
            text = data.decode("utf-8")
            chunks = parse_sse(text) if kind == _STREAMED[0] else parse_lines(text)
        except (UnicodeDecodeError, CaptureError):
            return
        try:
            model = str(json.loads(request_body or b"{}").get("model") or "stream")
        except (ValueError, AttributeError):
            model = "stream"
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", model)[:60]
        with self._lock:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path = self.out_dir / f"{len(self.captures) + 1:04d}-{name}.jsonl"
            path.write_text("".join(json.dumps(c) + "\n" for c in chunks), encoding="utf-8")
            self.captures.append(path)

    async def _close(self) -> None:
        if self._client is not None:
            await self._client.aclose()


class RecordServer(BackgroundServer):
    """:class:`RecordApp` on uvicorn in a background thread (``port=0``: a free port)."""

    name = "streamfix-record"
    app: RecordApp

    def __init__(
        self, upstream: str, out_dir: str | Path, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        super().__init__(RecordApp(upstream, out_dir), host, port)

    @property
    def captures(self) -> list[Path]:
        return self.app.captures
