"""``streamfix doctor``'s drivers for litellm. ``DRIVER`` (the ``litellm`` column): a
corpus scenario's Ollama lines through ``ollama_chat``'s chunk parser, then
``litellm.stream_chunk_builder``. ``OPENAI_DRIVER``: an OpenAI-compatible scenario's
chunks as litellm's ``ModelResponseStream`` through ``litellm.stream_chunk_builder``
(registered as a column of its own once it has an entry point); the other dialects'
paths (``litellm-anthropic``, ``litellm-gemini``, ``litellm-responses``,
``litellm-bedrock``) in ``_doctor_dialects``. litellm is imported when a scenario is
driven.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from typing import Any

from streamfix import testing

from ._doctor_agno import AGNO_DRIVER
from ._doctor_dialects import ANTHROPIC_DRIVER, BEDROCK_DRIVER, GEMINI_DRIVER, RESPONSES_DRIVER
from ._doctor_openai_agents import OPENAI_AGENTS_LITELLM_DRIVER
from ._doctor_strands import STRANDS_DRIVER

__all__ = [
    "AGNO_DRIVER",
    "ANTHROPIC_DRIVER",
    "BEDROCK_DRIVER",
    "DRIVER",
    "GEMINI_DRIVER",
    "OPENAI_AGENTS_LITELLM_DRIVER",
    "OPENAI_DRIVER",
    "RESPONSES_DRIVER",
    "STRANDS_DRIVER",
    "drive",
    "drive_builder",
    "live",
]


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return importlib.import_module("litellm")


@contextlib.contextmanager
def _quiet(litellm: Any) -> Iterator[None]:
    """litellm without its "Give Feedback / Get Help" banner on every error."""
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        yield
    finally:
        litellm.suppress_debug_info = quiet


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """litellm's ``ollama_chat`` NDJSON parser (``OllamaChatCompletionResponseIterator``)
    on the scenario's lines, then ``litellm.stream_chunk_builder`` (litellm's own
    assembling of a stream into one response)."""
    litellm = _litellm()
    transformation: Any = importlib.import_module("litellm.llms.ollama.chat.transformation")
    parser = transformation.OllamaChatCompletionResponseIterator(
        streaming_response=iter(()), sync_stream=True
    )

    def run() -> Any:
        with _quiet(litellm):
            chunks = [parser.chunk_parser(line) for line in testing.fresh_chunks(scenario)]
            return litellm.stream_chunk_builder(chunks)

    return testing.run_case(run)


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The case sent to a live server with ``litellm.completion`` (``openai/<model>`` on
    an OpenAI-compatible base URL, ``ollama_chat/<model>`` on an Ollama root): streamed,
    every chunk then ``litellm.stream_chunk_builder``; else the one response."""
    litellm = _litellm()
    request = {**testing.live_request(target, case), **testing.litellm_endpoint(target)}

    def send() -> Any:
        with _quiet(litellm):
            if not stream:
                return litellm.completion(**request)
            chunks, error = testing.drain(lambda: litellm.completion(**request, stream=True))
            if error is not None:
                raise error
            return litellm.stream_chunk_builder(chunks, messages=request["messages"])

    def read(response: Any) -> testing.Outcome:
        if response is None:
            return testing.Outcome(error="litellm.stream_chunk_builder: no chunks")
        return testing.response_outcome(response)

    return testing.run_case(send, read)


DRIVER = testing.Driver(
    "litellm",
    "litellm",
    "ollama",
    "litellm",
    drive,
    "ollama_chat chunk_parser + stream_chunk_builder",
    live=live,
    live_apis=("openai", "ollama"),
)
"""What ``streamfix doctor`` runs for litellm (the ``DOCTOR`` of the ``litellm`` patch)."""


def drive_builder(scenario: testing.Scenario) -> testing.Outcome:
    """``litellm.stream_chunk_builder`` on the scenario's chunks as litellm's
    ``ModelResponseStream`` (a tool-call entry without ``function`` gets an empty one, as
    litellm's stream wrappers give it)."""
    litellm = _litellm()
    chunks = testing.litellm_stream(testing.fresh_chunks(scenario))

    def run() -> Any:
        with _quiet(litellm):
            return litellm.stream_chunk_builder(chunks)

    def read(response: Any) -> testing.Outcome:
        message = response.choices[0].message
        outcome = testing.message_outcome(message)
        signed = tuple(_signed(call) for call in message.tool_calls or [])
        return testing.Outcome(outcome.calls, outcome.text, signatures=signed)

    return testing.run_case(run, read)


def _signed(call: Any) -> bool:
    google = (getattr(call, "extra_content", None) or {}).get("google") or {}
    fields = getattr(call, "provider_specific_fields", None) or {}
    return bool(google.get("thought_signature") or fields.get("thought_signature"))


OPENAI_DRIVER = testing.Driver(
    "litellm",
    "litellm",
    "openai",
    "litellm",
    drive_builder,
    "stream_chunk_builder on ModelResponseStream chunks",
)
"""The OpenAI-compatible builder path, for a ``litellm-openai`` doctor column."""
