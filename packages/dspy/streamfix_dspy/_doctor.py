"""``streamfix doctor``'s ``dspy`` column: DSPy's streaming path on the litellm wire.

A dspy program streamed with ``dspy.streamify``, whose LM is ``dspy.LM("openai/<model>",
engine="litellm")`` called with the scenario's tools (native function calling): DSPy's
compatibility engine streams ``litellm.acompletion(stream=True)``, hands each chunk to the
program's stream, then builds the response with ``litellm.stream_chunk_builder(chunks)``
(``dspy.clients.lm._get_stream_completion_fn``); the LM's output is that message's text
and ``tool_calls``. The calls are read as DSPy's adapter hands them to a ``dspy.ToolCalls``
output field (``_provider_tool_call_to_tool_call_dict``: the arguments parsed leniently
with ``json_repair``; ``ToolCalls.from_dict_list``), the text as the LM's output text.
Patched is what a user installs: the litellm wire and this shim
(``streamfix.install("litellm", "dspy")``): the driver installs the wire for a run
whenever this patch is installed.

``engine="litellm"`` is what reaches litellm: DSPy 3.4's default engine (``"auto"``) sends
an ``openai/`` model with only ``api_key`` / ``api_base`` to its own bundled client
(lm15), which no litellm patch reaches; it falls back to litellm for what lm15 cannot
carry (a provider lm15 does not know, ``headers``, ``OPENAI_API_BASE`` in the
environment...).

The model is served in-process: litellm's OpenAI client is given an HTTP client of the
openai SDK's own library (``litellm.aclient_session``, for the run) whose transport
answers with the scenario as SSE, as the replay server does; each scenario has an
``api_base`` of its own (litellm caches its clients by it). DSPy keeps no thought
signature and no reasoning metadata on a tool call: neither is judged. dspy is imported
when a scenario is driven.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import Any

import streamfix
from streamfix import testing

__all__ = [
    "DRIVER",
    "drive",
    "language_model",
    "program",
    "read",
    "served",
    "streamed",
    "tool_calls",
    "tools",
]

PROMPT = testing.DOCTOR_PROMPT


def _base_url(scenario: testing.Scenario) -> str:
    return f"http://streamfix.test/dspy/{scenario.name}/v1"


def tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """OpenAI function tools named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    return testing.declared_tools(scenario)


def language_model(scenario: testing.Scenario, **options: Any) -> Any:
    """``dspy.LM`` for the scenario's model on the litellm engine, uncached, no retry
    (``options``: ``api_base``...; by default the scenario's in-process base URL)."""
    dspy: Any = importlib.import_module("dspy")
    settings = {
        "api_base": _base_url(scenario),
        "api_key": testing.DOCTOR_API_KEY,
        "cache": False,
        "engine": "litellm",
        "num_retries": 0,
        **options,
    }
    return dspy.LM(f"openai/{scenario.name}", **settings)


def program(declared: list[dict[str, Any]]) -> Any:
    """A dspy ``Module`` whose ``forward(question)`` calls the configured LM with the
    tools and returns its outputs as ``Prediction(outputs=...)``."""
    dspy: Any = importlib.import_module("dspy")

    class Ask(dspy.Module):  # type: ignore[misc]
        def forward(self, question: str) -> Any:
            return dspy.Prediction(outputs=dspy.settings.lm(question, tools=declared))

    return Ask()


async def streamed(lm: Any, declared: list[dict[str, Any]]) -> list[Any]:
    """``dspy.streamify`` of :func:`program` with ``lm``, read to its end: the streamed
    chunks, then the ``Prediction``."""
    dspy: Any = importlib.import_module("dspy")
    with dspy.context(lm=lm):
        run = dspy.streamify(program(declared))
        return [item async for item in run(question=PROMPT)]


def read(items: Any) -> testing.Outcome:
    """The LM's output: its calls as a ``dspy.ToolCalls`` holds them, and its text."""
    prediction = items[-1] if items else None
    outputs = getattr(prediction, "outputs", None)
    if not outputs:
        return testing.Outcome(error="no LM output")
    output = outputs[0] if isinstance(outputs[0], dict) else {"text": outputs[0]}
    return testing.Outcome(tool_calls(output.get("tool_calls")), output.get("text") or "")


def tool_calls(entries: Any) -> tuple[tuple[str, Any], ...]:
    """``(name, args)`` of the LM output's ``tool_calls`` as DSPy's adapter reads them."""
    dspy: Any = importlib.import_module("dspy")
    adapters: Any = importlib.import_module("dspy.adapters.base")
    if not entries:
        return ()
    dicts = [adapters._provider_tool_call_to_tool_call_dict(entry) for entry in entries]
    return tuple((c.name, c.args) for c in dspy.ToolCalls.from_dict_list(dicts).tool_calls)


def served(scenario: testing.Scenario, run: Callable[[], Any]) -> Any:
    """``run()`` with litellm's OpenAI clients on an in-process answer of the scenario."""
    litellm: Any = importlib.import_module("litellm")
    session = testing.served_http_client(scenario, asynchronous=True)
    before, litellm.aclient_session = litellm.aclient_session, session
    try:
        return run()
    finally:
        litellm.aclient_session = before


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through a streamified dspy program's LM call with tools; with this
    patch installed, on the repaired wire."""

    def run() -> Any:
        return asyncio.run(streamed(language_model(scenario), tools(scenario)))

    wire = "dspy" in streamfix.installed() and "litellm" not in streamfix.installed()
    if wire:
        streamfix.install("litellm")
    try:
        return testing.outcome_of(scenario, lambda: served(scenario, run), read)
    finally:
        if wire:
            streamfix.uninstall("litellm")


DRIVER = testing.Driver(
    "dspy",
    "dspy",
    "openai",
    "dspy",
    drive,
    "dspy.streamify, dspy.LM(engine='litellm') with tools: stream_chunk_builder (litellm wire)",
)
"""What ``streamfix doctor`` runs for dspy (the ``DOCTOR`` of its patch)."""
