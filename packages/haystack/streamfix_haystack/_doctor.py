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
import json
from typing import Any

import streamfix
from streamfix import MalformedToolCallError, StreamFixError, testing

__all__ = ["DRIVER", "drive", "generate", "generator", "read", "tools"]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"
PROMPT = "What is the weather in Paris, and the time?"


def _answer(**arguments: Any) -> str:
    return "ok"


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return streamfix.assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


def tool_names(scenario: testing.Scenario) -> list[str]:
    """The names the scenario's calls use (for a capture, those of the core's assembly)."""
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        message = _assembled(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [name for name in names if name]


def tools(scenario: testing.Scenario) -> list[Any]:
    """haystack ``Tool`` s named as the scenario's calls, each taking any object."""
    module: Any = importlib.import_module("haystack.tools")
    return [
        module.Tool(name=name, description=name, parameters={"type": "object"}, function=_answer)
        for name in tool_names(scenario)
    ]


def _http() -> Any:
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _served(scenario: testing.Scenario, request: Any) -> Any:
    http = _http()
    body = json.loads(request.content or b"{}")
    messages = body.get("messages") or []
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
        chunks: Any = testing.text_chunks(scenario.follow_up, "openai")
    else:
        chunks = testing.fresh_chunks(scenario)
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    content = "".join([*events, "data: [DONE]\n\n"]).encode()
    return http.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def generator(scenario: testing.Scenario, api_base_url: str | None = None) -> Any:
    """An ``OpenAIChatGenerator`` for the scenario's model with its tools: against
    ``api_base_url`` (the replay server: the generator's own clients) when given, else
    on an ``openai.OpenAI`` answered in-process."""
    chat: Any = importlib.import_module("haystack.components.generators.chat")
    utils: Any = importlib.import_module("haystack.utils")
    options: dict[str, Any] = {
        "api_key": utils.Secret.from_token(API_KEY),
        "model": scenario.name,
        "tools": tools(scenario),
        "max_retries": 0,
    }
    made = chat.OpenAIChatGenerator(api_base_url=api_base_url or BASE_URL, **options)
    if api_base_url is None:
        openai: Any = importlib.import_module("openai")
        transport = _http().MockTransport(lambda request: _served(scenario, request))
        made.client = openai.OpenAI(
            api_key=API_KEY,
            base_url=BASE_URL,
            max_retries=0,
            http_client=_http().Client(transport=transport),
        )
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


def _settled(scenario: testing.Scenario, error: MalformedToolCallError) -> testing.Outcome:
    """The wire's documented end for a shape it cannot repair (``testing.UNREPAIRABLE``:
    I3): the right message on its ``MalformedToolCallError``, what the caller gets."""
    message = getattr(error, "assembled", error.message)  # the wire's APIError: assembled
    if scenario.shape not in testing.UNREPAIRABLE or message != _assembled(scenario):
        return testing.failure(error)
    calls = tuple((call.name, call.parsed) for call in message.tool_calls)
    return testing.Outcome(calls, message.content or "")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``OpenAIChatGenerator.run`` with a streaming callback; with
    this patch installed, on the repaired wire."""
    installed = streamfix.installed()
    wire = "haystack" in installed and "openai" not in installed
    if wire:
        streamfix.install("openai")
    try:
        try:
            result = generate(generator(scenario))
        except MalformedToolCallError as error:
            return _settled(scenario, error)
        except Exception as error:  # what haystack raised is the outcome
            return testing.failure(error)
        return read(result)
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
