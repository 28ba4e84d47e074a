"""Fake clients: real openai / litellm chunk objects (built by ``tests/support``),
streamed through smolagents' own ``generate_stream`` (``OpenAIModel``, ``LiteLLMModel``;
``InferenceClientModel`` with huggingface_hub's ``ChatCompletionStreamOutput`` for the
``"hf"`` wire, outside :data:`WIRES`) into the ``ChatMessageStreamDelta`` list its agents
agglomerate.

``tc(index, id, name, args)`` follows docs/wire-shapes.md (a field left out is not sent),
spelled as the SDKs spell it; ``chunk`` is ``support.chunk``.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any, Final

import support
from support import Chunk, chunk, convert

__all__ = [
    "FINAL",
    "MODEL_WIRES",
    "WIRES",
    "FakeClient",
    "chunk",
    "model_for",
    "run_agent",
    "stream_deltas",
    "tc",
    "to_hf",
]

WIRES: Final = ("openai", "litellm")
#: Every model class whose ``generate_stream`` reads provider events: WIRES and
#: ``InferenceClientModel`` (``"hf"``).
MODEL_WIRES: Final = (*WIRES, "hf")

#: The SDKs' spelling of a tool-call entry: ``"type": "function"`` next to an id, a
#: ``function`` object always.
tc = partial(support.tc, typed="with id", function_always=True)


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


def to_hf(body: Chunk) -> Any:
    """The chunk as huggingface_hub's ``ChatCompletionStreamOutput``, parsed as its
    ``InferenceClient`` parses a streamed line (unknown keys such as ``error`` kept)."""
    from huggingface_hub import ChatCompletionStreamOutput

    return ChatCompletionStreamOutput.parse_obj_as_instance(copy.deepcopy(body))


def model_for(wire: str, *responses: list[Chunk]) -> Any:
    """A smolagents model of the wire's kind whose client streams ``responses``."""
    from smolagents.models import InferenceClientModel, LiteLLMModel, OpenAIModel

    if wire == "openai":
        model: Any = OpenAIModel(model_id="test-model", api_key="sk-test")
    elif wire == "hf":
        model = InferenceClientModel(model_id="test-model", token="hf_test")
    else:
        model = LiteLLMModel(model_id="ollama_chat/qwen3-coder", api_key="sk-test")
    if wire == "hf":
        streams = [[to_hf(body) for body in bodies] for bodies in responses]
    else:
        streams = [convert(wire, bodies) for bodies in responses]
    model.client = FakeClient(streams)
    return model


def stream_deltas(wire: str, bodies: list[Chunk]) -> list[Any]:
    """smolagents' own ``ChatMessageStreamDelta`` list for one streamed response."""
    from smolagents.models import ChatMessage, MessageRole

    model = model_for(wire, bodies)
    messages = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])]
    return list(model.generate_stream(messages))


#: The second turn of an agent run: the agent's final answer.
FINAL = [
    chunk(tc(0, "call_f", "final_answer", '{"answer": "done"}')),
    chunk(finish="tool_calls"),
]


def run_agent(
    wire: str, first: list[Chunk], task: str = "Weather in Paris and Tokyo?"
) -> tuple[list[Any], Any]:
    """Run a ``ToolCallingAgent`` (``stream_outputs=True``) whose model streams ``first``
    then :data:`FINAL`; the arguments each run of its ``weather`` tool received, and the
    agent."""
    from smolagents import ToolCallingAgent, tool

    received: list[Any] = []
    lock = threading.Lock()

    @tool
    def weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city's name.
        """
        with lock:
            received.append(city)
        return f"sunny in {city}"

    model = model_for(wire, first, FINAL)
    agent = ToolCallingAgent(
        tools=[weather], model=model, stream_outputs=True, max_steps=3, verbosity_level=0
    )
    agent.run(task)
    return received, agent
