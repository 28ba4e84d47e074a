"""``streamfix doctor``'s ``agno-litellm`` column: agno's ``LiteLLM`` model on the litellm
wire.

An ``Agent`` with a ``Function`` of each name the scenario's calls use, on agno's
``LiteLLM`` (``openai/<scenario>``: litellm's OpenAI provider, its ``CustomStreamWrapper``
over the openai SDK's stream), run with ``Agent.run(..., stream=True, stream_events=True)``
and read to the end. litellm is given a real ``openai.OpenAI`` (``client``) whose transport
(the ``MockTransport`` of the SDK's HTTP library) answers in-process as the replay server
does: the scenario's chunks as SSE, its follow-up text once the request carries a tool
result. agno gathers litellm's tool-call deltas and builds the calls at the end
(``LiteLLM.parse_tool_calls``: one call per ``index``, a later name replacing the earlier
one, arguments appended; arguments that are not one JSON object are wrapped as
``{"text": ...}`` or ``{"value": ...}`` and run). The calls are those of the run's first
assistant message, the text its content; a failed run is agno's ``RunErrorEvent`` (agno
never raises). On a shape the wire cannot repair (``testing.UNREPAIRABLE``: I3) the wire's
``MalformedToolCallError`` carries the right assembly: where agno's error event carries
its text, that assembly is the outcome. No thought signature and no reasoning metadata in
agno's streamed calls: not judged. agno and litellm are imported when a scenario is
driven.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from streamfix import testing

__all__ = ["AGNO_DRIVER", "agent", "drive", "functions", "read", "run_agent"]

PROMPT = testing.DOCTOR_PROMPT


def _answer(**arguments: Any) -> str:
    return "ok"


def functions(scenario: testing.Scenario, entrypoint: Any = None) -> list[Any]:
    """agno ``Function`` s named as the scenario's calls, each taking any object."""
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


def agent(scenario: testing.Scenario, api_base: str | None = None) -> Any:
    """An ``Agent`` on agno's ``LiteLLM`` (``openai/<scenario>``) with the scenario's
    tools: against ``api_base`` (the replay server) when given, else answered in-process
    (litellm handed an ``openai.OpenAI`` on a mock transport)."""
    agno_agent: Any = importlib.import_module("agno.agent")
    models: Any = importlib.import_module("agno.models.litellm")
    settings: dict[str, Any] = {"id": f"openai/{scenario.name}", "api_key": testing.DOCTOR_API_KEY}
    if api_base is None:
        openai: Any = importlib.import_module("openai")
        client = openai.OpenAI(**testing.served_client_settings(scenario))
        settings.update(api_base=testing.DOCTOR_BASE_URL, request_params={"client": client})
    else:
        settings.update(api_base=api_base, request_params={"max_retries": 0})
    model = models.LiteLLM(**settings)
    return agno_agent.Agent(model=model, tools=functions(scenario), telemetry=False)


def run_agent(agent: Any, prompt: str = PROMPT) -> tuple[Any, list[Any]]:
    """``Agent.run(prompt, stream=True, stream_events=True)`` read to its end: the
    ``RunOutput`` (``None`` when the run ended in an error event), and the events."""
    events = list(agent.run(prompt, stream=True, stream_events=True, yield_run_output=True))
    run = events.pop() if events and type(events[-1]).__name__ == "RunOutput" else None
    return run, events


def read(scenario: testing.Scenario, result: tuple[Any, list[Any]]) -> testing.Outcome:
    """The error event's text; else the first assistant message's calls and text."""
    run, events = result
    error = next((e for e in events if type(e).__name__ == "RunErrorEvent"), None)
    if error is not None:
        return _error_outcome(scenario, error)
    messages = getattr(run, "messages", None) or []
    message = next((m for m in messages if m.role == "assistant"), None)
    if message is None:
        return testing.Outcome(error="no model response")
    calls = tuple(
        (
            (call.get("function") or {}).get("name") or "",
            testing.parse_arguments((call.get("function") or {}).get("arguments")),
        )
        for call in message.tool_calls or []
    )
    return testing.Outcome(calls, message.content or "")


def _error_outcome(scenario: testing.Scenario, event: Any) -> testing.Outcome:
    settled = testing.settled_text(scenario, event.content)
    return settled or testing.Outcome(error=f"{event.error_type or 'error'}: {event.content}")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.run(stream=True)`` on agno's ``LiteLLM`` (litellm
    without its "Give Feedback" banner on an error)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        return testing.run_case(lambda: run_agent(agent(scenario)), lambda r: read(scenario, r))
    finally:
        litellm.suppress_debug_info = quiet


AGNO_DRIVER = testing.Driver(
    "litellm",
    "agno",
    "openai",
    "agno",
    drive,
    "Agent.run(stream=True) on agno's LiteLLM, the first assistant message (litellm wire)",
)
"""The ``agno-litellm`` column (the ``litellm`` patch: the wire)."""
