"""``streamfix doctor``'s drivers for litellm. ``DRIVER`` (the ``litellm`` column): a
corpus scenario's Ollama lines through ``ollama_chat``'s chunk parser, then
``litellm.stream_chunk_builder``. ``OPENAI_DRIVER``: an OpenAI-compatible scenario's
chunks as litellm's ``ModelResponseStream`` through ``litellm.stream_chunk_builder``
(registered as a column of its own once it has an entry point). litellm is imported
when a scenario is driven.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "OPENAI_DRIVER", "drive", "drive_builder", "live"]


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """litellm's ``ollama_chat`` NDJSON parser (``OllamaChatCompletionResponseIterator``)
    on the scenario's lines, then ``litellm.stream_chunk_builder`` (litellm's own
    assembling of a stream into one response)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    transformation: Any = importlib.import_module("litellm.llms.ollama.chat.transformation")
    parser = transformation.OllamaChatCompletionResponseIterator(
        streaming_response=iter(()), sync_stream=True
    )
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        chunks = [parser.chunk_parser(line) for line in testing.fresh_chunks(scenario)]
        response = litellm.stream_chunk_builder(chunks)
    except Exception as error:
        return testing.failure(error)
    finally:
        litellm.suppress_debug_info = quiet
    return testing.message_outcome(response.choices[0].message)


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The case sent to a live server with ``litellm.completion`` (``openai/<model>`` on
    an OpenAI-compatible base URL, ``ollama_chat/<model>`` on an Ollama root): streamed,
    every chunk then ``litellm.stream_chunk_builder``; else the one response."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    request = {**testing.live_request(target, case), **testing.litellm_endpoint(target)}
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        if stream:
            chunks = list(litellm.completion(**request, stream=True))
            response = litellm.stream_chunk_builder(chunks, messages=request["messages"])
            if response is None:
                return testing.Outcome(error="litellm.stream_chunk_builder: no chunks")
        else:
            response = litellm.completion(**request)
    except Exception as error:
        return testing.failure(error)
    finally:
        litellm.suppress_debug_info = quiet
    return testing.message_outcome(response.choices[0].message)


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
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    stream_type: Any = importlib.import_module("litellm.types.utils").ModelResponseStream
    chunks = []
    for body in testing.fresh_chunks(scenario):
        for choice in body.get("choices") or []:
            for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                entry.setdefault("function", {})
        chunks.append(stream_type(**body))
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        response = litellm.stream_chunk_builder(chunks)
    except Exception as error:
        return testing.failure(error)
    finally:
        litellm.suppress_debug_info = quiet
    message = response.choices[0].message
    outcome = testing.message_outcome(message)
    signed = tuple(_signed(call) for call in message.tool_calls or [])
    return testing.Outcome(outcome.calls, outcome.text, signatures=signed)


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
