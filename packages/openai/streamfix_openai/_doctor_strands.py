"""``streamfix doctor``'s ``strands`` column: the Strands Agents SDK's ``OpenAIModel``
(``strands.models.openai``) on the openai wire.

An ``Agent`` with a tool of each name the scenario's calls use (any object accepted), on
``OpenAIModel`` (a real ``AsyncOpenAI`` given as its client), run with
``Agent.stream_async`` and its events read to the end: the tools run and the next request
gets the scenario's follow-up text. ``OpenAIModel.stream`` keys tool-call deltas by
``index`` (the call's name and id those of the index's first delta, its arguments all its
deltas joined) and stops reading at the first ``finish_reason``; the event loop parses each
call's arguments when its block ends (``{}`` when they are not JSON) and skips a call
without an id. The calls are the ``toolUse`` blocks of the first assistant message (name,
input, ``toolUseId``), the text its ``text`` blocks. Strands keeps no thought signature and
no reasoning metadata from ``OpenAIModel``, streamed or not: neither is judged. strands is
imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

from streamfix import testing

__all__ = ["STRANDS_DRIVER", "agent", "drive", "quiet", "read", "run_streamed", "tools"]

tools = testing.strands_tools
run_streamed = testing.strands_run
read = testing.strands_read


def agent(scenario: testing.Scenario, **options: Any) -> Any:
    """An ``Agent`` on ``OpenAIModel`` for the scenario's model (no console output), with
    :func:`tools`. ``options`` go to ``AsyncOpenAI`` (``base_url``, ``http_client``: by
    default the in-process answer)."""
    openai: Any = importlib.import_module("openai")
    strands: Any = importlib.import_module("strands")
    models: Any = importlib.import_module("strands.models.openai")
    settings = testing.served_client_settings(scenario, asynchronous=True, **options)
    model = models.OpenAIModel(client=openai.AsyncOpenAI(**settings), model_id=scenario.name)
    return strands.Agent(model=model, tools=tools(scenario), callback_handler=None)


def quiet() -> contextlib.AbstractContextManager[None]:
    """strands' warnings (arguments it could not parse, calls it skipped) kept off the
    doctor's output while a scenario runs."""
    return testing.quiet_loggers("strands")


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.stream_async`` on ``OpenAIModel``."""
    with quiet():
        return testing.outcome_of(scenario, lambda: run_streamed(agent(scenario)), read)


STRANDS_DRIVER = testing.Driver(
    "openai",
    "strands-agents",
    "openai",
    "strands",
    drive,
    "Agent.stream_async on OpenAIModel (openai wire)",
)
"""The ``strands`` column (the ``openai`` patch: the wire)."""
