"""``streamfix doctor``'s ``crewai`` column: crewai's ``LLM(stream=True)`` on the litellm
path (``is_litellm=True``, ``openai/<scenario>``).

``LLM.call(prompt, tools=...)`` without ``available_functions`` (as crewai's agents call
it: they run the calls themselves): ``_handle_streaming_response`` reads
``litellm.completion(stream=True)`` (litellm's ``CustomStreamWrapper``, which the wire
repairs), accumulates tool-call deltas by ``index`` (the last name an index got, the
arguments joined) and returns the calls, or the text when there are none. The calls are
(name, arguments); the text is judged when ``call`` returns text (beside calls it returns
none, streamed or not). Patched is what a user installs: the litellm wire and this shim
(``streamfix.install("litellm", "crewai")``): the driver installs the wire for a run
whenever this patch is installed. litellm is given a real ``openai.OpenAI`` (its ``client``
argument) whose transport answers in-process with the scenario as SSE (as the replay
server does). crewai keeps no thought signature and no reasoning metadata on this path:
neither is judged. crewai (its telemetry off, its console listener out of the way) is
imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import logging
import os
from collections.abc import Iterator
from typing import Any

import streamfix
from streamfix import testing

__all__ = ["DRIVER", "call", "declared_tools", "drive", "llm", "quiet", "read"]

PROMPT = testing.DOCTOR_PROMPT


def declared_tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """OpenAI function tools named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    return testing.declared_tools(scenario, parameters={})


def llm(scenario: testing.Scenario, *, stream: bool = True, **options: Any) -> Any:
    """crewai's ``LLM`` on the litellm path for the scenario (``openai/<name>``).
    ``options`` go to ``LLM`` (``api_base``...; by default litellm gets an in-process
    ``openai.OpenAI`` as its ``client``)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    crewai: Any = importlib.import_module("crewai")
    settings: dict[str, Any] = {"api_key": testing.DOCTOR_API_KEY, **options}
    if "api_base" not in settings and "client" not in settings:
        openai: Any = importlib.import_module("openai")
        settings["client"] = openai.OpenAI(**testing.served_client_settings(scenario))
    return crewai.LLM(model=f"openai/{scenario.name}", is_litellm=True, stream=stream, **settings)


def call(model: Any, scenario: testing.Scenario, **options: Any) -> Any:
    """``LLM.call`` with the scenario's tools, no ``available_functions`` unless
    ``options`` give them: the calls (a list) or the text. Run in a context of its own:
    crewai keeps its open event scopes in a context variable, and a ``call`` that returns
    calls (streamed or not) never closes the one it opened (after 100 such calls in one
    context crewai raises ``StackDepthExceededError``)."""
    run = functools.partial(model.call, PROMPT, tools=declared_tools(scenario), **options)
    return contextvars.Context().run(run)


def read(result: Any) -> testing.Outcome:
    """The calls (name, arguments) ``call`` returned, or its text."""
    if isinstance(result, str):
        return testing.Outcome(text=result)
    calls = tuple(
        (entry.function.name, testing.parse_arguments(entry.function.arguments))
        for entry in result or ()
    )
    return testing.Outcome(calls)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """crewai's console listener (its streaming panels) out of the way while a scenario
    runs (``crewai_event_bus.scoped_handlers``: the handlers put back after, the events'
    handler threads waited for), crewai's and litellm's log lines kept off the output."""
    bus: Any = importlib.import_module("crewai.events.event_bus").crewai_event_bus
    root, litellm = logging.getLogger(), logging.getLogger("LiteLLM")
    level, handler = root.level, logging.NullHandler()
    root.setLevel(logging.CRITICAL)  # crewai logs through the root logger
    litellm.addHandler(handler)
    try:
        with bus.scoped_handlers():
            try:
                yield
            finally:
                bus.flush()
    finally:
        litellm.removeHandler(handler)
        root.setLevel(level)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``LLM(stream=True).call(prompt, tools=...)``; with this patch
    installed, on the repaired litellm wire."""
    wire = "crewai" in streamfix.installed() and "litellm" not in streamfix.installed()
    if wire:
        streamfix.install("litellm")
    try:
        with quiet():
            try:
                result = call(llm(scenario), scenario)
            except Exception as error:  # what crewai raised is the outcome
                return testing.raised(scenario, error)
        return read(result)
    finally:
        if wire:
            streamfix.uninstall("litellm")


DRIVER = testing.Driver(
    "crewai",
    "crewai",
    "openai",
    "crewai",
    drive,
    "LLM(stream=True).call(tools=...) on the litellm path (litellm wire + crewai shim)",
)
"""What ``streamfix doctor`` runs for crewai (the ``DOCTOR`` of its patch)."""
