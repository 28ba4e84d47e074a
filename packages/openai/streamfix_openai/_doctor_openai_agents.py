"""``streamfix doctor``'s ``openai-agents`` column: the OpenAI Agents SDK's
``OpenAIChatCompletionsModel`` on the openai wire.

An ``Agent`` with a ``FunctionTool`` of each name the scenario's calls use, on
``OpenAIChatCompletionsModel`` (a real ``AsyncOpenAI``), run with ``Runner.run_streamed``
(tracing off) and its events read to the end: the tools run and the next request gets
the scenario's follow-up text. The calls are the ``function_call`` items of the first
model response (``ChatCmplStreamHandler``, which keys tool-call deltas by ``index``),
with the thought signature the SDK keeps (``provider_data["thought_signature"]``); the text
its ``message`` items; the reasoning signatures those of its ``reasoning`` item (Anthropic
``thinking_blocks``: ``encrypted_content``). The SDK has no place for ``reasoning_details``,
streamed or not: not judged. openai-agents is imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamfix import testing

__all__ = ["OPENAI_AGENTS_DRIVER", "agent", "drive", "read", "run_streamed"]

run_streamed = testing.openai_agents_run
read = testing.openai_agents_read


def agent(scenario: testing.Scenario, **options: Any) -> Any:
    """An ``Agent`` on ``OpenAIChatCompletionsModel`` for the scenario's model, with a tool
    of each name its calls use (any object accepted). ``options`` go to ``AsyncOpenAI``
    (``base_url``, ``http_client``: by default the in-process answer)."""
    openai: Any = importlib.import_module("openai")
    agents: Any = importlib.import_module("agents")
    settings = testing.served_client_settings(scenario, asynchronous=True, **options)
    model = agents.OpenAIChatCompletionsModel(
        model=scenario.name, openai_client=openai.AsyncOpenAI(**settings)
    )
    return agents.Agent(name="streamfix", model=model, tools=testing.openai_agents_tools(scenario))


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Runner.run_streamed``."""
    outcome = testing.outcome_of(scenario, lambda: run_streamed(agent(scenario)), read)
    if scenario.reasoning_details and outcome.reasoning_signatures is not None:
        # no place for reasoning_details in the SDK's items (streamed or not)
        outcome = testing.Outcome(outcome.calls, outcome.text, signatures=outcome.signatures)
    return outcome


OPENAI_AGENTS_DRIVER = testing.Driver(
    "openai",
    "openai-agents",
    "openai",
    "agents",
    drive,
    "Runner.run_streamed on OpenAIChatCompletionsModel (openai wire)",
)
"""The ``openai-agents`` column (the ``openai`` patch: the wire)."""
