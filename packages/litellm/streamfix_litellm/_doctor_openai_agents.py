"""``streamfix doctor``'s ``openai-agents-litellm`` column: the OpenAI Agents SDK's
``LitellmModel`` (``agents.extensions.models.litellm_model``, the ``openai-agents[litellm]``
extra) on the litellm wire.

An ``Agent`` with a ``FunctionTool`` of each name the scenario's calls use, on
``LitellmModel("openai/<scenario>")``, run with ``Runner.run_streamed`` (tracing off) and
its events read to the end: the tools run and the next request gets the scenario's
follow-up text. ``LitellmModel`` streams through ``litellm.acompletion`` (litellm's
``CustomStreamWrapper``, which the litellm patch repairs) and reads the chunks with the
SDK's ``ChatCmplStreamHandler`` (tool-call deltas keyed by ``index``). The calls are the
``function_call`` items of the first model response, with the thought signature the SDK
keeps (``provider_data["thought_signature"]``); the text its ``message`` items; the
reasoning signatures those of its ``reasoning`` item (Anthropic ``thinking_blocks``). The
SDK has no place for ``reasoning_details``, streamed or not: not judged.

The scenario is answered in-process: litellm's shared HTTP session
(``litellm.aclient_session``, which litellm hands to the openai SDK client it builds) is,
for the run, an ``httpx`` client whose ``MockTransport`` answers as the replay server does
(the scenario's chunks as SSE events, its ``follow_up`` once the request carries a tool
result). No socket, no server, no key. openai-agents and litellm are imported when a
scenario is driven.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from streamfix import testing

__all__ = ["OPENAI_AGENTS_LITELLM_DRIVER", "agent", "drive", "read", "run_streamed"]


class _Served:
    """The scenario the in-process session answers with (one session for every run:
    litellm caches the openai client it builds around it)."""

    scenario: testing.Scenario | None = None
    session: Any = None


def _answer(request: Any) -> Any:
    httpx: Any = importlib.import_module("httpx")
    scenario = _Served.scenario
    if scenario is None:  # pragma: no cover - only while a scenario is driven
        return httpx.Response(503, json={"error": {"message": "no scenario served"}})
    return testing.served_response(scenario, request, httpx)


def _session() -> Any:
    if _Served.session is None:
        httpx: Any = importlib.import_module("httpx")
        _Served.session = httpx.AsyncClient(transport=httpx.MockTransport(_answer))
    return _Served.session


run_streamed = testing.openai_agents_run
read = testing.openai_agents_read
provider_data = testing.provider_data


def agent(scenario: testing.Scenario, **options: Any) -> Any:
    """An ``Agent`` on ``LitellmModel("openai/<scenario>")`` with a tool of each name its
    calls use (any object accepted). ``options`` go to ``LitellmModel`` (``base_url``,
    ``api_key``: by default the in-process answer's)."""
    agents: Any = importlib.import_module("agents")
    extension: Any = importlib.import_module("agents.extensions.models.litellm_model")
    settings = {"base_url": testing.DOCTOR_BASE_URL, "api_key": testing.DOCTOR_API_KEY, **options}
    model = extension.LitellmModel(model=f"openai/{scenario.name}", **settings)
    return agents.Agent(name="streamfix", model=model, tools=testing.openai_agents_tools(scenario))


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Runner.run_streamed`` on ``LitellmModel``."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    session, quiet = litellm.aclient_session, litellm.suppress_debug_info
    litellm.aclient_session, litellm.suppress_debug_info = _session(), True
    _Served.scenario = scenario
    try:
        import asyncio  # only once a scenario is driven

        ran = asyncio.run(run_streamed(agent(scenario)))
    except Exception as error:  # what the framework raised is the outcome
        return testing.raised(scenario, error)
    finally:
        litellm.aclient_session, litellm.suppress_debug_info = session, quiet
        _Served.scenario = None
    outcome = read(ran)
    if scenario.reasoning_details and outcome.reasoning_signatures is not None:
        # no place for reasoning_details in the SDK's items (streamed or not)
        outcome = testing.Outcome(outcome.calls, outcome.text, signatures=outcome.signatures)
    return outcome


OPENAI_AGENTS_LITELLM_DRIVER = testing.Driver(
    "litellm",
    "openai-agents",
    "openai",
    "agents",
    drive,
    "Runner.run_streamed on LitellmModel (litellm wire)",
)
"""The ``openai-agents-litellm`` column (the ``litellm`` patch: the wire)."""
