"""What the proxy and the test kit's servers share: plain ASGI (no web framework).

The ASGI type aliases, reading a request body, answering JSON, the lifespan protocol and
:class:`BackgroundServer`, which runs an ASGI app on uvicorn in a background thread. Here,
below both, so that the proxy (a deployable server) never imports :mod:`streamfix.testing`
(which re-exports these names). ``socket``, ``threading`` and uvicorn (the optional
``serve`` and ``proxy`` extras) are imported only when a server starts, so importing this
module costs nothing; ``import streamfix`` does not import it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import threading

__all__ = [
    "BackgroundServer",
    "Message",
    "Receive",
    "Send",
    "lifespan",
    "read_body",
    "read_json",
    "send_json",
]

Message = MutableMapping[str, Any]
"""One ASGI event (and the ``scope``)."""
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_STARTUP_SECONDS = 10.0


async def read_body(receive: Receive) -> bytes:
    """The whole request body of an ASGI ``http`` scope."""
    parts = []
    while True:
        event = await receive()
        parts.append(event.get("body", b""))
        if not event.get("more_body"):
            return b"".join(parts)


async def read_json(receive: Receive) -> dict[str, Any]:
    """The request body as a JSON object; :class:`ValueError` saying why when it is not one
    (empty, not JSON, or JSON of another type)."""
    data = await read_body(receive)
    if not data.strip():
        raise ValueError("the request body is empty, not a JSON object")
    try:
        parsed = json.loads(data)
    except ValueError as error:  # a JSONDecodeError, or bytes that are not text
        raise ValueError(f"the request body is not JSON ({error})") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"the request body is JSON but not an object (a {type(parsed).__name__})")
    return parsed


async def send_json(send: Send, status: int, payload: object) -> None:
    """A whole JSON response."""
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def lifespan(
    receive: Receive, send: Send, on_shutdown: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Answer the ASGI ``lifespan`` protocol; ``on_shutdown`` runs before shutdown completes."""
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            if on_shutdown is not None:
                await on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


class BackgroundServer:
    """An ASGI app on uvicorn in a background thread, on a loopback port.

    ``port=0`` picks a free port. Use as a context manager, or ``start()``/``stop()``;
    ``url`` is the server's root. The replay server and the recording proxy are both one.
    """

    name = "streamfix"
    #: More ``uvicorn.Config`` options (the proxy turns the access log off: it holds queries).
    uvicorn_options: dict[str, Any] = {}  # noqa: RUF012 (read only)

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
        import socket  # noqa: PLC0415 (only a started server needs it)
        import threading  # noqa: PLC0415

        import uvicorn  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 (optional extra)

        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", **self.uvicorn_options
        )
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
