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

PROMPT = testing.DOCTOR_PROMPT


async def _answer(context: Any, arguments: str) -> str:
    return "ok"


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
    tools = [
        agents.FunctionTool(
            name=name,
            description=name,
            params_json_schema={"type": "object", "properties": {}},
            on_invoke_tool=_answer,
            strict_json_schema=False,
        )
        for name in testing.tool_names(scenario)
    ]
    return agents.Agent(name="streamfix", model=model, tools=tools)


async def run_streamed(agent: Any) -> Any:
    """``Runner.run_streamed`` (tracing off), every event read: the result, and the
    events."""
    agents: Any = importlib.import_module("agents")
    config = agents.RunConfig(tracing_disabled=True)
    result = agents.Runner.run_streamed(agent, PROMPT, run_config=config)
    events = [event async for event in result.stream_events()]
    return result, events


def read(ran: Any) -> testing.Outcome:
    """The first model response's calls, text, signatures and reasoning signatures."""
    result, _ = ran
    if not result.raw_responses:
        return testing.Outcome(error="no model response")
    calls, signed, text, kept = [], [], [], []
    for item in result.raw_responses[0].output:
        if item.type == "function_call":
            calls.append((item.name, testing.parse_arguments(item.arguments)))
            signed.append(bool(_provider_data(item).get("thought_signature")))
        elif item.type == "message":
            text += [part.text for part in item.content if part.type == "output_text"]
        elif item.type == "reasoning" and item.encrypted_content:
            kept.append(item.encrypted_content)
    return testing.Outcome(
        tuple(calls), "".join(text), signatures=tuple(signed), reasoning_signatures=tuple(kept)
    )


def _provider_data(item: Any) -> dict[str, Any]:
    data = getattr(item, "provider_data", None)
    if data is None:
        data = (getattr(item, "model_extra", None) or {}).get("provider_data")
    return data if isinstance(data, dict) else {}


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
