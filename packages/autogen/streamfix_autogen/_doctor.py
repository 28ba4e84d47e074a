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

import asyncio
import importlib
import json
from typing import Any

import streamfix
from streamfix import StreamFixError, testing

__all__ = ["DRIVER", "client", "create_stream", "drive", "read", "tools"]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"
PROMPT = "What is the weather in Paris, and the time?"
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
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        names.update(dict.fromkeys(call.name for call in _assembled(scenario).tool_calls))
    return [
        {"name": n, "description": n, "parameters": {"type": "object", "properties": {}}}
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


def client(scenario: testing.Scenario, **options: Any) -> Any:
    """``OpenAIChatCompletionClient`` for the scenario's model (``options``: ``base_url``,
    ``http_client``...; by default the in-process answer)."""
    module: Any = importlib.import_module("autogen_ext.models.openai")
    settings: dict[str, Any] = {
        "model": scenario.name,
        "api_key": API_KEY,
        "base_url": BASE_URL,
        "max_retries": 0,
        "model_info": MODEL_INFO,
        **options,
    }
    if "http_client" not in settings and settings["base_url"] == BASE_URL:
        http = _http()
        transport = http.MockTransport(lambda request: _answer(scenario, request))
        settings["http_client"] = http.AsyncClient(transport=transport)
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
        return testing.run_case(lambda: _settled(scenario), read)
    finally:
        if wire:
            streamfix.uninstall("openai")


def _settled(scenario: testing.Scenario) -> Any:
    """One run; the wire's documented end for a shape it cannot repair
    (``testing.UNREPAIRABLE``: I3) as what the caller gets: the right message on the
    wire's ``MalformedToolCallError``, as a ``CreateResult`` would carry it."""
    try:
        return asyncio.run(create_stream(client(scenario), scenario))
    except Exception as error:
        message = _wire_message(error)
        if scenario.shape not in testing.UNREPAIRABLE or message != _assembled(scenario):
            raise
        return [_Settled(message)]


def _wire_message(error: BaseException) -> Any:
    """The assembled message on the core's ``MalformedToolCallError`` in ``error``'s
    causes (the wire's ``APIError`` carries it as its cause), else ``None``."""
    current: BaseException | None = error
    for _ in range(8):
        if current is None:
            break
        if isinstance(current, streamfix.MalformedToolCallError):
            return getattr(current, "assembled", current.message)  # the wire's: assembled
        current = current.__cause__ or current.__context__
    return None


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return streamfix.assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


class _Call:
    def __init__(self, name: str, arguments: str) -> None:
        self.name, self.arguments = name, arguments


class _Settled:
    """The wire's assembled message read as a ``CreateResult``."""

    def __init__(self, message: Any) -> None:
        self.content = [_Call(call.name, call.arguments) for call in message.tool_calls]
        self.thought = message.content or None


DRIVER = testing.Driver(
    "autogen",
    "autogen-ext",
    "openai",
    "autogen_ext.models.openai",
    drive,
    "OpenAIChatCompletionClient.create_stream(tools=...) CreateResult (openai wire)",
)
"""What ``streamfix doctor`` runs for autogen (the ``DOCTOR`` of its patch)."""
