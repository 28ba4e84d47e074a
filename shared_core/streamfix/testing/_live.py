"""``streamfix doctor --live``: a live server's streamed answers against its non-streamed one.

A :class:`LiveCase` is one request (messages, tools, options); :data:`LIVE_CASES` the four
defaults (one call, parallel calls, a call cut off by ``max_tokens``, text only). A
:class:`LiveTarget` is the server: an OpenAI-compatible base URL (``.../v1``) or an Ollama
root, a model, its API (:func:`detect_api` probes ``/v1/models`` and ``/api/tags`` when
the user does not say) and the seed sent with every request (and temperature 0).

:func:`live_check` runs one case through one framework's doctor column (its driver's
``live`` function: the framework's real client over HTTP), stock then patched, through a
loopback proxy in front of the server. The proxy records the request the framework sent
and forwards it unchanged (only a framework that cannot send the case's options itself,
``Driver.live_options`` false, gets them added on the way); it answers a later request of
the same run that sends tool results back with a short text, so an agent loop ends after
one round (a client's retry is forwarded again). The *reference* is that recorded
request sent again with ``"stream": false``, its JSON read straight from the server
(httpx, no framework): streamed must equal non-streamed for the same request
(:func:`judge_live`).

The raw stream each run received (the proxy keeps it) is checked against the reference
first: where the reference has text or calls and the stream carries none of it (no text,
no reasoning, no tool-call fragment, no error: llama-server holds a partial call back
under ``max_tokens``), nothing on the wire could have been assembled, and the cell's
verdict is ``"server-loss"`` (the server's own loss), not a loss of the framework's: it
fails only where the framework crashed or gave calls or text the stream never carried.

httpx (the openai SDK's dependency) and uvicorn (the ``serve`` extra) are imported when a
check runs.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from .._assembler import assemble
from .._errors import StreamFixError
from ._asgi import BackgroundServer, Message, Receive, Send, lifespan, read_body, send_json
from ._capture import parse_lines, parse_sse
from ._cases import Api, LiveCase, LiveTarget
from ._doctor import Outcome, _calls_diff, _judge_truncated, _short, parse_arguments
from ._drivers import DRIVERS, stock_then_patched

__all__ = [
    "SERVER_LOSS",
    "LiveError",
    "LiveResult",
    "detect_api",
    "judge_live",
    "judge_server_loss",
    "litellm_endpoint",
    "live_applies",
    "live_check",
    "live_request",
    "reference_outcome",
    "server_lost",
]

_TIMEOUT = 120.0
#: What the proxy answers a request after the run's first one (a tool result sent back).
FOLLOW_UP = "done"
#: Why a cell is the server's own loss (:func:`server_lost`).
SERVER_LOSS = "the server's stream carries none of it"


class LiveError(RuntimeError):
    """The live server could not be reached or recognised."""


@dataclass(frozen=True)
class LiveResult:
    """One case through one framework: the ``reference`` (the same request answered
    non-streamed, read from the server's JSON), the framework's streamed answer ``stock``
    and ``patched``, each judged against the reference (:func:`judge_live`).
    ``reference_finish`` is the reference's finish reason; ``request`` the request the
    framework sent, as the server received it (the reference is the same with
    ``"stream": false``). ``stock_server_loss`` / ``patched_server_loss``: the run's raw
    stream carries none of the reference (:func:`server_lost`); the cell is then judged
    by :func:`judge_server_loss`, its verdict ``"server-loss"`` where the framework lost
    nothing the stream carried (``*_ok`` true: no loss of the framework's)."""

    framework: str
    case: str
    reference: Outcome
    stock: Outcome
    patched: Outcome
    stock_ok: bool
    stock_why: str
    patched_ok: bool
    patched_why: str
    reference_finish: str | None = None
    request: Mapping[str, Any] | None = None
    stock_server_loss: bool = False
    patched_server_loss: bool = False

    @property
    def usable(self) -> bool:
        """Whether the reference is an answer to judge against (no server error)."""
        return self.reference.error is None

    @property
    def stock_verdict(self) -> str:
        """``"ok"``, ``"lost"`` or ``"server-loss"`` (the server's stream carried none
        of the reference, and the framework lost nothing it carried)."""
        return _verdict(self.stock_ok, self.stock_server_loss)

    @property
    def patched_verdict(self) -> str:
        """The same for the patched run."""
        return _verdict(self.patched_ok, self.patched_server_loss)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON data."""
        return {
            "framework": self.framework,
            "case": self.case,
            "usable": self.usable,
            "reference": self.reference.to_dict(),
            "reference_finish": self.reference_finish,
            "stock": self.stock.to_dict(),
            "stock_ok": self.stock_ok,
            "stock_why": self.stock_why,
            "patched": self.patched.to_dict(),
            "patched_ok": self.patched_ok,
            "patched_why": self.patched_why,
            "stock_verdict": self.stock_verdict,
            "patched_verdict": self.patched_verdict,
        }


def _verdict(ok: bool, server_loss: bool) -> str:
    if not ok:
        return "lost"
    return "server-loss" if server_loss else "ok"


# -- the server ----------------------------------------------------------------------


def _httpx() -> Any:
    return importlib.import_module("httpx")


def _root(url: str) -> str:
    """The URL without a trailing ``/`` and without a final ``/v1``."""
    url = url.rstrip("/")
    return url.removesuffix("/v1")


def detect_api(url: str, timeout: float = 10.0) -> Api:
    """Which API the server at ``url`` speaks: ``"openai"`` when ``url`` ends in ``/v1``
    and ``<url>/models`` answers, else ``"ollama"`` when ``<root>/api/tags`` answers
    (Ollama serves ``/v1/models`` too, so its native API is asked first), else
    ``"openai"`` when ``<root>/v1/models`` does. Raises :class:`LiveError` otherwise."""
    httpx = _httpx()
    base = url.rstrip("/")
    probes: list[tuple[str, Api, str]] = []
    if base.endswith("/v1"):
        probes.append((f"{base}/models", "openai", "data"))
    probes += [(f"{_root(base)}/api/tags", "ollama", "models")]
    probes += [(f"{_root(base)}/v1/models", "openai", "data")]
    tried = []
    for probe, api, key in probes:
        try:
            response = httpx.get(probe, timeout=timeout)
            if response.status_code == 200 and key in response.json():
                return api
            tried.append(f"{probe}: HTTP {response.status_code}")
        except (httpx.HTTPError, ValueError, TypeError) as error:
            tried.append(f"{probe}: {type(error).__name__}: {error}")
    raise LiveError(f"no OpenAI-compatible or Ollama API at {url} ({'; '.join(tried)})")


def _chat_path(target: LiveTarget) -> str:
    """The chat endpoint's URL for ``target``."""
    if target.api == "ollama":
        return f"{_root(target.url)}/api/chat"
    return f"{target.url.rstrip('/')}/chat/completions"


def live_request(target: LiveTarget, case: LiveCase) -> dict[str, Any]:
    """The case as an OpenAI chat-completions request (``model``, ``messages``, ``tools``
    when there are any, temperature 0, the seed and the case's options): what a
    framework's live function sends, in that framework's own terms."""
    request: dict[str, Any] = {
        "model": target.model,
        "messages": [dict(m) for m in case.messages],
        "temperature": 0,
        "seed": target.seed,
        **case.options,
    }
    if case.tools:
        request["tools"] = [dict(t) for t in case.tools]
    return request


def litellm_endpoint(target: LiveTarget) -> dict[str, Any]:
    """litellm's ``model``, ``api_base`` and key for a live target (``openai/<model>``,
    or ``ollama_chat/<model>`` with ``drop_params``: Ollama takes no ``tool_choice``):
    what every litellm-based client's live function sends."""
    if target.api == "ollama":
        model, base = f"ollama_chat/{target.model}", _root(target.url)
        return {"model": model, "api_base": base, "drop_params": True, "timeout": _TIMEOUT}
    key = os.environ.get("OPENAI_API_KEY") or "sk-streamfix-live"
    model = f"openai/{target.model}"
    return {"model": model, "api_base": target.url, "api_key": key, "timeout": _TIMEOUT}


_OLLAMA_OPTIONS = {"max_tokens": "num_predict", "seed": "seed", "temperature": "temperature"}


def _direct_body(target: LiveTarget, case: LiveCase) -> dict[str, Any]:
    """The request without a framework (when the framework sent none)."""
    request = live_request(target, case)
    if target.api == "openai":
        return request
    body: dict[str, Any] = {"model": target.model, "messages": request["messages"]}
    if case.tools:
        body["tools"] = request["tools"]
    body["options"] = {
        _OLLAMA_OPTIONS.get(key, key): value
        for key, value in request.items()
        if key not in ("model", "messages", "tools", "tool_choice", "parallel_tool_calls")
    }
    return body


def reference_outcome(
    target: LiveTarget, case: LiveCase, request: Mapping[str, Any] | None = None
) -> tuple[Outcome, str | None]:
    """``request`` (a framework's recorded request; by default the case sent directly)
    answered non-streamed, read from the server's JSON: the outcome and finish reason. A
    server error (HTTP status, an ``error`` body, no answer) is the outcome's ``error``."""
    httpx = _httpx()
    body = dict(request) if request is not None else _direct_body(target, case)
    body["stream"] = False
    body.pop("stream_options", None)
    try:
        response = httpx.post(_chat_path(target), json=body, timeout=_TIMEOUT)
        data = response.json()
    except (httpx.HTTPError, ValueError) as error:
        return Outcome(error=f"reference request failed: {type(error).__name__}: {error}"), None
    if response.status_code != 200 or not isinstance(data, dict) or data.get("error"):
        problem = data.get("error") if isinstance(data, dict) else data
        if isinstance(problem, dict):
            problem = problem.get("message", problem)
        return Outcome(error=f"HTTP {response.status_code}: {_short(str(problem), 200)}"), None
    try:
        if target.api == "ollama":
            return _outcome_of(data["message"]), data.get("done_reason")
        choice = data["choices"][0]
        return _outcome_of(choice["message"]), choice.get("finish_reason")
    except (KeyError, IndexError, TypeError) as error:
        return Outcome(error=f"unreadable answer: {type(error).__name__}: {error}"), None


def _outcome_of(message: Mapping[str, Any]) -> Outcome:
    calls = tuple(
        (str(call["function"]["name"]), parse_arguments(call["function"].get("arguments")))
        for call in message.get("tool_calls") or []
    )
    return Outcome(calls, message.get("content") or "")


# -- judging ---------------------------------------------------------------------------


def judge_live(
    reference: Outcome, finish: str | None, outcome: Outcome, *, tools: bool = True
) -> tuple[bool, str]:
    """Whether a framework's streamed ``outcome`` equals the ``reference`` (the same
    request answered non-streamed), and why not.

    - an unusable reference (a server error): never ok, the reason says so;
    - a reference cut off by ``finish`` ``"length"`` in a request with ``tools``: judged
      like a truncated scenario (a clear error, not a crash; no incomplete call run);
    - otherwise no error, the same calls (names and arguments, in order) and, where the
      framework reports text, the same text (outer whitespace aside).
    """
    if reference.error is not None:
        return False, f"reference unusable: {_short(reference.error)}"
    if finish == "length" and tools:
        why = _judge_truncated(outcome)
        return not why, why
    if outcome.error is not None:
        return False, f"{'crash' if outcome.crash else 'error'}: {_short(outcome.error)}"
    if list(outcome.calls) != list(reference.calls):
        return False, _calls_diff(list(reference.calls), list(outcome.calls))
    if outcome.text is not None and outcome.text.strip() != (reference.text or "").strip():
        return False, f"text {_short(repr(outcome.text))}"
    return True, ""


def server_lost(reference: Outcome, stream: bytes | None, api: Api) -> bool:
    """Whether the server lost the answer in its own stream: the reference (the request
    answered non-streamed) has text or calls, and the raw ``stream`` of the same request
    carries none of it: no text, reasoning, tool-call fragment or error (read by the
    core). A stream that cannot be read, or none recorded, is not judged so."""
    if stream is None or reference.error is not None:
        return False
    if not reference.calls and not (reference.text or "").strip():
        return False
    try:
        text = stream.decode("utf-8")
        chunks = parse_lines(text) if api == "ollama" else parse_sse(text)
        message = assemble(chunks)
    except (UnicodeDecodeError, StreamFixError):  # a cut call or an error is something
        return False
    carried = (
        message.content.strip(),
        message.reasoning.strip(),
        message.tool_calls,
        message.reasoning_details,
        message.thinking_blocks,
    )
    return not any(carried)


def judge_server_loss(outcome: Outcome) -> tuple[bool, str]:
    """A framework's ``outcome`` where the server's stream carried nothing
    (:func:`server_lost`): ok (:data:`SERVER_LOSS`, the server's own loss) unless the
    framework crashed, or gave calls or text the stream never carried. Reporting the
    cut (an error, not a crash) loses nothing."""
    if outcome.error is not None and outcome.crash:
        return False, f"crash: {_short(outcome.error)}"
    if outcome.calls:
        return False, _calls_diff([], list(outcome.calls))
    if outcome.text is not None and outcome.text.strip():
        return False, f"text {_short(repr(outcome.text))}"
    return True, SERVER_LOSS


# -- the proxy -------------------------------------------------------------------------

_HOP = {b"host", b"connection", b"keep-alive", b"transfer-encoding", b"content-length"}
_CHAT = ("/chat/completions", "/api/chat")


class _ProxyApp:
    """Forwards chat requests to ``upstream`` (with ``extra`` merged into each body) and
    records the run's first; answers a later one that sends tool results back with
    :data:`FOLLOW_UP` (one round). Everything else is forwarded as it is."""

    def __init__(self, upstream: str, extra: Mapping[str, Any]) -> None:
        self.upstream = upstream.rstrip("/")
        self.extra = dict(extra)
        self.requests: list[dict[str, Any]] = []
        self.forwarded = False
        self.stream: bytearray | None = None  # the recorded request's answer, as sent

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":  # pragma: no cover
            return
        raw = await read_body(receive)
        path = scope["path"]
        chat = scope["method"] == "POST" and path.endswith(_CHAT)
        kept = None
        if chat:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            if self.forwarded and _sends_tool_results(body):
                await _follow_up(send, path, body)
                return
            body.update(self.extra)
            if not self.forwarded:  # a client's retry is forwarded again, not recorded
                self.requests.append({"path": path, **body})
                kept = self.stream = bytearray()
            self.forwarded = True
            raw = json.dumps(body).encode()
        await self._forward(scope, raw, send, kept)

    async def _forward(
        self, scope: Message, raw: bytes, send: Send, kept: bytearray | None = None
    ) -> None:
        """The request sent upstream and its answer sent back as it comes (appended to
        ``kept`` too, when given)."""
        httpx = _httpx()
        url = self.upstream + scope["path"]
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP]
        async with httpx.AsyncClient(timeout=_TIMEOUT) as client:
            request = client.build_request(scope["method"], url, headers=headers, content=raw)
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as error:
                message = f"streamfix doctor --live: upstream {url}: {error}"
                await send_json(send, 502, {"error": {"message": message}})
                return
            try:
                out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP]
                start = {"type": "http.response.start", "status": response.status_code}
                await send({**start, "headers": out})
                async for piece in response.aiter_raw():
                    if kept is not None:
                        kept += piece
                    await send({"type": "http.response.body", "body": piece, "more_body": True})
                await send({"type": "http.response.body", "body": b""})
            finally:
                await response.aclose()


