"""``streamfix doctor``'s ``langchain`` column: langchain-openai's ``ChatOpenAI`` on the
openai wire.

``ChatOpenAI(...).bind_tools(tools).stream(...)`` (``ChatOpenAI._stream``: the SDK's
``chat.completions.create(stream=True)``, each chunk turned into an ``AIMessageChunk``
with ``tool_call_chunks`` keyed by ``index``), the chunks summed as a user sums them; the
calls are the sum's ``.tool_calls`` (what an agent runs), then its ``.invalid_tool_calls``.
ChatOpenAI's chat-completions path keeps no thought signature (``extra_content``) and no
reasoning metadata, streamed or not: neither is judged. langchain is imported when a
scenario is driven.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamfix import testing

__all__ = ["LANGCHAIN_DRIVER", "chat_model", "drive", "read", "summed"]


def chat_model(scenario: testing.Scenario, **options: Any) -> Any:
    """``ChatOpenAI`` for the scenario's model with its tools bound (``options``: the
    client's, ``base_url`` and ``http_client`` by default the in-process answer)."""
    module: Any = importlib.import_module("langchain_openai")
    settings = {"model": scenario.name, **testing.served_client_settings(scenario, **options)}
    return module.ChatOpenAI(**settings).bind_tools(testing.declared_tools(scenario))


def summed(model: Any) -> Any:
    """Every chunk of ``model.stream(...)``, summed (``None`` for no chunk)."""
    total = None
    for chunk in model.stream("What is the weather in Paris, and the time?"):
        total = chunk if total is None else total + chunk
    return total


def read(message: Any) -> testing.Outcome:
    """The summed ``AIMessageChunk``: its ``tool_calls`` then its ``invalid_tool_calls``
    (the raw text), and its text."""
    if message is None:
        return testing.Outcome(error="no chunk")
    calls = [(call["name"], call["args"]) for call in message.tool_calls]
    calls += [(call.get("name") or "", call.get("args")) for call in message.invalid_tool_calls]
    text = message.content if isinstance(message.content, str) else str(message.content)
    return testing.Outcome(tuple(calls), text)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``ChatOpenAI.bind_tools(...).stream()``, summed."""
    return testing.outcome_of(scenario, lambda: summed(chat_model(scenario)), read)


LANGCHAIN_DRIVER = testing.Driver(
    "openai",
    "langchain-openai",
    "openai",
    "langchain_openai",
    drive,
    "ChatOpenAI.bind_tools().stream() summed (openai wire)",
)
"""The ``langchain`` column (the ``openai`` patch: the wire)."""
