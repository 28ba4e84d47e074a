"""``streamfix doctor``'s ``agno`` column: agno's ``OpenAIChat`` on the openai wire.

An ``Agent`` with a ``Function`` of each name the scenario's calls use, on ``OpenAIChat``
(a real ``openai.OpenAI``), run with ``Agent.run(..., stream=True, stream_events=True)``
and its events read to the end: the tools run and the next request gets the scenario's
follow-up text. agno gathers every streamed tool-call entry and builds the calls at the
end of the stream (``OpenAIChat.parse_tool_calls``: one call per ``index``, a later
``name`` replacing the earlier one, arguments appended); the calls are those of the
run's first assistant message (name, arguments, id, and the thought signature in
``extra_content``, where agno's non-streamed path keeps it: what agno runs and sends
back), the text its content. Patched is what a user installs: the openai wire and this
shim (``streamfix.install("openai", "agno")``): the driver installs the wire for a run
whenever this patch is installed. The client is a real ``openai.OpenAI`` whose transport
answers in-process as the replay server does.

agno reports a failed run as a ``RunErrorEvent`` (the error's text and type), never by
raising: that is the outcome's error. On a shape the wire cannot repair
(``testing.UNREPAIRABLE``: I3) the wire ends the stream with its ``MalformedToolCallError``,
whose message is the right assembly; where agno's error event carries that error's text,
the outcome is that message (what the caller gets, as the doctor counts it for the
frameworks that raise). agno's message keeps no reasoning metadata: not judged. agno is
imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import streamfix
from streamfix import testing

__all__ = [
    "DRIVER",
    "agent",
    "drive",
    "error_event",
    "first_message",
    "functions",
    "message_calls",
    "outcome",
    "read",
    "run_agent",
    "signature",
]

PROMPT = testing.DOCTOR_PROMPT


def _answer(**arguments: Any) -> str:
    return "ok"


def functions(
    scenario: testing.Scenario, entrypoint: Callable[..., Any] | None = None
) -> list[Any]:
    """agno ``Function`` s named as the scenario's calls, each taking any object (run by
    ``entrypoint``, by default one answering ``"ok"``)."""
    tools: Any = importlib.import_module("agno.tools.function")
    return [
        tools.Function(
            name=name,
            description=name,
            parameters={"type": "object", "properties": {}},
            entrypoint=entrypoint or _answer,
        )
        for name in testing.tool_names(scenario)
    ]


def agent(scenario: testing.Scenario, base_url: str | None = None) -> Any:
    """An ``Agent`` on ``OpenAIChat`` for the scenario's model with its tools: against
    ``base_url`` (the replay server: agno builds its own clients, as a user's agent
    does) when given, else on ``openai.OpenAI`` / ``AsyncOpenAI`` answered in-process."""
    agno_agent: Any = importlib.import_module("agno.agent")
    models: Any = importlib.import_module("agno.models.openai")
    settings: dict[str, Any] = {
        "id": scenario.name,
        "api_key": testing.DOCTOR_API_KEY,
        "max_retries": 0,
    }
    if base_url is not None:
        settings["base_url"] = base_url
    else:
        openai: Any = importlib.import_module("openai")
        served = testing.served_client_settings
        settings["client"] = openai.OpenAI(**served(scenario))
        settings["async_client"] = openai.AsyncOpenAI(**served(scenario, asynchronous=True))
    model = models.OpenAIChat(**settings)
    return agno_agent.Agent(model=model, tools=functions(scenario), telemetry=False)


def run_agent(agent: Any, prompt: str = PROMPT) -> tuple[Any, list[Any]]:
    """``Agent.run(prompt, stream=True, stream_events=True)`` read to its end: the
    ``RunOutput`` (``None`` when the run ended in an error event), and the events."""
    events = list(agent.run(prompt, stream=True, stream_events=True, yield_run_output=True))
    run = events.pop() if events and type(events[-1]).__name__ == "RunOutput" else None
    return run, events


def first_message(run: Any) -> Any:
    """The run's first assistant message (the first model response), or ``None``."""
    messages = getattr(run, "messages", None) or []
    return next((m for m in messages if m.role == "assistant"), None)


def error_event(events: list[Any]) -> Any:
    """The run's ``RunErrorEvent``, or ``None``."""
    return next((e for e in events if type(e).__name__ == "RunErrorEvent"), None)


def outcome(
    scenario: testing.Scenario,
    run: Any,
    events: list[Any],
    calls: Callable[[Any], list[tuple[str, Any, Any]]],
) -> testing.Outcome:
    """What the user of an agno run got: the error event's text; else the first
    assistant message's calls (``calls`` of it: ``(name, arguments, id)``) and text."""
    error = error_event(events)
    if error is not None:
        return _error_outcome(scenario, error)
    message = first_message(run)
    if message is None:
        return testing.Outcome(error="no model response")
    got = tuple((name, arguments) for name, arguments, _ in calls(message))
    signed = tuple(bool(signature(call)) for call in message.tool_calls or [])
    return testing.Outcome(got, message.content or "", signatures=signed)


def signature(call: Any) -> Any:
    """A call's thought signature where agno keeps it (``extra_content``, as its
    non-streamed path does), or ``None``."""
    extra = (call.get("extra_content") if isinstance(call, dict) else None) or {}
    return (extra.get("google") or {}).get("thought_signature")


def message_calls(message: Any) -> list[tuple[str, Any, Any]]:
    """An agno assistant message's calls: name, parsed arguments, id."""
    calls = []
    for call in message.tool_calls or []:
        function = call.get("function") or {}  # an index agno never got a call for: {}
        arguments = testing.parse_arguments(function.get("arguments"))
        calls.append((function.get("name") or "", arguments, call.get("id")))
    return calls


def read(scenario: testing.Scenario, result: tuple[Any, list[Any]]) -> testing.Outcome:
    """:func:`outcome` of one run."""
    run, events = result
    return outcome(scenario, run, events, message_calls)


def _error_outcome(scenario: testing.Scenario, event: Any) -> testing.Outcome:
    """The error event's text; the wire's documented end of a shape it cannot repair
    (I3), where the event carries it, as the right assembly."""
    settled = testing.settled_text(scenario, event.content)
    return settled or testing.Outcome(error=f"{event.error_type or 'error'}: {event.content}")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.run(stream=True)`` on ``OpenAIChat``; with this
    patch installed, on the repaired wire."""
    installed = streamfix.installed()
    wire = "agno" in installed and "openai" not in installed
    if wire:
        streamfix.install("openai")
    try:
        return testing.run_case(lambda: run_agent(agent(scenario)), lambda r: read(scenario, r))
    finally:
        if wire:
            streamfix.uninstall("openai")


DRIVER = testing.Driver(
    "agno",
    "agno",
    "openai",
    "agno",
    drive,
    "Agent.run(stream=True) on OpenAIChat, the first assistant message (openai wire)",
)
"""What ``streamfix doctor`` runs for agno (the ``DOCTOR`` of its patch: with the wire)."""
