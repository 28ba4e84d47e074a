"""An upstream that misbehaves on purpose, as a plain ASGI app on loopback: the request's
``model`` (or, without a body, its path) picks what it does. ``seen`` lists every request
it received (method, path, query, headers, body); ``events`` what happened to streams."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from streamfix.testing import BackgroundServer, Message, Receive, Send, lifespan, send_json

ROLE = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}


def event(chunk: Any) -> bytes:
    return f"data: {json.dumps(chunk)}\n\n".encode()


def call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name is not None:
        entry.update(id=f"call_{index}", type="function")
        entry["function"]["name"] = name
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}


class Upstream:
    """The ASGI app."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.events: list[str] = []
        self.lock = threading.Lock()
        self.stream_gone = threading.Event()  # a "forever" stream saw its client go

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        body, complete = b"", True
        while True:
            message = await receive()
            body += message.get("body", b"")
            if message["type"] == "http.disconnect":
                complete = False  # the request was cut before its body's end
                break
            if not message.get("more_body"):
                break
        request = {
            "method": scope["method"],
            "path": scope["path"],
            "raw_path": (scope.get("raw_path") or b"").decode("latin-1"),
            "query": scope["query_string"].decode("latin-1"),
            "headers": {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]},
            "body": body.decode("utf-8", "replace"),
            "complete": complete,
        }
        with self.lock:
            self.seen.append(request)
        if not complete:
            return
        try:
            model = str(json.loads(body).get("model", ""))
        except (ValueError, AttributeError):
            model = ""
        behaviour = getattr(self, "_" + (model or "echo").replace("-", "_"), self._echo)
        await behaviour(request, receive, send)

    async def _start(
        self, send: Send, status: int = 200, kind: bytes = b"text/event-stream"
    ) -> None:
        headers = [(b"content-type", kind), (b"x-upstream", b"fake")]
        await send({"type": "http.response.start", "status": status, "headers": headers})

    async def _chunks(self, send: Send, *parts: bytes) -> None:
        for part in parts:
            await send({"type": "http.response.body", "body": part, "more_body": True})

    async def _echo(self, request: dict[str, Any], receive: Receive, send: Send) -> None:
        await send_json(send, 200, request)

    async def _closes_mid_stream(self, request: Any, receive: Receive, send: Send) -> None:
        """Two events, then the connection drops (no end of the chunked body)."""
        await self._start(send)
        await self._chunks(send, event(ROLE), event(call(0, '{"city": "Pa', "get_weather")))
        raise RuntimeError("the upstream died")  # uvicorn closes the connection

    async def _ends_without_done(self, request: Any, receive: Receive, send: Send) -> None:
        """A clean end of the body with a call cut and no [DONE]."""
        await self._start(send)
        await self._chunks(send, event(ROLE), event(call(0, '{"city": "Pa', "get_weather")))
        await send({"type": "http.response.body", "body": b""})

    async def _malformed(self, request: Any, receive: Receive, send: Send) -> None:
        await self._start(send)
        await self._chunks(send, event(ROLE), b"data: {this is not json\n\n", event(ROLE))
        await send({"type": "http.response.body", "body": b""})

    async def _raw_body(self, request: Any, receive: Receive, send: Send) -> None:
        """The request's ``x_body`` as the streamed body (its type ``x_type``, SSE unless
        given), sent ``x_piece`` bytes at a time."""
        asked = json.loads(request["body"])
        data = asked["x_body"].encode("utf-8")
        step = asked.get("x_piece") or len(data)
        await self._start(send, kind=asked.get("x_type", "text/event-stream").encode())
        await self._chunks(send, *(data[i : i + step] for i in range(0, len(data), step)))
        await send({"type": "http.response.body", "body": b""})

    async def _huge_arguments(self, request: Any, receive: Receive, send: Send) -> None:
        await self._start(send)
        await self._chunks(send, event(ROLE), event(call(0, '{"text": "', "write_note")))
        for _ in range(20):
            await self._chunks(send, event(call(0, "x" * 100)))
        await self._chunks(send, event(call(0, '"}')), b"data: [DONE]\n\n")
        await send({"type": "http.response.body", "body": b""})

    async def _rate_limited(self, request: Any, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"7")]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        payload = {"error": {"message": "slow down", "type": "rate_limit", "code": 429}}
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})

    async def _server_error(self, request: Any, receive: Receive, send: Send) -> None:
        await self._start(send, 500, b"text/plain")
        await send({"type": "http.response.body", "body": b"upstream broke"})

    async def _slow_headers(self, request: Any, receive: Receive, send: Send) -> None:
        await asyncio.sleep(3)
        await send_json(send, 200, {})

    async def _slow_stream(self, request: Any, receive: Receive, send: Send) -> None:
        await self._start(send)
        await self._chunks(
            send, event(ROLE), event({"choices": [{"index": 0, "delta": {"content": "Hi"}}]})
        )
        await asyncio.sleep(3)
        await send({"type": "http.response.body", "body": b""})

    async def _pause(self, request: Any, receive: Receive, send: Send) -> None:
        """Two events, 1.5 s of nothing, then the end (without [DONE])."""
        await self._start(send)
        await self._chunks(
            send, event(ROLE), event({"choices": [{"index": 0, "delta": {"content": "Hi"}}]})
        )
        await asyncio.sleep(1.5)
        await send({"type": "http.response.body", "body": b""})

    async def _forever(self, request: Any, receive: Receive, send: Send) -> None:
        """Text every 20 ms until the client goes (noted in ``stream_gone``)."""
        await self._start(send)
        gone = asyncio.ensure_future(self._gone(receive))
        try:
            while not gone.done():
                await self._chunks(
                    send, event({"choices": [{"index": 0, "delta": {"content": "."}}]})
                )
                await asyncio.sleep(0.02)
        finally:
            gone.cancel()
            self.events.append("forever: client gone")
            self.stream_gone.set()

    async def _gone(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass


class UpstreamServer(BackgroundServer):
    name = "fake-upstream"
    app: Upstream

    def __init__(self) -> None:
        super().__init__(Upstream())
