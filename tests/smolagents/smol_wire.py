"""Chunk builders and fake clients: real openai / litellm chunk objects, streamed through
smolagents' own ``generate_stream`` (``OpenAIModel``, ``LiteLLMModel``) into the
``ChatMessageStreamDelta`` list its agents agglomerate.

``tc(index, id, name, args)`` follows docs/wire-shapes.md; ``"-"`` leaves a field out.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import Any, Final

ABSENT: Final = "-"
WIRES: Final = ("openai", "litellm")

Chunk = dict[str, Any]


def tc(index: Any = ABSENT, id: Any = ABSENT, name: Any = ABSENT, args: Any = ABSENT) -> Chunk:
    """One entry of ``choices[0].delta.tool_calls``."""
    entry: Chunk = {}
    if index is not ABSENT:
        entry["index"] = index
    if id is not ABSENT:
        entry["id"] = id
        entry["type"] = "function"
    function: Chunk = {}
    if name is not ABSENT:
        function["name"] = name
    if args is not ABSENT:
        function["arguments"] = args
    entry["function"] = function
    return entry


def chunk(
    *calls: Chunk, content: str | None = None, finish: str | None = None, **top: Any
) -> Chunk:
    """A ``chat.completion.chunk`` dict with one choice (``choices=[]`` via ``top``)."""
    delta: Chunk = {}
    if content is not None:
        delta["content"] = content
    if calls:
        delta["tool_calls"] = list(calls)
    body: Chunk = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    body.update(top)
    return body


def to_wire(wire: str, bodies: Iterable[Chunk]) -> list[Any]:
    """The chunks as the SDK builds them: openai ``ChatCompletionChunk`` (``construct``,
    as openai's ``Stream`` does: no validation) or litellm ``ModelResponseStream``."""
    if wire == "openai":
        from openai.types.chat import ChatCompletionChunk

        return [ChatCompletionChunk.construct(**copy.deepcopy(body)) for body in bodies]
    from litellm.types.utils import ModelResponseStream

    return [ModelResponseStream(**copy.deepcopy(body)) for body in bodies]


class FakeClient:
    """Stands in for ``openai.OpenAI()`` and for the ``litellm`` module: each request
    streams the next response of ``responses`` (lists of chunk objects)."""

    def __init__(self, responses: list[list[Any]]) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.completion))

    def completion(self, **kwargs: Any) -> Iterator[Any]:
        self.requests.append(kwargs)
        return iter(self.responses.pop(0))


def model_for(wire: str, *responses: list[Chunk]) -> Any:
    """A smolagents model of the wire's kind whose client streams ``responses``."""
    from smolagents.models import LiteLLMModel, OpenAIModel

    if wire == "openai":
        model: Any = OpenAIModel(model_id="test-model", api_key="sk-test")
    else:
        model = LiteLLMModel(model_id="ollama_chat/qwen3-coder", api_key="sk-test")
    model.client = FakeClient([to_wire(wire, bodies) for bodies in responses])
    return model


def stream_deltas(wire: str, bodies: list[Chunk]) -> list[Any]:
    """smolagents' own ``ChatMessageStreamDelta`` list for one streamed response."""
    from smolagents.models import ChatMessage, MessageRole

    model = model_for(wire, bodies)
    messages = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])]
    return list(model.generate_stream(messages))
