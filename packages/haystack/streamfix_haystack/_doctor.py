"""``streamfix doctor``'s ``haystack`` column: haystack's ``OpenAIChatGenerator`` on the
openai wire.

``OpenAIChatGenerator(...).run(messages, streaming_callback=...)`` with the scenario's
tools: each ``ChatCompletionChunk`` of the SDK's ``chat.completions.create(stream=True)``
becomes a ``StreamingChunk`` (its tool-call entries ``ToolCallDelta`` s) handed to the
callback, then ``_convert_streaming_chunks_to_chat_message`` joins them by ``index``
(names and arguments appended) and parses each call's arguments, skipping with a warning
a call whose JSON does not parse. The calls are the reply's ``tool_calls`` (name,
arguments, id), the text its ``text``. Patched is what a user installs: the openai wire
and this shim (``streamfix.install("openai", "haystack")``): the driver installs the wire
for a run whenever this patch is installed. The client is a real ``openai.OpenAI`` whose
transport answers in-process with the scenario as SSE (as the replay server does).
haystack keeps no thought signature and no reasoning metadata on streamed
chat-completions calls: neither is judged. haystack is imported when a scenario is
driven.
"""

from __future__ import annotations

import importlib
from typing import Any

import streamfix
from streamfix import testing

__all__ = ["DRIVER", "drive", "generate", "generator", "read", "tools"]

PROMPT = testing.DOCTOR_PROMPT


def _answer(**arguments: Any) -> str:
    return "ok"


def tools(scenario: testing.Scenario) -> list[Any]:
    """haystack ``Tool`` s named as the scenario's calls, each taking any object."""
    module: Any = importlib.import_module("haystack.tools")
    return [
        module.Tool(name=name, description=name, parameters={"type": "object"}, function=_answer)
        for name in testing.tool_names(scenario)
    ]


def generator(scenario: testing.Scenario, api_base_url: str | None = None) -> Any:
    """An ``OpenAIChatGenerator`` for the scenario's model with its tools: against
    ``api_base_url`` (the replay server: the generator's own clients) when given, else
    on an ``openai.OpenAI`` answered in-process."""
    chat: Any = importlib.import_module("haystack.components.generators.chat")
    utils: Any = importlib.import_module("haystack.utils")
    options: dict[str, Any] = {
        "api_key": utils.Secret.from_token(testing.DOCTOR_API_KEY),
        "model": scenario.name,
        "tools": tools(scenario),
        "max_retries": 0,
    }
    made = chat.OpenAIChatGenerator(api_base_url=api_base_url or testing.DOCTOR_BASE_URL, **options)
    if api_base_url is None:
        openai: Any = importlib.import_module("openai")
        made.client = openai.OpenAI(**testing.served_client_settings(scenario))
    return made


def generate(generator: Any, prompt: str = PROMPT) -> tuple[Any, list[Any]]:
    """``run([user message], streaming_callback=...)``: the reply, and the
    ``StreamingChunk`` s the callback got, in order."""
    dataclasses: Any = importlib.import_module("haystack.dataclasses")
    chunks: list[Any] = []
    result = generator.run(
        [dataclasses.ChatMessage.from_user(prompt)], streaming_callback=chunks.append
    )
    return result["replies"][0], chunks


def read(result: tuple[Any, list[Any]]) -> testing.Outcome:
    """The reply's calls (name, arguments) and text."""
    reply, _ = result
    calls = tuple((call.tool_name, call.arguments) for call in reply.tool_calls)
    return testing.Outcome(calls, reply.text or "")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``OpenAIChatGenerator.run`` with a streaming callback; with
    this patch installed, on the repaired wire."""
    installed = streamfix.installed()
    wire = "haystack" in installed and "openai" not in installed
    if wire:
        streamfix.install("openai")
    try:
        return testing.outcome_of(scenario, lambda: generate(generator(scenario)), read)
    finally:
        if wire:
            streamfix.uninstall("openai")


DRIVER = testing.Driver(
    "haystack",
    "haystack-ai",
    "openai",
    "haystack",
    drive,
    "OpenAIChatGenerator(streaming_callback=...), the reply's tool_calls (openai wire)",
)
"""What ``streamfix doctor`` runs for haystack (the ``DOCTOR`` of its patch)."""
