"""``streamfix doctor``'s driver for the openai SDK: a corpus scenario through the SDK's
chat-completions stream helper (``ChatCompletionStreamState``, what
``client.chat.completions.stream`` runs), fed the chunks as the SDK's ``Stream`` yields
them. openai is imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from typing import Any

from streamfix import testing

from ._doctor_langchain import LANGCHAIN_DRIVER
from ._doctor_native import OPENAI_AGENTS_RESPONSES_DRIVER, STRANDS_BEDROCK_DRIVER
from ._doctor_openai_agents import OPENAI_AGENTS_DRIVER
from ._doctor_pydantic_ai import PYDANTIC_AI_DRIVER
from ._doctor_strands import STRANDS_DRIVER

__all__ = [
    "DRIVER",
    "LANGCHAIN_DRIVER",
    "OPENAI_AGENTS_DRIVER",
    "OPENAI_AGENTS_RESPONSES_DRIVER",
    "PYDANTIC_AI_DRIVER",
    "STRANDS_BEDROCK_DRIVER",
    "STRANDS_DRIVER",
    "drive",
    "live",
]


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The helper's state (whichever class the SDK's module holds: stock, or the fixed
    one once installed) on the scenario's ``ChatCompletionChunk`` s, then
    ``get_final_completion()``."""
    module: Any = importlib.import_module("openai.lib.streaming.chat._completions")
    unset = importlib.import_module("streamfix_openai._versions").not_given()

    def run() -> Any:
        state = module.ChatCompletionStreamState(input_tools=unset, response_format=unset)
        for chunk in testing.openai_stream(testing.fresh_chunks(scenario)):
            state.handle_chunk(chunk)
        return state.get_final_completion()

    return testing.run_case(run)


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The case sent to a live OpenAI-compatible server with ``openai.OpenAI``: streamed,
    ``client.chat.completions.stream(...)`` (the helper) and its final completion; else
    ``client.chat.completions.create(...)``."""
    openai: Any = importlib.import_module("openai")
    key = os.environ.get("OPENAI_API_KEY") or "sk-streamfix-live"
    request = testing.live_request(target, case)

    def send() -> Any:
        client = openai.OpenAI(base_url=target.url, api_key=key, max_retries=0, timeout=120)
        with contextlib.closing(client):
            if not stream:
                return client.chat.completions.create(**request)
            with client.chat.completions.stream(**request) as events:
                for _ in events:
                    pass
                return events.get_final_completion()

    return testing.run_case(send)


DRIVER = testing.Driver(
    "openai",
    "openai",
    "openai",
    "openai",
    drive,
    "chat.completions.stream helper (ChatCompletionStreamState)",
    live=live,
)
"""What ``streamfix doctor`` runs for openai (the ``DOCTOR`` of the ``openai`` patch)."""
