"""``streamfix record``: a loopback proxy that saves every streamed response as a capture.

Put it in front of an OpenAI-compatible or Ollama endpoint and point the client at it.
Every request is forwarded to ``upstream`` (same method, path, query, headers, body) and
the response is passed back unchanged, byte for byte, as it arrives. A streamed response
(``text/event-stream`` or ``application/x-ndjson``) is also saved, once complete, as a
JSONL capture (one chunk per line) in ``out_dir``, named ``NNNN-<model>.jsonl``, for
``streamfix replay`` and ``streamfix serve --replay``.

Runs on uvicorn with httpx (the ``serve`` extra and the openai SDK's dependency), both
imported when the proxy starts.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from ._replay import CaptureError, _line_chunks, _sse_chunks

__all__ = ["RecordApp", "RecordServer"]

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_HOP = {b"host", b"connection", b"keep-alive", b"transfer-encoding", b"upgrade",
        b"proxy-connection", b"te", b"trailer", b"content-length"}
_STREAMED = ("text/event-stream", "application/x-ndjson")
_STARTUP_SECONDS = 10.0


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
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # pragma: no cover
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        url = self.upstream + scope["path"]
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        client = self._http()
        request = client.build_request(scope["method"], url, headers=headers, content=body)
        try:
            response = await client.send(request, stream=True)
        except Exception as error:
            text = json.dumps({"error": {"message": f"streamfix record: upstream {url}:"
                                                    f" {error}"}}).encode()
            await send({"type": "http.response.start", "status": 502,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": text})
            return
        try:
            out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP]
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": out})
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
            chunks = _sse_chunks(text, "stream") if kind == _STREAMED[0] else _line_chunks(
                text, "stream")
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

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


class RecordServer:
    """:class:`RecordApp` on uvicorn in a background thread (``port=0``: a free port)."""

    def __init__(self, upstream: str, out_dir: str | Path, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.app = RecordApp(upstream, out_dir)
        self.host = host
        self.port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def captures(self) -> list[Path]:
        return self.app.captures

    def start(self) -> RecordServer:
        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415

        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on")
        self._server = server = uvicorn.Server(config)
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                                        name="streamfix-record", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_SECONDS
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"streamfix record on {self.url} did not start")
            time.sleep(0.01)
        return self

    def wait(self) -> None:
        thread = self._thread
        try:
            while thread is not None and thread.is_alive():
                thread.join(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(_STARTUP_SECONDS)
        self._server = self._thread = None

    def __enter__(self) -> RecordServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
