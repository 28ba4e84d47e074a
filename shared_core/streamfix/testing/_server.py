"""A loopback server that replays wire shapes over real HTTP (``streamfix serve``).

:class:`ReplayApp` is a plain ASGI application (no web framework):

- ``POST /v1/chat/completions`` (OpenAI-compatible): with ``"stream": true`` one SSE
  ``data: {...}`` event per chunk of the scenario, then ``data: [DONE]``; otherwise the
  scenario's equivalent non-streamed ``chat.completion`` JSON.
- ``POST /api/chat`` (Ollama): one NDJSON object per line (Ollama streams unless
  ``"stream": false``), or the one non-streamed object.
- ``GET /v1/models`` and ``GET /api/tags``: the scenario names.
- The other dialects' streaming endpoints (wire-shapes J-M), each serving the scenarios
  of its dialect (:data:`~streamfix.testing.DIALECT_SCENARIOS`) as its provider frames
  them, streamed only: ``POST /v1/responses`` (OpenAI Responses: ``event:`` and
  ``data:`` lines, no ``[DONE]``), ``POST /v1/messages`` (Anthropic: the same framing),
  ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` (Gemini: ``data:``
  lines; the scenario is the path's model), ``POST /model/{modelId}/converse-stream``
  (Bedrock's ConverseStream: AWS's binary event stream, one message an event, an
  exception item as an exception message; the scenario is the path's model id). Once the
  request carries a tool's result, the answer is the scenario's ``follow_up`` text in
  that dialect.

The model may also name a scripted multi-round loop (:data:`~streamfix.testing.ROUNDS`,
``"rounds-ollama"``...): then the answer is the script's round ``N`` (one more than the
request's assistant messages) once the earlier rounds came back right, else HTTP 400
with what is wrong (:class:`~streamfix.testing.Rounds`).

The scenario is the request's ``model`` (``"b3-same-index"``, ``"streamfix/b3-same-index"``
or anything ending in ``/<name>``). Every event is sent, and flushed, on its own, so the
chunk boundaries on the wire are exactly the scenario's. When the request already carries
a tool result (a ``"tool"`` message), the answer is the scenario's ``follow_up`` text, so
agent loops end. Started with a capture (a file :func:`~streamfix.testing.read_capture`
reads: JSONL, raw SSE text or Ollama NDJSON), every model name replays that capture.

:class:`ReplayServer` runs the app on uvicorn (the optional ``serve`` extra, imported only
when a server starts) in a background thread on a free loopback port.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ._asgi import BackgroundServer, Message, Receive, Send, lifespan, read_json, send_json
from ._capture import CAPTURE_NAME, read_capture
from ._corpus import SCENARIOS, Dialect, Scenario
from ._dialect_corpus import (
    DIALECT_SCENARIOS,
    anthropic_stream,
    bedrock_stream,
    gemini_stream,
    responses_stream,
)
from ._eventstream import EVENTSTREAM, bedrock_message
from ._rounds import ROUNDS, RoundMismatch, Rounds
from ._served import non_streamed, sse_events, turn

__all__ = ["ReplayApp", "ReplayServer"]


@dataclass
class ReplayApp:
    """The ASGI application. ``requests`` records every request body received, in order."""

    scenarios: Mapping[str, Scenario] = field(default_factory=lambda: dict(SCENARIOS))
    capture: Scenario | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    rounds: Mapping[str, Rounds] = field(default_factory=lambda: dict(ROUNDS))

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":  # pragma: no cover - websockets are not served
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        if method == "GET" and path in ("/v1/models", "/models", "/api/tags"):
            await send_json(send, 200, self._models(path))
        elif method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            await self._chat(receive, send, path, "openai")
        elif method == "POST" and path == "/api/chat":
            await self._chat(receive, send, path, "ollama")
        elif method == "POST" and path in ("/v1/responses", "/responses"):
            await self._dialect(receive, send, path, "responses", None)
        elif method == "POST" and path in ("/v1/messages", "/messages"):
            await self._dialect(receive, send, path, "anthropic", None)
        elif method == "POST" and path.endswith(":streamGenerateContent"):
            model = path.rsplit("/", 1)[-1].split(":", 1)[0]
            await self._dialect(receive, send, path, "gemini", model)
        elif method == "POST" and path.startswith("/model/") and path.endswith("/converse-stream"):
            model = unquote(path.removeprefix("/model/").removesuffix("/converse-stream"))
            await self._dialect(receive, send, path, "bedrock", model)
        else:
            message = f"no route {method} {scope['path']}"
            await send_json(send, 404, {"error": {"message": message}})

    async def _chat(self, receive: Receive, send: Send, path: str, dialect: Dialect) -> None:
        """A chat request: the scenario (or the script's round) its model names."""
        try:
            body = await read_json(receive)
        except ValueError as error:
            await send_json(send, 400, {"error": {"message": str(error)}})
            return
        self.requests.append({"path": path, **body})
        script = self._script(str(body.get("model", "")))
        if script is not None:
            await _answer_round(send, script, body, dialect)
            return
        scenario = self._scenario(str(body.get("model", "")))
        if scenario is None:
            known = ", ".join(sorted(self.scenarios))
            message = f"unknown scenario {body.get('model')!r}; known: {known}"
            await send_json(send, 404, {"error": {"message": message}})
            return
        await _answer(send, turn(scenario, body), dialect, _streamed(body, dialect))

    async def _dialect(
        self, receive: Receive, send: Send, path: str, dialect: str, model: str | None
    ) -> None:
        """A streaming request of another dialect: its scenario, framed as its provider
        frames it."""
        try:
            body = await read_json(receive)
        except ValueError as error:
            await send_json(send, 400, {"error": {"message": str(error)}})
            return
        self.requests.append({"path": path, **body})
        name = (model or str(body.get("model", ""))).rsplit("/", 1)[-1]
        scenario = DIALECT_SCENARIOS.get(name)
        if scenario is None or scenario.dialect != dialect:
            known = ", ".join(n for n, s in DIALECT_SCENARIOS.items() if s.dialect == dialect)
            message = f"unknown {dialect} scenario {name!r}; known: {known}"
            await send_json(send, 404, {"error": {"message": message}})
            return
        if dialect in ("responses", "anthropic") and not body.get("stream"):
            message = "the replay server streams this dialect only: send stream: true"
            await send_json(send, 400, {"error": {"message": message}})
            return
        chunks = _dialect_turn(scenario, body)
        if dialect == "bedrock":
            await _stream(send, EVENTSTREAM, [bedrock_message(item) for item in chunks])
            return
        if dialect == "gemini":
            events = [f"data: {json.dumps(item)}\r\n\r\n" for item in chunks]
        else:
            events = [f"event: {item['type']}\ndata: {json.dumps(item)}\n\n" for item in chunks]
        await _stream(send, "text/event-stream", events)

    def _scenario(self, model: str) -> Scenario | None:
        if self.capture is not None:
            return self.capture
        name = model.rsplit("/", 1)[-1].split(":", 1)[0]
        return self.scenarios.get(name)

    def _script(self, model: str) -> Rounds | None:
        if self.capture is not None:
            return None
        return self.rounds.get(model.rsplit("/", 1)[-1].split(":", 1)[0])

    def _models(self, path: str) -> dict[str, Any]:
        names = [CAPTURE_NAME] if self.capture is not None else sorted(self.scenarios)
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


#: What carries a tool's result back in each other dialect's request (a ``type`` value,
#: or a key): Responses' ``function_call_output`` item, Anthropic's ``tool_result`` block,
#: Gemini's ``functionResponse`` part, Bedrock's ``toolResult`` block.
_TOOL_RESULTS = frozenset({"function_call_output", "tool_result", "functionResponse", "toolResult"})


def _carries_tool_result(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("type") in _TOOL_RESULTS or any(
            key in _TOOL_RESULTS or _carries_tool_result(item) for key, item in value.items()
        )
    return isinstance(value, list) and any(_carries_tool_result(item) for item in value)


def _dialect_turn(scenario: Scenario, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scenario's items, or its follow-up text in its dialect once the request
    carries a tool's result (so agent loops end)."""
    if not _carries_tool_result(body):
        return list(scenario.chunks)
    text = scenario.follow_up
    if scenario.dialect == "responses":
        return responses_stream([], text)
    if scenario.dialect == "anthropic":
        return anthropic_stream([], text, stop_reason="end_turn")
    if scenario.dialect == "gemini":
        return gemini_stream([], text)
    return bedrock_stream([], text, stop_reason="end_turn")


async def _answer_round(
    send: Send, script: Rounds, body: Mapping[str, Any], dialect: Dialect
) -> None:
    """The script's next round, or HTTP 400 when the request's history is wrong."""
    try:
        scenario = script.answer(body.get("messages"))
    except RoundMismatch as error:
        if dialect == "ollama":
            payload: dict[str, Any] = {"error": str(error)}
        else:
            payload = {
                "error": {"message": str(error), "type": "invalid_request_error", "code": 400}
            }
        await send_json(send, 400, payload)
        return
    await _answer(send, scenario, dialect, _streamed(body, dialect))


async def _answer(send: Send, scenario: Scenario, dialect: Dialect, streamed: bool) -> None:
    chunks = scenario.chunks
    if scenario.dialect != dialect:
        message = f"scenario {scenario.name!r} speaks {scenario.dialect}, not {dialect}"
        await send_json(send, 400, {"error": {"message": message}})
        return
    if not streamed:
        status, payload = non_streamed(scenario)
        await send_json(send, status, payload)
        return
    if dialect == "ollama":
        await _stream(send, "application/x-ndjson", (json.dumps(c) + "\n" for c in chunks))
    else:
        await _stream(send, "text/event-stream", sse_events(chunks))


async def _stream(send: Send, content_type: str, events: Iterable[str | bytes]) -> None:
    headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:  # one send per event: uvicorn writes (flushes) each on its own
        body = event.encode() if isinstance(event, str) else event
        await send({"type": "http.response.body", "body": body, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


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
            read_capture(capture).scenario() if capture is not None else None,
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
