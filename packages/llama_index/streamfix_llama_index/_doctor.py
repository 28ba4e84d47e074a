"""``streamfix doctor``'s ``llama_index`` column: llama-index's ``OpenAI`` LLM
(``llama_index.llms.openai``) on the openai wire.

``OpenAI(...).stream_chat(messages, tools=...)`` (the SDK's
``chat.completions.create(stream=True)``, tool-call deltas accumulated by
``update_tool_calls``) read to its last ``ChatResponse``, then
``get_tool_calls_from_response`` on it: the calls an agent runs. Patched is what a user
installs: the openai wire and this shim (``streamfix.install("openai", "llama_index")``):
the driver installs the wire for a run whenever this patch is installed. The client is a
real ``openai.OpenAI`` whose transport answers in-process with the scenario as SSE (as
the replay server does). llama-index keeps no thought signature and no reasoning
metadata: neither is judged. llama-index is imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

import streamfix
from streamfix import testing

__all__ = ["DRIVER", "drive", "llm", "read", "stream_chat"]

PROMPT = testing.DOCTOR_PROMPT


def tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """OpenAI function tools named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    return testing.declared_tools(scenario, parameters={})


def llm(scenario: testing.Scenario, **options: Any) -> Any:
    """llama-index's ``OpenAI`` for the scenario (``options``: ``api_base``,
    ``http_client``...; by default the in-process answer)."""
    module: Any = importlib.import_module("llama_index.llms.openai")
    settings = {"model": "gpt-4o", "api_key": testing.DOCTOR_API_KEY, "max_retries": 0}
    settings.update({"api_base": testing.DOCTOR_BASE_URL, **options})
    if "http_client" not in settings and settings["api_base"] == testing.DOCTOR_BASE_URL:
        settings["http_client"] = testing.served_http_client(scenario)
    return module.OpenAI(**settings)


def stream_chat(model: Any, scenario: testing.Scenario) -> Any:
    """``stream_chat`` with the scenario's tools (its name as the request's model), read
    to the end: the last ``ChatResponse``, and the calls ``get_tool_calls_from_response``
    gives for it."""
    chat: Any = importlib.import_module("llama_index.core.llms")
    messages = [chat.ChatMessage(role="user", content=PROMPT)]
    responses = list(model.stream_chat(messages, tools=tools(scenario), model=scenario.name))
    last = responses[-1] if responses else None
    if last is None:
        return None, []
    return last, model.get_tool_calls_from_response(last, error_on_no_tool_call=False)


def read(result: Any) -> testing.Outcome:
    """The selected calls (name, arguments) and the response's text."""
    last, selections = result
    if last is None:
        return testing.Outcome(error="no response")
    calls = tuple((s.tool_name, s.tool_kwargs) for s in selections)
    return testing.Outcome(calls, last.message.content or "")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``stream_chat`` and ``get_tool_calls_from_response``; with
    this patch installed, on the repaired wire."""
    wire = "llama_index" in streamfix.installed() and "openai" not in streamfix.installed()
    if wire:
        streamfix.install("openai")
    try:
        return testing.outcome_of(scenario, lambda: stream_chat(llm(scenario), scenario), read)
    finally:
        if wire:
            streamfix.uninstall("openai")


DRIVER = testing.Driver(
    "llama_index",
    "llama-index-llms-openai",
    "openai",
    "llama_index.llms.openai",
    drive,
    "OpenAI.stream_chat(tools=...) + get_tool_calls_from_response (openai wire)",
)
"""What ``streamfix doctor`` runs for llama-index (the ``DOCTOR`` of its patch)."""
