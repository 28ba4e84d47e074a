"""What the doctor's drivers of two agent SDKs share across the wires they read.

The OpenAI Agents SDK and Strands Agents each have a column on the openai wire and one on
the litellm wire (``openai-agents`` / ``openai-agents-litellm``, ``strands`` /
``strands-litellm``): only the model class differs, so the tools given to the agent, the
streamed run and the reading of its outcome live here, once. Imports no framework: each
is imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator
from typing import Any

from ._corpus import Scenario
from ._doctor import Outcome, parse_arguments
from ._served import DOCTOR_PROMPT, tool_names

__all__ = [
    "openai_agents_read",
    "openai_agents_run",
    "openai_agents_tools",
    "provider_data",
    "quiet_loggers",
    "strands_read",
    "strands_run",
    "strands_tools",
]


async def _agents_answer(context: Any, arguments: str) -> str:
    return "ok"


def openai_agents_tools(scenario: Scenario) -> list[Any]:
    """An openai-agents ``FunctionTool`` of each name the scenario's calls use, taking any
    object and answering ``"ok"``."""
    agents: Any = importlib.import_module("agents")
    return [
        agents.FunctionTool(
            name=name,
            description=name,
            params_json_schema={"type": "object", "properties": {}},
            on_invoke_tool=_agents_answer,
            strict_json_schema=False,
        )
        for name in tool_names(scenario)
    ]


async def openai_agents_run(agent: Any) -> Any:
    """``Runner.run_streamed`` (tracing off), every event read: the result, and the
    events."""
    agents: Any = importlib.import_module("agents")
    config = agents.RunConfig(tracing_disabled=True)
    result = agents.Runner.run_streamed(agent, DOCTOR_PROMPT, run_config=config)
    events = [event async for event in result.stream_events()]
    return result, events


def openai_agents_read(ran: Any) -> Outcome:
    """The first model response's calls, text, signatures and reasoning signatures."""
    result, _ = ran
    if not result.raw_responses:
        return Outcome(error="no model response")
    calls, signed, text, kept = [], [], [], []
    for item in result.raw_responses[0].output:
        if item.type == "function_call":
            calls.append((item.name, parse_arguments(item.arguments)))
            signed.append(bool(provider_data(item).get("thought_signature")))
        elif item.type == "message":
            text += [part.text for part in item.content if part.type == "output_text"]
        elif item.type == "reasoning" and item.encrypted_content:
            kept.append(item.encrypted_content)
    return Outcome(
        tuple(calls), "".join(text), signatures=tuple(signed), reasoning_signatures=tuple(kept)
    )


def provider_data(item: Any) -> dict[str, Any]:
    """An openai-agents ``function_call`` item's ``provider_data`` (where the SDK keeps a
    thought signature)."""
    data = getattr(item, "provider_data", None)
    if data is None:
        data = (getattr(item, "model_extra", None) or {}).get("provider_data")
    return data if isinstance(data, dict) else {}


def _strands_answer(tool_use: Any, **_: Any) -> dict[str, Any]:
    return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": "ok"}]}


def strands_tools(scenario: Scenario) -> list[Any]:
    """A strands ``PythonAgentTool`` of each name the scenario's calls use, taking any
    object and answering ``"ok"``."""
    module: Any = importlib.import_module("strands.tools.tools")
    schema = {"json": {"type": "object"}}
    return [
        module.PythonAgentTool(
            name, {"name": name, "description": name, "inputSchema": schema}, _strands_answer
        )
        for name in tool_names(scenario)
    ]


async def strands_run(agent: Any) -> Any:
    """``Agent.stream_async`` read to its end: the agent (its ``messages``), and the
    events."""
    events = [event async for event in agent.stream_async(DOCTOR_PROMPT)]
    return agent, events


def strands_read(ran: Any) -> Outcome:
    """The first assistant message's calls (name, input as strands parsed it, as it runs
    it) and text."""
    agent, _ = ran
    message = next((m for m in agent.messages if m["role"] == "assistant"), None)
    if message is None:
        return Outcome(error="no model response")
    calls, text = [], []
    for block in message["content"]:
        if "toolUse" in block:
            calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
        elif "text" in block:
            text.append(block["text"])
    return Outcome(tuple(calls), "".join(text))


@contextlib.contextmanager
def quiet_loggers(*names: str) -> Iterator[None]:
    """The named loggers' records kept off the doctor's output while a scenario runs (a
    handler of their own, no propagation; both restored after)."""
    loggers = [logging.getLogger(name) for name in names]
    handler = logging.NullHandler()
    kept = [(logger, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in kept:
            logger.propagate = propagate
            logger.removeHandler(handler)