def _sends_tool_results(body: Mapping[str, Any]) -> bool:
    """Whether a request carries a tool result back (a ``tool`` message)."""
    messages = body.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "tool" for m in messages
    )


async def _follow_up(send: Send, path: str, body: Mapping[str, Any]) -> None:
    """:data:`FOLLOW_UP` as the answer to a later request, in the request's own terms."""
    model = str(body.get("model", ""))
    if path.endswith("/api/chat"):
        message = {"role": "assistant", "content": FOLLOW_UP}
        line = {"model": model, "message": message, "done": True, "done_reason": "stop"}
        if body.get("stream", True):
            await _send_stream(send, "application/x-ndjson", [json.dumps(line) + "\n"])
        else:
            await send_json(send, 200, line)
        return
    choice = {"index": 0, "finish_reason": "stop"}
    if not body.get("stream"):
        message = {"role": "assistant", "content": FOLLOW_UP}
        answer = {"id": "followup", "object": "chat.completion", "created": 0, "model": model}
        await send_json(send, 200, {**answer, "choices": [{**choice, "message": message}]})
        return
    chunk = {"id": "followup", "object": "chat.completion.chunk", "created": 0, "model": model}
    delta = {"role": "assistant", "content": FOLLOW_UP}
    events = [f"data: {json.dumps({**chunk, 'choices': [{**choice, 'delta': delta}]})}\n\n"]
    await _send_stream(send, "text/event-stream", [*events, "data: [DONE]\n\n"])


