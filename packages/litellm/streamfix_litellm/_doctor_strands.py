"""``streamfix doctor``'s ``strands-litellm`` column: the Strands Agents SDK's
``LiteLLMModel`` (``strands.models.litellm``) on the litellm wire.

An ``Agent`` with a tool of each name the scenario's calls use (any object accepted), on
``LiteLLMModel`` (``openai/<scenario>``: litellm's OpenAI-compatible provider), run with
``Agent.stream_async`` and its events read to the end: the tools run and the next request
gets the scenario's follow-up text. ``LiteLLMModel._handle_streaming_response`` reads
``litellm.acompletion(stream=True)`` (litellm's ``CustomStreamWrapper``, which the wire
repairs), keys tool-call deltas by ``index`` (name and id those of the index's first delta,
an id generated when it has none, the arguments joined) and stops reading at the first
``finish_reason``; the event loop parses each call's arguments when its block ends (``{}``
when they are not JSON). The calls are the ``toolUse`` blocks of the first assistant
message (name, input, ``toolUseId``), the text its ``text`` blocks; strands keeps no thought
signature and no reasoning metadata from litellm, streamed or not: neither is judged.

litellm is given a real ``openai.AsyncOpenAI`` (its ``client`` argument) whose transport
answers in-process with the scenario as SSE, as the replay server does. strands and
litellm are imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from streamfix import testing

__all__ = [
    "STRANDS_DRIVER",
    "agent",
    "drive",
    "openai_client",
    "read",
    "run_streamed",
]

PROMPT = testing.DOCTOR_PROMPT


def openai_client(scenario: testing.Scenario) -> Any:
    """An ``openai.AsyncOpenAI`` answering every request in-process with the scenario."""
    openai: Any = importlib.import_module("openai")
    return openai.AsyncOpenAI(**testing.served_client_settings(scenario, asynchronous=True))


def _done(tool_use: Any, **_: Any) -> dict[str, Any]:
    return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": "ok"}]}


def agent(scenario: testing.Scenario, **client_args: Any) -> Any:
    """An ``Agent`` on ``LiteLLMModel`` (``openai/<scenario>``, no console output), with a
    tool of each name the scenario's calls use. ``client_args`` go to litellm
    (``api_base``...; by default the in-process client)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    strands: Any = importlib.import_module("strands")
    models: Any = importlib.import_module("strands.models.litellm")
    tools: Any = importlib.import_module("strands.tools.tools")
    settings = {"api_key": testing.DOCTOR_API_KEY, **client_args}
    if "api_base" not in settings:
        settings["client"] = openai_client(scenario)
    model = models.LiteLLMModel(client_args=settings, model_id=f"openai/{scenario.name}")
    schema = {"json": {"type": "object"}}
    declared = [
        tools.PythonAgentTool(n, {"name": n, "description": n, "inputSchema": schema}, _done)
        for n in testing.tool_names(scenario)
    ]
    return strands.Agent(model=model, tools=declared, callback_handler=None)


async def run_streamed(agent: Any) -> Any:
    """``Agent.stream_async`` read to its end: the agent (its ``messages``), and the
    events."""
    events = [event async for event in agent.stream_async(PROMPT)]
    return agent, events


def read(ran: Any) -> testing.Outcome:
    """The first assistant message's calls (name, input as strands parsed it) and text."""
    agent, _ = ran
    message = next((m for m in agent.messages if m["role"] == "assistant"), None)
    if message is None:
        return testing.Outcome(error="no model response")
    calls, text = [], []
    for block in message["content"]:
        if "toolUse" in block:
            calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
        elif "text" in block:
            text.append(block["text"])
    return testing.Outcome(tuple(calls), "".join(text))


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """strands' and litellm's warnings kept off the doctor's output while a scenario
    runs (a handler of their own, removed after); litellm without its banner."""
    litellm: Any = importlib.import_module("litellm")
    loggers = [logging.getLogger(name) for name in ("strands", "LiteLLM")]
    handler = logging.NullHandler()
    kept = [(logger, logger.propagate) for logger in loggers]
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        litellm.suppress_debug_info = quiet
        for logger, propagate in kept:
            logger.propagate = propagate
            logger.removeHandler(handler)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.stream_async`` on ``LiteLLMModel``."""
    with _quiet():
        return testing.outcome_of(scenario, lambda: run_streamed(agent(scenario)), read)


STRANDS_DRIVER = testing.Driver(
    "litellm",
    "strands-agents",
    "openai",
    "strands",
    drive,
    "Agent.stream_async on LiteLLMModel (litellm wire)",
)
"""The ``strands-litellm`` column (the ``litellm`` patch: the wire)."""
