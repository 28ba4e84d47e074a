"""``streamfix doctor``'s ``strands-litellm`` column: the Strands Agents SDK's
``LiteLLMModel`` (``strands.models.litellm``) on the litellm wire.

An ``Agent`` with a tool of each name the scenario's calls use (any object accepted), on
``LiteLLMModel`` (``openai/<scenario>``: litellm's OpenAI-compatible provider), run with
``Agent.stream_async`` and its events read to the end: the tools run and the next request
gets the scenario's follow-up text. ``LiteLLMModel._handle_streaming_response`` reads
``litellm.acompletion(stream=True)`` (litellm's ``CustomStreamWrapper``, which the wire
repairs), keys tool-call deltas by ``index`` (name and id those of the index's first delta,
an id generated when it has none, the arguments joined) and stops reading at the first
``finish_reason``; the event loop parses each call's arguments when its block ends (``{}``
when they are not JSON). The calls are the ``toolUse`` blocks of the first assistant
message (name, input, ``toolUseId``), the text its ``text`` blocks; strands keeps no thought
signature and no reasoning metadata from litellm, streamed or not: neither is judged.

litellm is given a real ``openai.AsyncOpenAI`` (its ``client`` argument) whose transport
answers in-process with the scenario as SSE, as the replay server does. strands and
litellm are imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from typing import Any

from streamfix import testing

__all__ = [
    "STRANDS_DRIVER",
    "agent",
    "drive",
    "openai_client",
    "read",
    "run_streamed",
]


def openai_client(scenario: testing.Scenario) -> Any:
    """An ``openai.AsyncOpenAI`` answering every request in-process with the scenario."""
    openai: Any = importlib.import_module("openai")
    return openai.AsyncOpenAI(**testing.served_client_settings(scenario, asynchronous=True))


run_streamed = testing.strands_run
read = testing.strands_read


def agent(scenario: testing.Scenario, **client_args: Any) -> Any:
    """An ``Agent`` on ``LiteLLMModel`` (``openai/<scenario>``, no console output), with a
    tool of each name the scenario's calls use. ``client_args`` go to litellm
    (``api_base``...; by default the in-process client)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    strands: Any = importlib.import_module("strands")
    models: Any = importlib.import_module("strands.models.litellm")
    settings = {"api_key": testing.DOCTOR_API_KEY, **client_args}
    if "api_base" not in settings:
        settings["client"] = openai_client(scenario)
    model = models.LiteLLMModel(client_args=settings, model_id=f"openai/{scenario.name}")
    tools = testing.strands_tools(scenario)
    return strands.Agent(model=model, tools=tools, callback_handler=None)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """strands' and litellm's warnings kept off the doctor's output while a scenario
    runs; litellm without its banner."""
    litellm: Any = importlib.import_module("litellm")
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        with testing.quiet_loggers("strands", "LiteLLM"):
            yield
    finally:
        litellm.suppress_debug_info = quiet


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.stream_async`` on ``LiteLLMModel``."""
    with _quiet():
        return testing.outcome_of(scenario, lambda: run_streamed(agent(scenario)), read)


STRANDS_DRIVER = testing.Driver(
    "litellm",
    "strands-agents",
    "openai",
    "strands",
    drive,
    "Agent.stream_async on LiteLLMModel (litellm wire)",
)
"""The ``strands-litellm`` column (the ``litellm`` patch: the wire)."""
