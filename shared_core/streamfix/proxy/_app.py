"""The proxy as a plain ASGI application (no web framework); httpx talks to the upstream.

One request in, one request out to the configured upstream, nothing kept between requests
but httpx's connection pool:

1. The request's target is checked: a path that is not absolute, that holds an empty
   segment (``//``) or a dot segment (``.``, ``..``, also percent-encoded) is answered 400
   and never forwarded. The upstream's URL is built from the configured upstream's scheme,
   host and port and the request's path and query as sent; the ``Host`` header and an
   absolute URL in the request line never choose where it goes.
2. A body over ``max_body_bytes`` is answered 413 (a ``Content-Length`` over it before
   anything is read; a longer streamed body once it gets there).
3. ``POST .../chat/completions`` with ``"stream": true`` and ``POST .../api/chat`` (which
   streams unless ``"stream": false``): when the upstream answers 200 with a stream (SSE,
   NDJSON), the client gets the repaired stream (:class:`~._wire.RepairedStream`), sent as
   it is made. Anything else, and every other path and method: forwarded as is (status,
   headers but the hop-by-hop ones, body streamed both ways, byte for byte).
4. The upstream unreachable: 502, a connect or read timeout before the answer: 504, each
   with a JSON error naming the upstream (its root, never the request's query, which can
   hold a key). A failure mid-stream: the repaired stream's error event; on a forwarded
   stream the connection is closed without the body's end, so the client sees it cut.
5. The client disconnecting cancels the upstream request (its connection closed).

Headers go to the upstream as they came (``Authorization``, ``api-key``, ``x-api-key``
included) and are never logged nor recorded; bodies are never logged. The one log line per
request (logger ``streamfix.proxy``, INFO) names the method, the path, the status and, for
a repaired stream, the chunks and the error code.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .._asgi import BackgroundServer, Message, Receive, Send, lifespan, send_json
from ._record import MAX_RECORDED_BYTES, Recorder, capture_model
from ._wire import Dialect, RepairedStream

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_READ_TIMEOUT",
    "ENV",
    "ProxyApp",
    "ProxyServer",
    "create_app",
]

log = logging.getLogger("streamfix.proxy")

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 600.0
#: The environment variables :func:`create_app` reads for the arguments it is not given
#: (``uvicorn --factory streamfix.proxy:create_app`` calls it with none).
ENV = {
    "upstream": "STREAMFIX_UPSTREAM",
    "record": "STREAMFIX_RECORD",
    "max_argument_bytes": "STREAMFIX_MAX_ARGUMENT_BYTES",
    "max_body_bytes": "STREAMFIX_MAX_BODY_BYTES",
    "connect_timeout": "STREAMFIX_CONNECT_TIMEOUT",
    "read_timeout": "STREAMFIX_READ_TIMEOUT",
}

_HOP = frozenset(
    (
        b"host",
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"upgrade",
        b"proxy-connection",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"content-length",
    )
)
_STREAMED = ("text/event-stream", "application/x-ndjson")
_NDJSON = frozenset(("application/x-ndjson", "application/ndjson", "application/jsonl"))
_DOT_SEGMENT = re.compile(r"(^|/)\.{1,2}(/|$)")


class _TooLarge(Exception):
    """The request body went over ``max_body_bytes`` while it was forwarded."""


class _Gone(Exception):
    """The client disconnected before its request body was read."""


class _Target:
    """Where requests go: the upstream's scheme, host, port and path prefix."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"upstream {upstream!r}: not an http:// or https:// URL")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"upstream {upstream!r}: give the root only, no query or user")
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")
        self.root = f"{parts.scheme}://{parts.netloc}{self.prefix}"

    def url(self, raw_path: bytes, query: bytes) -> Any:
        import httpx  # noqa: PLC0415 (the proxy extra)

        target = self.prefix.encode() + raw_path + (b"?" + query if query else b"")
        return httpx.URL(scheme=self.scheme, host=self.host, port=self.port, raw_path=target)