async def _send_stream(send: Send, kind: str, events: list[str]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", kind.encode())],
        }
    )
    for event in events:
        await send({"type": "http.response.body", "body": event.encode(), "more_body": True})
    await send({"type": "http.response.body", "body": b""})


class _Proxy(BackgroundServer):
    name = "streamfix-live-proxy"
    app: _ProxyApp

    def __init__(self, target: LiveTarget, extra: Mapping[str, Any]) -> None:
        parts = urlsplit(target.url)
        super().__init__(_ProxyApp(f"{parts.scheme}://{parts.netloc}", extra))
        self.path = parts.path.rstrip("/")

    def target(self, target: LiveTarget) -> LiveTarget:
        """``target`` pointed at the proxy."""
        return replace(target, url=self.url + self.path)

    def reset(self) -> tuple[dict[str, Any] | None, bytes | None]:
        """The first request of the run now ending and the raw answer it got (``None``
        if none), then a new run."""
        first = self.app.requests[0] if self.app.requests else None
        stream = None if self.app.stream is None else bytes(self.app.stream)
        self.app.requests, self.app.forwarded, self.app.stream = [], False, None
        return first, stream


# -- one check -------------------------------------------------------------------------


def live_applies(framework: str, target: LiveTarget) -> bool:
    """Whether the framework's column has a live function for the target's API."""
    driver = DRIVERS[framework]
    return driver.live is not None and target.api in driver.live_apis


