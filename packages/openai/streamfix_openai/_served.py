"""What the doctor's framework drivers on the openai wire share: a scenario served to the
framework's real openai client over the SDK's own HTTP stack, and one run read into an
:class:`~streamfix.testing.Outcome`.

A framework reached through the wire (langchain-openai, pydantic-ai, openai-agents) reads
``client.chat.completions.create(stream=True)``, whose iterator the shim repairs
(``_wire``). So its driver hands the framework a real ``openai`` client whose transport (the
``MockTransport`` of the HTTP library the SDK is built on: ``httpx2`` from openai 3.x,
``httpx`` before) answers in-process, as the replay server does: the scenario's chunks as
SSE events, then ``data: [DONE]``; its ``follow_up`` text once the request carries a tool
result (an agent loop ends); the non-streamed completion to a request that does not stream.
No socket, no server, no key. Imports openai when a scenario is driven.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from streamfix import MalformedToolCallError, StreamFixError, assemble, testing

__all__ = [
    "API_KEY",
    "BASE_URL",
    "declared_tools",
    "http_client",
    "outcome_of",
    "sse",
    "tool_names",
]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"


def tool_names(scenario: testing.Scenario) -> list[str]:
    """The names of the tools the scenario's calls (complete and cut) name, in order; for
    a capture (whose calls are not known), those of the core's assembly of its chunks."""
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        message = _assembled(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [name for name in names if name]


def declared_tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """Those tools as OpenAI function tools taking any object."""
    return [
        {
            "type": "function",
            "function": {"name": name, "description": name, "parameters": {"type": "object"}},
        }
        for name in tool_names(scenario)
    ]


def _http() -> Any:
    """The HTTP library the installed SDK is built on."""
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def sse(bodies: Any) -> bytes:
    """The chunks as an OpenAI-compatible server streams them."""
    events = [f"data: {json.dumps(body)}\n\n" for body in bodies]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


def _answer(scenario: testing.Scenario, request: Any) -> Any:
    http = _http()
    body = json.loads(request.content or b"{}")
    messages = body.get("messages") or []
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
        chunks: Any = testing.text_chunks(scenario.follow_up, "openai")
    elif not body.get("stream"):
        return http.Response(scenario.status, json=scenario.completion())
    else:
        chunks = testing.fresh_chunks(scenario)
    headers = {"content-type": "text/event-stream"}
    return http.Response(200, headers=headers, content=sse(chunks))


def http_client(scenario: testing.Scenario, *, asynchronous: bool = False) -> Any:
    """An HTTP client of the SDK's own library that answers every request with the
    scenario (the framework's openai client takes it as ``http_client``)."""
    http = _http()
    transport = http.MockTransport(lambda request: _answer(scenario, request))
    if asynchronous:
        return http.AsyncClient(transport=transport)
    return http.Client(transport=transport)


def outcome_of(
    scenario: testing.Scenario, run: Callable[[], Any], read: Callable[[Any], testing.Outcome]
) -> testing.Outcome:
    """:func:`streamfix.testing.run_case`, with two things a framework on the wire needs:

    - what the framework raised is described even when its ``str()`` fails;
    - a shape the wire cannot repair (``testing.UNREPAIRABLE``: I3, arguments restarted
      after their first bytes went out) ends, by design, in the wire's
      ``MalformedToolCallError`` whose ``message`` is the right assembly. Where the
      framework surfaces that error (itself or as the cause of its own), the outcome is
      that message: what the framework's caller gets, as ``repair_check`` counts it.
    """
    try:
        result = run()
        if hasattr(result, "__await__"):
            import asyncio

            result = asyncio.run(result)
    except Exception as error:  # what the framework raised is the outcome
        return _raised(scenario, error)
    return read(result)


def _raised(scenario: testing.Scenario, error: BaseException) -> testing.Outcome:
    wire = _wire_error(error)
    if (
        scenario.shape in testing.UNREPAIRABLE
        and isinstance(wire, MalformedToolCallError)
        and wire.message is not None
        and wire.message == _assembled(scenario)
    ):
        message = wire.message
        calls = tuple((call.name, call.parsed) for call in message.tool_calls)
        return testing.Outcome(calls, message.content or "")
    try:
        return testing.failure(error)
    except Exception as broken:  # the framework's error cannot be turned into text
        cause = error.__cause__
        about = f"{type(cause).__name__}: {cause}" if cause is not None else "no cause"
        text = f"<str() raised {type(broken).__name__}: {broken}> (from {about})"
        return testing.Outcome(error=f"{type(error).__name__}: {text}")


def _wire_error(error: BaseException) -> BaseException | None:
    """The wire's own error: ``error`` or one of its causes that is a streamfix error."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 8:
        if isinstance(current, StreamFixError) and not hasattr(current, "assembled"):
            return current  # the core's own error (the wire's APIError carries it as cause)
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message