class _RedactQueries(logging.Filter):
    """httpx logs each request's URL (logger ``httpx``, INFO): the query of a request to
    a proxy's upstream, where some APIs take their key (``?key=``), is left out."""

    def __init__(self) -> None:
        super().__init__()
        self.hosts: set[tuple[str, int | None]] = set()

    def add(self, target: _Target) -> None:
        if not self.hosts:
            logging.getLogger("httpx").addFilter(self)
        self.hosts.add((target.host, target.port))

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and self.hosts:
            record.args = tuple(self._redacted(arg) for arg in record.args)
        return True

    def _redacted(self, arg: Any) -> Any:
        if getattr(arg, "query", None) and (getattr(arg, "host", None), arg.port) in self.hosts:
            return f"{arg.copy_with(query=None)}?(query not logged)"
        return arg


_QUERIES = _RedactQueries()


def _path_problem(path: str, raw_path: bytes) -> str | None:
    """Why the request's path cannot be forwarded (``None``: it can)."""
    raw = raw_path.decode("latin-1")
    for shown in (path, unquote(raw)):
        if not shown.startswith("/"):
            return "the request target must be a path beginning with /"
        if "//" in shown or "\\" in shown:
            return "the request path has an empty segment (//) or a backslash"
        if _DOT_SEGMENT.search(shown):
            return "the request path has a dot segment (. or ..)"
    return None


def _dialect(method: str, path: str) -> Dialect | None:
    if method != "POST":
        return None
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/api/chat"):
        return "ollama"
    return None


