"""``streamfix doctor``'s driver for litellm: a corpus scenario's Ollama lines through
``ollama_chat``'s chunk parser, then ``litellm.stream_chunk_builder``. litellm is imported
when a scenario is driven.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "drive"]


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


DRIVER = testing.Driver(
    "litellm",
    "litellm",
    "ollama",
    "litellm",
    drive,
    "ollama_chat chunk_parser + stream_chunk_builder",
)
"""What ``streamfix doctor`` runs for litellm (the ``DOCTOR`` of the ``litellm`` patch)."""
