"""``streamfix doctor``'s ``pydantic-ai`` column: pydantic-ai's ``OpenAIChatModel`` on the
openai wire.

An ``Agent`` with the scenario's tools on ``OpenAIChatModel`` (its provider given a real
``AsyncOpenAI``), run with ``Agent.iter``: the first model request's stream
(``node.stream(ctx)``: ``OpenAIStreamedResponse``, whose parts manager keys tool-call
deltas by ``index``) read to its end, then its ``ModelResponse``: the calls are its
``ToolCallPart`` s (name, arguments, id; the thought signature as pydantic-ai keeps it, in
``provider_details["extra_content"]``), the text its ``TextPart`` s. ``OpenAIChatModel``
keeps the reasoning text (``ThinkingPart``) but no reasoning metadata (``reasoning_details``,
``thinking_blocks``), streamed or not: not judged. pydantic-ai is imported when a scenario
is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamfix import testing

__all__ = ["PYDANTIC_AI_DRIVER", "agent", "drive", "first_response", "read"]

PROMPT = testing.DOCTOR_PROMPT


def _answer(**arguments: Any) -> str:
    return "ok"


def agent(scenario: testing.Scenario, **options: Any) -> Any:
    """An ``Agent`` on ``OpenAIChatModel`` for the scenario's model, with a tool of each
    name its calls use (any object accepted). ``options`` go to ``AsyncOpenAI``
    (``base_url``, ``http_client``: by default the in-process answer)."""
    openai: Any = importlib.import_module("openai")
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    models: Any = importlib.import_module("pydantic_ai.models.openai")
    providers: Any = importlib.import_module("pydantic_ai.providers.openai")
    settings = testing.served_client_settings(scenario, asynchronous=True, **options)
    client = openai.AsyncOpenAI(**settings)
    model = models.OpenAIChatModel(
        scenario.name, provider=providers.OpenAIProvider(openai_client=client)
    )
    tools = [
        pydantic_ai.Tool.from_schema(_answer, name, name, {"type": "object"})
        for name in testing.tool_names(scenario)
    ]
    return pydantic_ai.Agent(model, tools=tools)


async def first_response(agent: Any) -> Any:
    """``Agent.iter``'s first model request streamed to its end: its ``ModelResponse``
    and the events it streamed."""
    pydantic_ai: Any = importlib.import_module("pydantic_ai")
    events: list[Any] = []
    async with agent.iter(PROMPT) as run:
        async for node in run:
            if pydantic_ai.Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    events.extend([event async for event in stream])
                return stream.response, events
    return None, events  # pragma: no cover - every run makes a model request


def read(result: Any) -> testing.Outcome:
    """The ``ModelResponse``'s calls (name, parsed arguments), text and signatures."""
    response, _ = result
    calls = []
    signed = []
    text = []
    for part in response.parts:
        if part.part_kind == "tool-call":
            calls.append((part.tool_name, testing.parse_arguments(part.args)))
            signed.append(bool(_signature(part)))
        elif part.part_kind == "text":
            text.append(part.content)
    return testing.Outcome(tuple(calls), "".join(text), signatures=tuple(signed))


def _signature(part: Any) -> Any:
    extra = (getattr(part, "provider_details", None) or {}).get("extra_content") or {}
    return (extra.get("google") or {}).get("thought_signature")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through an ``Agent``'s first streamed model request."""
    return testing.outcome_of(scenario, lambda: first_response(agent(scenario)), read)


PYDANTIC_AI_DRIVER = testing.Driver(
    "openai",
    "pydantic-ai-slim",
    "openai",
    "pydantic_ai",
    drive,
    "Agent.iter on OpenAIChatModel, the streamed ModelResponse (openai wire)",
)
"""The ``pydantic-ai`` column (the ``openai`` patch: the wire)."""