def _request_headers(raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    named = {
        token.strip().lower()
        for key, value in raw
        if key.lower() == b"connection"
        for token in value.split(b",")
    }
    return [(k, v) for k, v in raw if k.lower() not in _HOP and k.lower() not in named]


def _response_headers(
    raw: list[tuple[bytes, bytes]], *, decoded: bool
) -> list[tuple[bytes, bytes]]:
    drop = _HOP | {b"content-encoding"} if decoded else _HOP
    return [(k, v) for k, v in raw if k.lower() not in drop]


def _content_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for key, value in headers:
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _streams(body: Any, dialect: Dialect) -> bool:
    if not isinstance(body, dict):
        return False
    default = dialect == "ollama"  # Ollama streams unless told not to; OpenAI the reverse
    return body.get("stream", default) is True or (default and "stream" not in body)


def _error(message: str, kind: str, code: int | str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": code}}


class ProxyApp:
    """The repairing proxy (see the module's text). Made by :func:`create_app`.

    ``repair=False`` forwards every response as is (``streamfix record``); ``label``
    begins the proxy's own error messages. ``captures`` lists the files ``--record`` wrote.
    """

    def __init__(
        self,
        upstream: str,
        *,
        record: str | Path | None = None,
        max_argument_bytes: int | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        repair: bool = True,
        label: str = "streamfix proxy",
    ) -> None:
        self.target = _Target(upstream)
        self.upstream = self.target.root
        self.recorder = Recorder(record) if record is not None else None
        self.max_argument_bytes = max_argument_bytes
        self.max_body_bytes = max_body_bytes
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.repair = repair
        self.label = label
        self._client: Any = None

    @property
    def captures(self) -> list[Path]:
        return self.recorder.captures if self.recorder is not None else []

    def http(self) -> Any:
        """The httpx client (made at the first request, in the server's event loop)."""
        if self._client is None:
            import httpx  # noqa: PLC0415 (the proxy extra)

            timeout = httpx.Timeout(
                connect=self.connect_timeout,
                read=self.read_timeout,
                write=self.read_timeout,
                pool=self.connect_timeout,
            )
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=200)
            self._client = httpx.AsyncClient(
                timeout=timeout, limits=limits, follow_redirects=False, trust_env=False
            )
            _QUERIES.add(self.target)
        return self._client

    async def aclose(self) -> None:
        """Close the upstream connections (at the server's shutdown)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send, on_shutdown=self.aclose)
            return
        if scope["type"] != "http":  # websockets: refused (uvicorn answers 403)
            return
        await _cancel_on_disconnect(_Exchange(self, scope, receive, send))


async def _cancel_on_disconnect(exchange: _Exchange) -> None:
    """Run the exchange; once its request body is read, a client that disconnects before
    the response is complete cancels it (and with it the upstream request)."""
    task = asyncio.ensure_future(exchange.run())

    async def disconnected() -> None:
        await exchange.body_read.wait()
        while (await exchange.receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait((task, watcher), return_when=asyncio.FIRST_COMPLETED)
        if not task.done() and not exchange.complete:
            task.cancel()  # the client is gone: so is the upstream request
        await asyncio.wait((task,))
    finally:
        for pending in (task, watcher):
            pending.cancel()
        await asyncio.gather(task, watcher, return_exceptions=True)
    error = None if task.cancelled() else task.exception()
    if error is not None:
        raise error


class _Exchange:
    """One request through the proxy."""

    def __init__(self, app: ProxyApp, scope: Message, receive: Receive, send: Send) -> None:
        self.app = app
        self.scope = scope
        self.receive = receive
        self._send = send
        self.complete = False  # the response's last message was sent
        self.body_read = asyncio.Event()
        self.kept = bytearray() if app.recorder is not None else None  # the body, to name
        self.status = 0
        self.started = time.monotonic()
        self.note = ""

    async def run(self) -> None:
        try:
            await self._run()
        except _Gone:
            self.note = " (the client left before its request was read)"
        finally:
            self._log()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.complete = True
        await self._send(message)

    async def _run(self) -> None:
        scope, app = self.scope, self.app
        problem = _path_problem(scope["path"], scope.get("raw_path") or scope["path"].encode())
        if problem is not None:
            self.body_read.set()
            await self._answer(400, _error(f"{app.label}: {problem}", "invalid_request_error", 400))
            return
        headers = _request_headers(scope["headers"])
        declared = _content_length(scope["headers"])
        if declared is not None and declared > app.max_body_bytes:
            self.body_read.set()
            await self._too_large()
            return
        dialect = _dialect(scope["method"], scope["path"])
        if dialect is None:
            await self._forward(headers, self._body_stream(), declared)
            return
        body = await self._read_body()
        if body is None:
            await self._too_large()
            return
        tools, repair = None, False
        if app.repair:
            parsed = _json(body)
            repair = _streams(parsed, dialect)
            tools = parsed.get("tools") if isinstance(parsed, dict) else None
        await self._forward(headers, body, None, (dialect, tools) if repair else None)

    # --- the request body -----------------------------------------------------------------

    async def _read_body(self) -> bytes | None:
        """The whole body (``None``: over the limit), read as :meth:`_body_stream` reads it."""
        try:
            return b"".join([piece async for piece in self._body_stream()])
        except _TooLarge:
            return None
        finally:
            self.body_read.set()

    async def _body_stream(self) -> AsyncIterator[bytes]:
        """The body as it arrives, for the upstream (:class:`_TooLarge` past the limit)."""
        size, limit = 0, self.app.max_body_bytes
        try:
            while True:
                event = await self.receive()
                if event["type"] == "http.disconnect":
                    raise _Gone
                piece = event.get("body", b"")
                size += len(piece)
                if size > limit:
                    raise _TooLarge
                if self.kept is not None and len(self.kept) < 65536:
                    self.kept += piece[:65536]
                if piece:
                    yield piece
                if not event.get("more_body"):
                    return
        finally:
            self.body_read.set()

    # --- the upstream ---------------------------------------------------------------------

    async def _forward(
        self,
        headers: list[tuple[bytes, bytes]],
        content: bytes | AsyncIterator[bytes],
        declared: int | None,
        repair: tuple[Dialect, Any] | None = None,
    ) -> None:
        import httpx  # noqa: PLC0415 (the proxy extra)

        app, scope = self.app, self.scope
        if isinstance(content, bytes) or declared is None:
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        else:
            headers = [*headers, (b"content-length", str(declared).encode())]
        url = app.target.url(scope.get("raw_path") or scope["path"].encode(), scope["query_string"])
        client = app.http()
        request = client.build_request(scope["method"], url, headers=headers, content=content)
        try:
            response = await client.send(request, stream=True)
        except _TooLarge:
            await self._too_large()
            return
        except httpx.TimeoutException as error:
            await self._unreachable(504, "timed out", error)
            return
        except httpx.HTTPError as error:
            await self._unreachable(502, "cannot be reached", error)
            return
        finally:
            self.body_read.set()
        try:
            if repair is not None and self._repairable(response, repair[0]):
                await self._repaired(response, repair[0], repair[1])
            else:
                await self._passed(response)
        finally:
            await response.aclose()

    def _repairable(self, response: Any, dialect: Dialect) -> bool:
        if response.status_code != 200:
            return False
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        return kind == "text/event-stream" if dialect == "openai" else kind in _NDJSON

    async def _repaired(self, response: Any, dialect: Dialect, tools: Any) -> None:
        import httpx  # noqa: PLC0415 (the proxy extra)

        chunks: list[dict[str, Any]] | None = [] if self.app.recorder is not None else None
        stream = RepairedStream(
            dialect,
            tools,
            max_argument_bytes=self.app.max_argument_bytes,
            keep=chunks.append if chunks is not None else None,
        )
        headers = _response_headers(response.headers.raw, decoded=True)
        await self._start(200, headers)
        try:
            async for data in response.aiter_bytes():
                out = stream.feed(data)
                if out:
                    await self._body(out)
                if stream.over:
                    break
            else:
                await self._body(stream.end())
        except httpx.TimeoutException:
            await self._body(stream.cut("upstream_timeout", self._said("timed out mid-stream")))
        except httpx.HTTPError as error:
            text = self._said(f"failed mid-stream ({type(error).__name__})")
            await self._body(stream.cut("upstream_closed", text))
        except Exception as error:  # a bug here must not end the server, nor stay silent
            log.exception("%s: repairing the stream failed", self.app.label)
            await self._body(stream.cut("proxy_error", f"{self.app.label}: {error!r}"))
        self.note = f" repaired {dialect}: {stream.chunks_in} chunks"
        if stream.error is not None:
            self.note += f", error {stream.error.get('code') or stream.error.get('type')}"
        if chunks is not None and self.app.recorder is not None and chunks:
            self.app.recorder.save_chunks(chunks, capture_model(bytes(self.kept or b"")))
        await self.send({"type": "http.response.body", "body": b""})

    async def _passed(self, response: Any) -> None:
        """The upstream's answer, byte for byte (a streamed one also recorded)."""
        headers = _response_headers(response.headers.raw, decoded=False)
        await self._start(response.status_code, headers)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        keep = self.app.recorder is not None and kind in _STREAMED
        keep = keep and not response.headers.get("content-encoding")
        seen = bytearray()
        async for piece in response.aiter_raw():  # an upstream failure: the client's cut too
            if keep and len(seen) < MAX_RECORDED_BYTES:
                seen += piece
            await self._body(piece)
        if keep and self.app.recorder is not None and len(seen) < MAX_RECORDED_BYTES:
            # saved before the response ends: a client that has it finds the file
            self.app.recorder.save_stream(bytes(seen), kind, capture_model(bytes(self.kept or b"")))
        await self.send({"type": "http.response.body", "body": b""})

    # --- answering ------------------------------------------------------------------------

    async def _start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        self.status = status
        await self.send({"type": "http.response.start", "status": status, "headers": headers})

    async def _body(self, data: bytes) -> None:
        if data:
            await self.send({"type": "http.response.body", "body": data, "more_body": True})

    async def _answer(self, status: int, payload: dict[str, Any]) -> None:
        self.status = status
        await send_json(self.send, status, payload)

    async def _too_large(self) -> None:
        limit = self.app.max_body_bytes
        text = f"{self.app.label}: the request body is over {limit} bytes (max_body_bytes)"
        await self._answer(413, _error(text, "invalid_request_error", 413))

    async def _unreachable(self, status: int, what: str, error: Exception) -> None:
        why = str(error) or type(error).__name__
        text = f"{self._said(what)}: {type(error).__name__}: {why}"
        kind = "upstream_timeout" if status == 504 else "upstream_unreachable"
        await self._answer(status, _error(text, kind, status))

    def _said(self, what: str) -> str:
        return f"{self.app.label}: the upstream {self.app.upstream} {what}"

    def _log(self) -> None:
        if not log.isEnabledFor(logging.INFO):
            return
        took = time.monotonic() - self.started
        scope = self.scope
        log.info(
            "%s %s -> %s in %.3f s%s", scope["method"], scope["path"], self.status, took, self.note
        )


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _env_number(name: str, convert: Callable[[str], Any]) -> Any:
    text = os.environ.get(ENV[name], "").strip()
    if not text:
        return None
    try:
        return convert(text)
    except ValueError:
        raise ValueError(f"{ENV[name]}={text!r}: not a number") from None


def create_app(
    upstream: str | None = None,
    *,
    record: str | Path | None = None,
    max_argument_bytes: int | None = None,
    max_body_bytes: int | None = None,
    connect_timeout: float | None = None,
    read_timeout: float | None = None,
) -> ProxyApp:
    """The repairing proxy as an ASGI application, for ``upstream`` (the root of an
    OpenAI-compatible or Ollama server; the request's path is appended to it).

    Every argument not given is read from the environment (:data:`ENV`:
    ``STREAMFIX_UPSTREAM``, ``STREAMFIX_RECORD``, ``STREAMFIX_MAX_ARGUMENT_BYTES``,
    ``STREAMFIX_MAX_BODY_BYTES``, ``STREAMFIX_CONNECT_TIMEOUT``,
    ``STREAMFIX_READ_TIMEOUT``), then defaults: no recording, no argument limit, 32 MiB
    bodies, 10 s to connect, 600 s between two reads. So it runs as a factory::

        STREAMFIX_UPSTREAM=http://127.0.0.1:11434 \\
            uvicorn --factory streamfix.proxy:create_app --port 8788 --workers 4
    """
    upstream = upstream or os.environ.get(ENV["upstream"], "").strip()
    if not upstream:
        raise ValueError(f"no upstream: pass upstream= or set {ENV['upstream']}")
    record = record or os.environ.get(ENV["record"], "").strip() or None
    if max_argument_bytes is None:
        max_argument_bytes = _env_number("max_argument_bytes", int)
    if max_body_bytes is None:
        max_body_bytes = _env_number("max_body_bytes", int) or DEFAULT_MAX_BODY_BYTES
    if connect_timeout is None:
        connect_timeout = _env_number("connect_timeout", float) or DEFAULT_CONNECT_TIMEOUT
    if read_timeout is None:
        read_timeout = _env_number("read_timeout", float) or DEFAULT_READ_TIMEOUT
    return ProxyApp(
        upstream,
        record=record,
        max_argument_bytes=max_argument_bytes,
        max_body_bytes=max_body_bytes,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
    )


class ProxyServer(BackgroundServer):
    """:func:`create_app`'s app on uvicorn in a background thread (``port=0``: a free
    port); keyword arguments as for :func:`create_app`. ``url`` is the proxy's root.
    uvicorn's access log is off (it would write each request's query, where some APIs
    take their key)."""

    name = "streamfix-proxy"
    app: ProxyApp
    uvicorn_options: dict[str, Any] = {"access_log": False}  # noqa: RUF012 (read only)

    def __init__(
        self, upstream: str, host: str = "127.0.0.1", port: int = 0, **options: Any
    ) -> None:
        super().__init__(create_app(upstream, **options), host, port)

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def captures(self) -> list[Path]:
        return self.app.captures
