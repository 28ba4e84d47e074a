"""A loopback server that replays wire shapes over real HTTP (``streamfix serve``).

:class:`ReplayApp` is a plain ASGI application (no web framework):

- ``POST /v1/chat/completions`` (OpenAI-compatible): with ``"stream": true`` one SSE
  ``data: {...}`` event per chunk of the scenario, then ``data: [DONE]``; otherwise the
  scenario's equivalent non-streamed ``chat.completion`` JSON.
- ``POST /api/chat`` (Ollama): one NDJSON object per line (Ollama streams unless
  ``"stream": false``), or the one non-streamed object.
- ``GET /v1/models`` and ``GET /api/tags``: the scenario names.

The scenario is the request's ``model`` (``"b3-same-index"``, ``"streamfix/b3-same-index"``
or anything ending in ``/<name>``). Every event is sent, and flushed, on its own, so the
chunk boundaries on the wire are exactly the scenario's. When the request already carries
a tool result (a ``"tool"`` message), the answer is the scenario's ``follow_up`` text, so
agent loops end. Started with a capture (JSONL, one chunk per line), every model name
replays that capture.

:class:`ReplayServer` runs the app on uvicorn (the optional ``serve`` extra, imported only
when a server starts) in a background thread on a free loopback port.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._assembler import assemble
from ._corpus import SCENARIOS, Dialect, Scenario, text_chunks
from ._errors import StreamFixError

__all__ = ["BackgroundServer", "ReplayApp", "ReplayServer", "load_capture"]

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_CAPTURE = "capture"
_STARTUP_SECONDS = 10.0


def load_capture(path: str | Path) -> Scenario:
    """A recorded JSONL capture (one chunk per line, blank lines ignored) as a scenario.

    The dialect is Ollama when the first chunk looks like an ``/api/chat`` line (it has
    ``message``/``done``, or an ``error`` that is a string), OpenAI otherwise. What it must
    assemble to is not known: ``calls`` and ``text`` stay empty; the non-streamed answer is
    built by assembling the capture with streamfix.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    chunks = tuple(json.loads(line) for line in lines if line.strip())
    first = chunks[0] if chunks else {}
    ollama = "message" in first or "done" in first or isinstance(first.get("error"), str)
    dialect: Dialect = "ollama" if ollama else "openai"
    return Scenario(_CAPTURE, "capture", f"replay of {path}", dialect, chunks)


@dataclass
class ReplayApp:
    """The ASGI application. ``requests`` records every request body received, in order."""

    scenarios: Mapping[str, Scenario] = field(default_factory=lambda: dict(SCENARIOS))
    capture: Scenario | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":  # pragma: no cover - websockets are not served
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        if method == "GET" and path in ("/v1/models", "/models", "/api/tags"):
            await _json(send, 200, self._models(path))
            return
        if method != "POST" or path not in (
            "/v1/chat/completions",
            "/chat/completions",
            "/api/chat",
        ):
            await _json(send, 404, {"error": {"message": f"no route {method} {path}"}})
            return
        body = await _body(receive)
        self.requests.append({"path": path, **body})
        scenario = self._scenario(str(body.get("model", "")))
        if scenario is None:
            known = ", ".join(sorted(self.scenarios))
            message = f"unknown scenario {body.get('model')!r}; known: {known}"
            await _json(send, 404, {"error": {"message": message}})
            return
        dialect: Dialect = "ollama" if path == "/api/chat" else "openai"
        await _answer(send, _turn(scenario, body), dialect, _streamed(body, dialect))

    def _scenario(self, model: str) -> Scenario | None:
        if self.capture is not None:
            return self.capture
        name = model.rsplit("/", 1)[-1].split(":", 1)[0]
        return self.scenarios.get(name)

    def _models(self, path: str) -> dict[str, Any]:
        names = [_CAPTURE] if self.capture is not None else sorted(self.scenarios)
        if path == "/api/tags":
            return {"models": [{"name": name, "model": name} for name in names]}
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "streamfix"}
                for name in names
            ],
        }


def _streamed(body: Mapping[str, Any], dialect: Dialect) -> bool:
    default = dialect == "ollama"  # Ollama streams unless told not to; OpenAI the reverse
    return bool(body.get("stream", default))


