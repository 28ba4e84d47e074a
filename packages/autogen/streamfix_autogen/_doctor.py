"""``streamfix doctor``'s ``autogen`` column: autogen-ext's ``OpenAIChatCompletionClient``
on the openai wire.

``OpenAIChatCompletionClient(...).create_stream(messages, tools=...)`` (the SDK's
``chat.completions.create(stream=True)``, tool-call deltas accumulated by ``index``, names
and ids concatenated) read to its end: the ``str`` chunks it yields, then the
``CreateResult``. The calls are the result's ``content`` when it is a list of
``FunctionCall`` (name, arguments as autogen hands them to the tool: parsed here), the
text its ``thought`` (the text beside calls) or its ``content`` when it is a string.
Patched is what a user installs: the openai wire and this shim
(``streamfix.install("openai", "autogen")``): the driver installs the wire for a run
whenever this patch is installed. The client is a real ``openai.AsyncOpenAI`` whose
transport answers in-process with the scenario as SSE (as the replay server does).
autogen keeps no thought signature and no reasoning metadata on a ``FunctionCall``
(``reasoning_content`` becomes ``<think>`` text chunks): neither is judged. autogen is
imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

import streamfix
from streamfix import testing

__all__ = ["DRIVER", "client", "create_stream", "drive", "read", "tools"]

PROMPT = testing.DOCTOR_PROMPT
#: What autogen needs to be told of a model it does not know (every scenario's name).
MODEL_INFO = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


def tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """autogen ``ToolSchema`` s named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    parameters = {"type": "object", "properties": {}}
    return [
        {"name": n, "description": n, "parameters": parameters}
        for n in testing.tool_names(scenario)
    ]


def client(scenario: testing.Scenario, **options: Any) -> Any:
    """``OpenAIChatCompletionClient`` for the scenario's model (``options``: ``base_url``,
    ``http_client``...; by default the in-process answer)."""
    module: Any = importlib.import_module("autogen_ext.models.openai")
    served = testing.served_client_settings(scenario, asynchronous=True, **options)
    settings = {"model": scenario.name, "model_info": MODEL_INFO, **served}
    return module.OpenAIChatCompletionClient(**settings)


async def create_stream(model: Any, scenario: testing.Scenario) -> list[Any]:
    """Everything ``create_stream`` yields for the scenario's tools: the ``str`` chunks,
    then the ``CreateResult``; the client closed after (on the loop it ran on)."""
    models: Any = importlib.import_module("autogen_core.models")
    messages = [models.UserMessage(content=PROMPT, source="user")]
    try:
        return [item async for item in model.create_stream(messages, tools=tools(scenario))]
    finally:
        await model.close()


def read(items: Any) -> testing.Outcome:
    """The ``CreateResult``'s calls (name, parsed arguments) and text."""
    result = items[-1] if items else None
    if result is None or isinstance(result, str):
        return testing.Outcome(error="no CreateResult")
    if isinstance(result.content, str):
        return testing.Outcome((), result.content)
    calls = tuple((c.name, testing.parse_arguments(c.arguments)) for c in result.content)
    return testing.Outcome(calls, result.thought or "")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``create_stream``; with this patch installed, on the repaired
    wire."""
    wire = "autogen" in streamfix.installed() and "openai" not in streamfix.installed()
    if wire:
        streamfix.install("openai")
    try:
        return testing.outcome_of(scenario, lambda: create_stream(client(scenario), scenario), read)
    finally:
        if wire:
            streamfix.uninstall("openai")


DRIVER = testing.Driver(
    "autogen",
    "autogen-ext",
    "openai",
    "autogen_ext.models.openai",
    drive,
    "OpenAIChatCompletionClient.create_stream(tools=...) CreateResult (openai wire)",
)
"""What ``streamfix doctor`` runs for autogen (the ``DOCTOR`` of its patch)."""
