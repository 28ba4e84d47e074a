"""``streamfix doctor``'s columns for pydantic-ai's native paths for the other dialects
(wire-shapes J-M), each over real HTTP against the replay server with the provider's own
SDK client, each installing the ``pydantic_ai`` patch:

- ``pydantic_ai``: ``GoogleModel`` (a real ``google.genai.Client``), Gemini
  ``streamGenerateContent`` chunks (L): the path the patch fixes (L3's streamed arguments);
- ``pydantic-ai-anthropic``: ``AnthropicModel`` (a real ``AsyncAnthropic``), Anthropic
  Messages events (K);
- ``pydantic-ai-responses``: ``OpenAIResponsesModel`` (a real ``AsyncOpenAI``), OpenAI
  Responses events (J).

Each runs ``Agent.iter`` to its end, every model request streamed (the tools run, the next
request gets the scenario's follow-up text): the calls are the first model request's
``ModelResponse`` (``ToolCallPart`` s; the thought signature in ``provider_details``), its
text the ``TextPart`` s, its reasoning signatures those of its ``ThinkingPart`` s; what the
run raises is the outcome. A cut call (E4) is in that response as a ``ToolCallPart`` with
the cut arguments (``finish_reason`` ``length``): the agent sends the validation error
back as a retry (``IncompleteToolCall`` only once the retries are spent), and the doctor
counts the cut call handed on. pydantic-ai is imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamfix import testing
from streamfix.testing import aclose, native_outcome, native_server, tool_names

__all__ = [
    "DRIVER",
    "PYDANTIC_AI_ANTHROPIC_DRIVER",
    "PYDANTIC_AI_RESPONSES_DRIVER",
    "pydantic_ai_agent",
    "pydantic_ai_run",
]

PROMPT = testing.DOCTOR_PROMPT
API_KEY = "sk-streamfix-doctor"


def _pydantic_ai_model(scenario: testing.Scenario, clients: list[Any]) -> Any:
    url = native_server().url
    if scenario.dialect == "anthropic":
        anthropic: Any = importlib.import_module("anthropic")
        models: Any = importlib.import_module("pydantic_ai.models.anthropic")
        providers: Any = importlib.import_module("pydantic_ai.providers.anthropic")
        client = anthropic.AsyncAnthropic(base_url=url, api_key=API_KEY, max_retries=0)
        clients.append(client)
        provider = providers.AnthropicProvider(anthropic_client=client)
        return models.AnthropicModel(scenario.name, provider=provider)
    if scenario.dialect == "gemini":
        genai: Any = importlib.import_module("google.genai")
        models = importlib.import_module("pydantic_ai.models.google")
        providers = importlib.import_module("pydantic_ai.providers.google")
        options = genai.types.HttpOptions(base_url=url)
        client = genai.Client(api_key=API_KEY, http_options=options)
        clients.append(client)
        return models.GoogleModel(scenario.name, provider=providers.GoogleProvider(client=client))
    openai: Any = importlib.import_module("openai")
    models = importlib.import_module("pydantic_ai.models.openai")
    providers = importlib.import_module("pydantic_ai.providers.openai")
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=API_KEY, max_retries=0)
    clients.append(client)
    provider = providers.OpenAIProvider(openai_client=client)
    return models.OpenAIResponsesModel(scenario.name, provider=provider)


def _ok(**arguments: Any) -> str:
    return "ok"


def pydantic_ai_agent(scenario: testing.Scenario, clients: list[Any]) -> Any:
    """An ``Agent`` on the scenario's dialect's native model (``AnthropicModel``,
    ``GoogleModel``, ``OpenAIResponsesModel``) pointed at the server, with a tool of each
    name its calls use (any object accepted); the SDK client it made is added to
    ``clients``."""
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    tools = [
        pydantic_ai.Tool.from_schema(_ok, name, name, {"type": "object"})
        for name in tool_names(scenario)
    ]
    return pydantic_ai.Agent(_pydantic_ai_model(scenario, clients), tools=tools)


async def pydantic_ai_run(scenario: testing.Scenario) -> Any:
    """:func:`pydantic_ai_agent` run with ``Agent.iter`` to its end, every model request
    streamed (the server streams only): the first request's ``ModelResponse``. What the
    run raises is raised."""
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    clients: list[Any] = []
    first = None
    try:
        async with pydantic_ai_agent(scenario, clients).iter(PROMPT) as run:
            node = run.next_node
            while not pydantic_ai.Agent.is_end_node(node):
                if pydantic_ai.Agent.is_model_request_node(node):
                    async with node.stream(run.ctx) as stream:
                        async for _ in stream:
                            pass
                    first = stream.response if first is None else first
                node = await run.next(node)
    finally:
        for client in clients:
            await aclose(client)
    return first


def _pydantic_ai_read(response: Any) -> testing.Outcome:
    calls, signed, text, kept = [], [], [], []
    for part in response.parts:
        if part.part_kind == "tool-call":
            calls.append((part.tool_name, testing.parse_arguments(part.args)))
            details = getattr(part, "provider_details", None) or {}
            signed.append(bool(details.get("thought_signature")))
        elif part.part_kind == "text":
            text.append(part.content)
        elif part.part_kind == "thinking" and part.signature:
            kept.append(part.signature)
    return testing.Outcome(
        tuple(calls), "".join(text), signatures=tuple(signed), reasoning_signatures=tuple(kept)
    )


def _pydantic_ai_drive(scenario: testing.Scenario) -> testing.Outcome:
    return native_outcome(lambda: pydantic_ai_run(scenario), _pydantic_ai_read)


PYDANTIC_AI_ANTHROPIC_DRIVER = testing.Driver(
    "pydantic_ai",
    "pydantic-ai-slim",
    "anthropic",
    "pydantic_ai.models.anthropic",
    _pydantic_ai_drive,
    "Agent.iter on AnthropicModel over HTTP (Anthropic Messages, native)",
)
DRIVER = testing.Driver(
    "pydantic_ai",
    "pydantic-ai-slim",
    "gemini",
    "pydantic_ai.models.google",
    _pydantic_ai_drive,
    "Agent.iter on GoogleModel over HTTP (Gemini streamGenerateContent, native)",
)
PYDANTIC_AI_RESPONSES_DRIVER = testing.Driver(
    "pydantic_ai",
    "pydantic-ai-slim",
    "responses",
    "pydantic_ai",
    _pydantic_ai_drive,
    "Agent.iter on OpenAIResponsesModel over HTTP (OpenAI Responses, native)",
)
