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
import json
from typing import Any

import streamfix
from streamfix import MalformedToolCallError, StreamFixError, testing

__all__ = ["DRIVER", "drive", "llm", "read", "stream_chat"]

BASE_URL = "http://streamfix.test/v1"
PROMPT = "What is the weather in Paris, and the time?"


def tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """OpenAI function tools named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        names.update(dict.fromkeys(call.name for call in _assembled(scenario).tool_calls))
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": {}}}
        for n in names
        if n
    ]


def _http() -> Any:
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _answer(scenario: testing.Scenario, request: Any) -> Any:
    http = _http()
    body = json.loads(request.content or b"{}")
    if any(m.get("role") == "tool" for m in body.get("messages") or [] if isinstance(m, dict)):
        chunks: Any = testing.text_chunks(scenario.follow_up, "openai")
    else:
        chunks = testing.fresh_chunks(scenario)
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    content = "".join([*events, "data: [DONE]\n\n"]).encode()
    return http.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def llm(scenario: testing.Scenario, **options: Any) -> Any:
    """llama-index's ``OpenAI`` for the scenario (``options``: ``api_base``,
    ``http_client``...; by default the in-process answer)."""
    module: Any = importlib.import_module("llama_index.llms.openai")
    settings = {"model": "gpt-4o", "api_key": "sk-streamfix-doctor", "max_retries": 0}
    settings.update({"api_base": BASE_URL, **options})
    if "http_client" not in settings and settings["api_base"] == BASE_URL:
        http = _http()
        transport = http.MockTransport(lambda request: _answer(scenario, request))
        settings["http_client"] = http.Client(transport=transport)
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
        return testing.run_case(
            lambda: _settled(scenario, lambda: stream_chat(llm(scenario), scenario)), read
        )
    finally:
        if wire:
            streamfix.uninstall("openai")


def _settled(scenario: testing.Scenario, run: Any) -> Any:
    """``run()``; the wire's documented end for a shape it cannot repair
    (``testing.UNREPAIRABLE``: I3) as what the caller gets, the right message on the
    wire's ``MalformedToolCallError``."""
    try:
        return run()
    except MalformedToolCallError as error:
        message = getattr(error, "assembled", error.message)  # the wire's APIError: assembled
        if (
            scenario.shape not in testing.UNREPAIRABLE
            or message is None
            or message != _assembled(scenario)
        ):
            raise
        calls = [_Selection(call.name, call.parsed) for call in message.tool_calls]
        return _Settled(message), calls


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return streamfix.assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


class _Selection:
    def __init__(self, name: str, arguments: Any) -> None:
        self.tool_name, self.tool_kwargs = name, arguments


class _Settled:
    def __init__(self, message: Any) -> None:
        self.message = type("Message", (), {"content": message.content or ""})()


DRIVER = testing.Driver(
    "llama_index",
    "llama-index-llms-openai",
    "openai",
    "llama_index.llms.openai",
    drive,
    "OpenAI.stream_chat(tools=...) + get_tool_calls_from_response (openai wire)",
)
"""What ``streamfix doctor`` runs for llama-index (the ``DOCTOR`` of its patch)."""