def _turn(scenario: Scenario, body: Mapping[str, Any]) -> Scenario:
    """The scenario itself, or its follow-up text once the request carries tool results."""
    messages = body.get("messages")
    if isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "tool" for m in messages
    ):
        return Scenario(
            scenario.name,
            "text",
            "follow-up",
            scenario.dialect,
            text_chunks(scenario.follow_up, scenario.dialect),
            text=scenario.follow_up,
            finish_reason="stop",
        )
    return scenario


async def _answer(send: Send, scenario: Scenario, dialect: Dialect, streamed: bool) -> None:
    chunks = scenario.chunks
    if scenario.dialect != dialect:
        message = f"scenario {scenario.name!r} speaks {scenario.dialect}, not {dialect}"
        await _json(send, 400, {"error": {"message": message}})
        return
    if not streamed:
        status, payload = _non_streamed(scenario)
        await _json(send, status, payload)
        return
    if dialect == "ollama":
        await _stream(send, "application/x-ndjson", (json.dumps(c) + "\n" for c in chunks))
    else:
        events = [f"data: {json.dumps(c)}\n\n" for c in chunks]
        await _stream(send, "text/event-stream", [*events, "data: [DONE]\n\n"])


def _non_streamed(scenario: Scenario) -> tuple[int, dict[str, Any]]:
    if scenario.name != _CAPTURE:
        return scenario.status, scenario.completion()
    try:
        message = assemble(scenario.chunks)
    except StreamFixError as error:
        return 500, {"error": {"message": str(error)}}
    if scenario.dialect == "ollama":
        ollama_message: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            ollama_message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.parsed}} for c in message.tool_calls
            ]
        return 200, {
            "model": _CAPTURE,
            "message": ollama_message,
            "done": True,
            "done_reason": message.finish_reason or "stop",
        }
    return 200, {
        "id": "chatcmpl-capture",
        "object": "chat.completion",
        "created": 0,
        "model": _CAPTURE,
        "choices": [
            {
                "index": 0,
                "message": message.to_openai_dict(),
                "finish_reason": message.finish_reason or "stop",
            }
        ],
        "usage": message.usage,
    }


async def read_body(receive: Receive) -> bytes:
    """The whole request body of an ASGI ``http`` scope."""
    parts = []
    while True:
        event = await receive()
        parts.append(event.get("body", b""))
        if not event.get("more_body"):
            return b"".join(parts)


async def _body(receive: Receive) -> dict[str, Any]:
    data = await read_body(receive)
    try:
        parsed = json.loads(data or b"{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


async def _json(send: Send, status: int, payload: object) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _stream(send: Send, content_type: str, events: Iterable[str]) -> None:
    headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:  # one send per event: uvicorn writes (flushes) each on its own
        await send({"type": "http.response.body", "body": event.encode(), "more_body": True})
    await send({"type": "http.response.body", "body": b""})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


class BackgroundServer:
    """An ASGI app on uvicorn in a background thread, on a loopback port.

    ``port=0`` picks a free port. Use as a context manager, or ``start()``/``stop()``;
    ``url`` is the server's root. The replay server and the recording proxy are both one.
    """

    name = "streamfix"

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> Any:
        """Bind, start serving in a background thread, return once it accepts requests."""
        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 (optional extra)

        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on")
        self._server = server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_SECONDS
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} on {self.url} did not start")
            time.sleep(0.01)
        return self

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C stops it)."""
        thread = self._thread
        try:
            while thread is not None and thread.is_alive():
                thread.join(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop serving and wait for the thread (idempotent)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(_STARTUP_SECONDS)
        self._server = self._thread = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ReplayServer(BackgroundServer):
    """:class:`ReplayApp` on uvicorn, in a background thread, on a loopback port.

    ``port=0`` picks a free port. Use as a context manager, or ``start()``/``stop()``.
    ``url`` is the server's root, ``openai_base_url`` its ``/v1``, ``ollama_base_url``
    the root (what ``ollama_chat/`` expects as ``api_base``).
    """

    name = "streamfix-serve"
    app: ReplayApp

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        capture: str | Path | None = None,
        scenarios: Mapping[str, Scenario] | None = None,
    ) -> None:
        app = ReplayApp(
            dict(SCENARIOS if scenarios is None else scenarios),
            load_capture(capture) if capture is not None else None,
        )
        super().__init__(app, host, port)

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def ollama_base_url(self) -> str:
        return self.url

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received so far, in order (with its ``path``)."""
        return self.app.requests