def _extra(target: LiveTarget, case: LiveCase, options: bool) -> dict[str, Any]:
    if options or target.api != "openai":
        return {}
    return {"temperature": 0, "seed": target.seed, **case.options}


def live_check(framework: str, target: LiveTarget, case: LiveCase) -> LiveResult:
    """``case`` through ``framework``'s doctor column (its driver's ``live``, streamed),
    stock and patched, against the same request answered non-streamed; a run whose raw
    stream carries none of that answer is judged as the server's loss
    (:func:`server_lost`). Raises ``ValueError`` when the column has no live function
    for the target's API."""
    if not live_applies(framework, target):
        raise ValueError(f"{framework} has no live check for {target.api} servers")
    driver = DRIVERS[framework]
    sent: list[tuple[dict[str, Any] | None, bytes | None]] = []
    with _Proxy(target, _extra(target, case, driver.live_options)) as proxy:
        via = proxy.target(target)

        def run(column: Any) -> Outcome:
            try:
                return column.live(via, case, True)  # type: ignore[no-any-return]
            finally:
                sent.append(proxy.reset())

        stock, patched = stock_then_patched(framework, run)
    request = next((r for r, _ in sent if r is not None), None)
    if request is not None:
        request = {k: v for k, v in request.items() if k != "path"}
    reference, finish = reference_outcome(target, case, request)
    if patched is None:
        patched = Outcome(error=f"streamfix.install({driver.name!r}) failed (see the log)")
    streams = [stream for _, stream in sent] + [None, None]
    stock_loss = server_lost(reference, streams[0], target.api)
    patched_loss = server_lost(reference, streams[1], target.api)
    stock_ok, stock_why = _judged(reference, finish, stock, bool(case.tools), stock_loss)
    patched_ok, patched_why = _judged(reference, finish, patched, bool(case.tools), patched_loss)
    return LiveResult(
        framework,
        case.name,
        reference,
        stock,
        patched,
        stock_ok,
        stock_why,
        patched_ok,
        patched_why,
        finish,
        request,
        stock_loss,
        patched_loss,
    )


def _judged(
    reference: Outcome, finish: str | None, outcome: Outcome, tools: bool, server_loss: bool
) -> tuple[bool, str]:
    if server_loss:
        return judge_server_loss(outcome)
    return judge_live(reference, finish, outcome, tools=tools)
