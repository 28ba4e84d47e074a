"""What the doctor's drivers of frameworks on a wire share: a scenario answered, in
process, to the framework's real client as the replay server answers it, and what the
framework raised read into an :class:`~streamfix.testing.Outcome`.

A framework that reads the openai SDK's or litellm's stream is driven with a real client
whose transport (the ``MockTransport`` of the HTTP library the openai SDK is built on:
``httpx2`` from openai 3.x, ``httpx`` before; :func:`http_library`) answers every request
with the scenario (:func:`served_response`, :func:`served_http_client`): the scenario's
chunks as SSE events then ``data: [DONE]`` (:func:`sse`) to a streamed request, the same
response non-streamed to one that does not stream (:func:`non_streamed`), the scenario's
``follow_up`` text once the request carries a tool result (:func:`turn`: an agent loop
ends). No socket, no server, no key. Each driver keeps only its SDK's own glue (where the
transport goes: ``http_client=``, litellm's ``client`` or ``aclient_session``).

A shape the wire cannot repair (``UNREPAIRABLE``: I3) ends, by design, in the wire's
``MalformedToolCallError`` whose ``message`` is the right assembly: where the framework
surfaces that error (itself, as the cause of its own, or as text), the outcome is that
message, what the framework's caller gets (:func:`settled`, :func:`settled_text`,
:func:`raised`, :func:`outcome_of`).

Nothing here imports a framework or an HTTP library until a scenario is served.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._assembler import assemble
from .._emit import repair
from .._errors import MalformedToolCallError, StreamFixError
from .._types import AssembledMessage
from ._canonical import UNREPAIRABLE
from ._capture import CAPTURE_NAME
from ._corpus import Scenario, text_chunks
from ._doctor import Outcome, failure, fresh_chunks

__all__ = [
    "DOCTOR_API_KEY",
    "DOCTOR_BASE_URL",
    "DOCTOR_PROMPT",
    "assembled_message",
    "declared_tools",
    "http_library",
    "non_streamed",
    "outcome_of",
    "raised",
    "served_client_settings",
    "served_http_client",
    "served_response",
    "settled",
    "settled_message",
    "settled_text",
    "sse",
    "sse_events",
    "tool_names",
    "turn",
    "wire_error",
]

#: The base URL the drivers' in-process clients are given (never contacted).
DOCTOR_BASE_URL = "http://streamfix.test/v1"
#: The API key they are given.
DOCTOR_API_KEY = "sk-streamfix-doctor"
#: The question every driver asks.
DOCTOR_PROMPT = "What is the weather in Paris, and the time?"


def assembled_message(scenario: Scenario) -> AssembledMessage | None:
    """The core's assembly of the scenario's chunks (on an error, the message it carries:
    what did complete, or ``None``)."""
    try:
        return assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


def tool_names(scenario: Scenario) -> list[str]:
    """The names of the tools the scenario's calls (complete and cut) name, in order; for
    a capture (whose calls are not known), those of the core's assembly of its chunks."""
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        message = assembled_message(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [name for name in names if name]


def declared_tools(
    scenario: Scenario, parameters: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Those tools as OpenAI function tools, each taking ``parameters`` (by default any
    object: ``{"type": "object"}``)."""
    schema = {"type": "object"} if parameters is None else parameters
    return [
        {
            "type": "function",
            "function": {"name": name, "description": name, "parameters": dict(schema)},
        }
        for name in tool_names(scenario)
    ]


# -- the answer --------------------------------------------------------------------------


def sse_events(bodies: Iterable[Any]) -> list[str]:
    """The chunks as an OpenAI-compatible server streams them: one ``data:`` event each,
    then ``data: [DONE]``."""
    return [*(f"data: {json.dumps(body)}\n\n" for body in bodies), "data: [DONE]\n\n"]


def sse(bodies: Iterable[Any]) -> bytes:
    """:func:`sse_events` as one body."""
    return "".join(sse_events(bodies)).encode()


def turn(scenario: Scenario, body: Mapping[str, Any]) -> Scenario:
    """What answers the request ``body``: the scenario itself, or its follow-up text once
    the request carries tool results (a ``"tool"`` message)."""
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


def non_streamed(scenario: Scenario) -> tuple[int, dict[str, Any]]:
    """The HTTP status and JSON body of the scenario answered non-streamed (a capture's:
    the core's assembly of it)."""
    if scenario.name != CAPTURE_NAME:
        return scenario.status, scenario.completion()
    try:
        message = assemble(scenario.chunks)
    except StreamFixError as error:
        return 500, {"error": {"message": str(error)}}
    finish = message.finish_reason or "stop"
    if scenario.dialect == "ollama":
        ollama_message: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            ollama_message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.parsed}} for c in message.tool_calls
            ]
        return 200, {
            "model": CAPTURE_NAME,
            "message": ollama_message,
            "done": True,
            "done_reason": finish,
        }
    return 200, {
        "id": "chatcmpl-capture",
        "object": "chat.completion",
        "created": 0,
        "model": CAPTURE_NAME,
        "choices": [{"index": 0, "message": message.to_openai_dict(), "finish_reason": finish}],
        "usage": message.usage,
    }


