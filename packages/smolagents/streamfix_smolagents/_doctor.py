"""``streamfix doctor``'s driver for smolagents: a corpus scenario through
``OpenAIModel.generate_stream`` and ``agglomerate_stream_deltas``, the model client replaced
by one replaying the scenario's chunks. smolagents is imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "drive"]


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """smolagents' ``OpenAIModel.generate_stream`` over openai ``ChatCompletionChunk``
    objects, then ``smolagents.models.agglomerate_stream_deltas`` (what its agents run)."""
    models: Any = importlib.import_module("smolagents.models")
    chunks = testing.openai_stream(testing.fresh_chunks(scenario))
    model = models.OpenAIModel(model_id="streamfix", api_key="sk-streamfix-doctor")
    model.client = SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **_: chunks))
    )
    user = models.ChatMessage(
        role=models.MessageRole.USER, content=[{"type": "text", "text": "go"}]
    )
    try:
        deltas = list(model.generate_stream([user]))
        message = models.agglomerate_stream_deltas(deltas)
    except Exception as error:
        return testing.failure(error)
    return testing.message_outcome(message)


DRIVER = testing.Driver(
    "smolagents",
    "smolagents",
    "openai",
    "smolagents",
    drive,
    "OpenAIModel.generate_stream + agglomerate_stream_deltas",
)
"""What ``streamfix doctor`` runs for smolagents (the ``DOCTOR`` of the ``smolagents``
patch)."""
