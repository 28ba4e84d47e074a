"""``streamfix doctor``'s driver for smolagents: a corpus scenario through
``OpenAIModel.generate_stream`` and ``agglomerate_stream_deltas``, the model client replaced
by one replaying the scenario's chunks. smolagents is imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
import os
from types import SimpleNamespace
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "LITELLM_DRIVER", "drive", "drive_litellm", "live", "live_litellm"]


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """smolagents' ``OpenAIModel.generate_stream`` over openai ``ChatCompletionChunk``
    objects, then ``smolagents.models.agglomerate_stream_deltas`` (what its agents run)."""
    models: Any = importlib.import_module("smolagents.models")
    chunks = testing.openai_stream(testing.fresh_chunks(scenario))
    model = models.OpenAIModel(model_id="streamfix", api_key="sk-streamfix-doctor")
    model.client = SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **_: chunks))
    )
    return testing.run_case(
        lambda: _generate(models, model, [_user(models, "go")], True), testing.message_outcome
    )


def _generate(models: Any, model: Any, messages: list[Any], stream: bool, **kwargs: Any) -> Any:
    """``generate_stream`` then ``agglomerate_stream_deltas`` (what smolagents' agents
    run on a streamed step), or ``generate``: the final message."""
    if not stream:
        return model.generate(messages, **kwargs)
    return models.agglomerate_stream_deltas(list(model.generate_stream(messages, **kwargs)))


def drive_litellm(scenario: testing.Scenario) -> testing.Outcome:
    """smolagents' ``LiteLLMModel.generate_stream`` over litellm ``ModelResponseStream``
    chunks (its client, the ``litellm`` module, replaced by one replaying the scenario),
    then ``agglomerate_stream_deltas``."""
    models: Any = importlib.import_module("smolagents.models")
    chunks = testing.litellm_stream(testing.fresh_chunks(scenario))

    def completion(**_: Any) -> Any:
        for body, chunk in zip(scenario.chunks, chunks, strict=True):
            if body.get("error"):  # as litellm raises a provider's in-stream error
                error = body["error"]
                raise RuntimeError(error.get("message") if isinstance(error, dict) else error)
            yield chunk

    model = models.LiteLLMModel(model_id="openai/streamfix", api_key="sk-streamfix-doctor")
    model.client = SimpleNamespace(completion=completion)
    return testing.run_case(
        lambda: _generate(models, model, [_user(models, "go")], True), testing.message_outcome
    )


def _user(models: Any, text: str, role: str = "user") -> Any:
    roles = {"system": models.MessageRole.SYSTEM, "assistant": models.MessageRole.ASSISTANT}
    kind = roles.get(role, models.MessageRole.USER)
    return models.ChatMessage(role=kind, content=[{"type": "text", "text": text}])


def _live(
    target: testing.LiveTarget, case: testing.LiveCase, stream: bool, litellm: bool
) -> testing.Outcome:
    """The case through ``OpenAIModel`` or ``LiteLLMModel`` against a live server: the
    case's tools and options as ``generate_stream`` keyword arguments (smolagents sends
    them as given, over its own ``tools`` from ``tools_to_call_from``)."""
    models: Any = importlib.import_module("smolagents.models")
    request = testing.live_request(target, case)
    options = {k: v for k, v in request.items() if k not in ("model", "messages")}
    if litellm:
        endpoint = testing.litellm_endpoint(target)
        model = models.LiteLLMModel(
            model_id=endpoint.pop("model"),
            api_base=endpoint.pop("api_base"),
            api_key=endpoint.pop("api_key", None),
        )
        options.update(endpoint)  # drop_params, timeout
    else:
        key = os.environ.get("OPENAI_API_KEY") or "sk-streamfix-live"
        model = models.OpenAIModel(
            model_id=target.model,
            api_base=target.url,
            api_key=key,
            client_kwargs={"max_retries": 0},
        )
    messages = [_user(models, str(m["content"]), m["role"]) for m in case.messages]
    return testing.run_case(
        lambda: _generate(models, model, messages, stream, **options), testing.message_outcome
    )


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The case through ``OpenAIModel`` against a live OpenAI-compatible server."""
    return _live(target, case, stream, litellm=False)


def live_litellm(
    target: testing.LiveTarget, case: testing.LiveCase, stream: bool
) -> testing.Outcome:
    """The case through ``LiteLLMModel`` (``openai/`` or ``ollama_chat/``) against a live
    server."""
    return _live(target, case, stream, litellm=True)


DRIVER = testing.Driver(
    "smolagents",
    "smolagents",
    "openai",
    "smolagents",
    drive,
    "OpenAIModel.generate_stream + agglomerate_stream_deltas",
    live=live,
)
"""What ``streamfix doctor`` runs for smolagents (the ``DOCTOR`` of the ``smolagents``
patch)."""

LITELLM_DRIVER = testing.Driver(
    "smolagents",
    "smolagents",
    "openai",
    "smolagents",
    drive_litellm,
    "LiteLLMModel.generate_stream + agglomerate_stream_deltas",
    live=live_litellm,
    live_apis=("openai", "ollama"),
)
"""The ``smolagents-litellm`` column: the same patch, through ``LiteLLMModel``."""