def http_library() -> Any:
    """The HTTP library the installed openai SDK is built on (``httpx2`` from openai 3.x,
    ``httpx`` before); imports openai."""
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def served_response(scenario: Scenario, request: Any, http: Any = None) -> Any:
    """The response (``http.Response``; ``http`` by default :func:`http_library`) of an
    OpenAI-compatible server replaying the scenario to ``request``, as the replay server
    answers it."""
    http = http or http_library()
    body = json.loads(request.content or b"{}")
    answered = turn(scenario, body)
    if not body.get("stream"):
        status, payload = non_streamed(answered)
        return http.Response(status, json=payload)
    headers = {"content-type": "text/event-stream"}
    return http.Response(200, headers=headers, content=sse(fresh_chunks(answered)))


def served_http_client(scenario: Scenario, *, asynchronous: bool = False, http: Any = None) -> Any:
    """A client of ``http`` (by default the openai SDK's own HTTP library) whose transport
    answers every request with the scenario (:func:`served_response`): what the
    framework's openai client takes as ``http_client``."""
    http = http or http_library()
    transport = http.MockTransport(lambda request: served_response(scenario, request, http))
    if asynchronous:
        return http.AsyncClient(transport=transport)
    return http.Client(transport=transport)


def served_client_settings(
    scenario: Scenario, *, asynchronous: bool = False, **options: Any
) -> dict[str, Any]:
    """The keyword arguments of a driver's openai client (``OpenAI``, or ``AsyncOpenAI``
    with ``asynchronous``): the doctor's key and base URL, no retry, then ``options``;
    the in-process answer (:func:`served_http_client`) as ``http_client`` unless
    ``options`` give one or another ``base_url`` (a test's replay server)."""
    settings = {
        "api_key": DOCTOR_API_KEY,
        "base_url": DOCTOR_BASE_URL,
        "max_retries": 0,
        **options,
    }
    if "http_client" not in settings and settings["base_url"] == DOCTOR_BASE_URL:
        settings["http_client"] = served_http_client(scenario, asynchronous=asynchronous)
    return settings


# -- what the framework raised -----------------------------------------------------------


def wire_error(error: BaseException | None) -> StreamFixError | None:
    """The core's own error in ``error``'s chain (``error`` or a cause or context of it;
    the wires' own exceptions carry it as their cause), or ``None``."""
    current, seen = error, 0
    while current is not None and seen < 8:
        if isinstance(current, StreamFixError) and not hasattr(current, "assembled"):
            return current
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def settled_message(scenario: Scenario, error: BaseException) -> AssembledMessage | None:
    """The right assembly, where ``error`` is the wire's documented end of a shape it
    cannot repair (``UNREPAIRABLE``: the core's ``MalformedToolCallError`` in its chain,
    carrying the core's assembly of the scenario); else ``None``."""
    if scenario.shape not in UNREPAIRABLE:
        return None
    wire = wire_error(error)
    if not isinstance(wire, MalformedToolCallError) or wire.message is None:
        return None
    return wire.message if wire.message == assembled_message(scenario) else None


def _message_outcome(message: AssembledMessage) -> Outcome:
    calls = tuple((call.name, call.parsed) for call in message.tool_calls)
    return Outcome(calls, message.content or "")


def settled(scenario: Scenario, error: BaseException) -> Outcome | None:
    """The outcome of :func:`settled_message` (``None`` for any other error)."""
    message = settled_message(scenario, error)
    return None if message is None else _message_outcome(message)


def settled_text(scenario: Scenario, text: str | None) -> Outcome | None:
    """For a framework that reports a failed run as text (agno's ``RunErrorEvent``): the
    right assembly where the scenario is unrepairable and ``text`` carries the text of the
    error the wire ends its stream with; else ``None``."""
    if scenario.shape not in UNREPAIRABLE:
        return None
    try:
        for _ in repair(fresh_chunks(scenario)):
            pass
    except MalformedToolCallError as wire:
        if wire.message is not None and str(wire) in (text or ""):
            return _message_outcome(wire.message)
    except StreamFixError:
        return None
    return None


def raised(scenario: Scenario, error: BaseException) -> Outcome:
    """What a framework raised, as the doctor counts it: :func:`settled` where it is the
    wire's documented end, else :func:`~streamfix.testing.failure`, described even when
    the error's ``str()`` fails."""
    outcome = settled(scenario, error)
    if outcome is not None:
        return outcome
    try:
        return failure(error)
    except Exception as broken:  # the framework's error cannot be turned into text
        cause = error.__cause__
        about = f"{type(cause).__name__}: {cause}" if cause is not None else "no cause"
        text = f"<str() raised {type(broken).__name__}: {broken}> (from {about})"
        return Outcome(error=f"{type(error).__name__}: {text}")


def outcome_of(
    scenario: Scenario, run: Callable[[], Any], read: Callable[[Any], Outcome]
) -> Outcome:
    """``read`` of what ``run()`` returned (an awaitable run to its end with
    ``asyncio.run``); what it raised is the outcome instead (:func:`raised`)."""
    try:
        result = run()
        if hasattr(result, "__await__"):
            import asyncio  # noqa: PLC0415 (only for an async framework: asyncio loads socket)

            result = asyncio.run(result)
    except Exception as error:  # what the framework raised is the outcome
        return raised(scenario, error)
    return read(result)
