"""Fakes for the google-adk shim tests: a ``llm_client`` that yields real litellm chunks.

``FakeClient`` replays scripted responses: a list of ``ModelResponseStream`` chunks for a
streamed call, a ``ModelResponse`` for a non-streamed one. It records the keyword
arguments of every call (``messages`` is what ADK asked litellm to send).
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from google.adk.models.lite_llm import LiteLlm, LiteLLMClient
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from litellm.types.utils import (
    Choices,
    Delta,
    Message,
    ModelResponse,
    ModelResponseStream,
    StreamingChoices,
    Usage,
)

MODEL = "openai/test-model"
ADK_VERSION = tuple(int(p) for p in version("google-adk").split(".")[:2])
#: google-adk 2.13+ carries signatures through its stream loop and finalizes a part once
#: (adk-python#7004, signature-only deltas); 1.39.x and 2.8.0 do not.
ADK_FIXED_UPSTREAM = ADK_VERSION >= (2, 13)
#: google-adk 2.9+ answers a truncated call with MALFORMED_FUNCTION_CALL (older: raises).
ADK_MALFORMED_RESPONSE = ADK_VERSION >= (2, 9)


def sig(text: str) -> str:
    """A thought signature as Gemini sends it: base64 text."""
    return base64.b64encode(text.encode()).decode()


def tc(
    index: int | None,
    id: str | None = None,
    name: str | None = None,
    args: Any = None,
    **extras: Any,
) -> dict[str, Any]:
    """One ``delta.tool_calls`` entry (litellm turns a missing index into 0)."""
    entry: dict[str, Any] = {"index": index, "type": "function", "function": {}}
    if id is not None:
        entry["id"] = id
    if name is not None:
        entry["function"]["name"] = name
    if args is not None:
        entry["function"]["arguments"] = args
    entry.update(extras)
    return entry


def chunk(
    *calls: dict[str, Any],
    content: str | None = None,
    reasoning: str | None = None,
    finish: str | None = None,
    usage: tuple[int, int] | None = None,
    choice: int = 0,
    error: Any = None,
) -> ModelResponseStream:
    """A real litellm ``ModelResponseStream`` chunk."""
    delta = Delta(
        role="assistant",
        content=content,
        reasoning_content=reasoning,
        tool_calls=list(calls) or None,
    )
    kwargs: dict[str, Any] = {}
    if usage is not None:
        kwargs["usage"] = Usage(
            prompt_tokens=usage[0], completion_tokens=usage[1], total_tokens=sum(usage)
        )
    if error is not None:
        kwargs["error"] = error
    made = ModelResponseStream(
        model="test-model",
        choices=[StreamingChoices(index=choice, delta=delta, finish_reason=finish)],
        **kwargs,
    )
    for entry, call in zip(calls, made.choices[0].delta.tool_calls or [], strict=True):
        if entry.get("index", 0) is None:
            call.index = None  # B6: litellm would have put 0 here
        fields = entry["function"].get("provider_specific_fields")
        if fields:  # F1: litellm's Function drops this key on construction
            call.function.provider_specific_fields = fields
    return made


def usage_chunk(prompt: int = 11, completion: int = 7) -> ModelResponseStream:
    return ModelResponseStream(
        model="test-model",
        choices=[],
        usage=Usage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        ),
    )


def model_response(
    *,
    content: str | None = None,
    reasoning: str | None = None,
    calls: list[tuple[str | None, str, str, str | None]] = (),  # type: ignore[assignment]
    finish: str | None = "tool_calls",
    usage: tuple[int, int] | None = (11, 7),
) -> ModelResponse:
    """The non-streamed ``ModelResponse`` for the same answer: calls are
    ``(id, name, arguments_json, signature)``, signatures where Gemini's OpenAI endpoint
    puts them on a non-streamed call."""
    tool_calls = []
    for call_id, name, arguments, signature in calls:
        entry: dict[str, Any] = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        if signature:
            entry["extra_content"] = {"google": {"thought_signature": signature}}
        tool_calls.append(entry)
    message = Message(content=content, tool_calls=tool_calls or None)
    if reasoning:
        message.reasoning_content = reasoning
    kwargs: dict[str, Any] = {}
    if usage is not None:
        kwargs["usage"] = Usage(
            prompt_tokens=usage[0], completion_tokens=usage[1], total_tokens=sum(usage)
        )
    return ModelResponse(
        model="test-model",
        choices=[Choices(index=0, finish_reason=finish, message=message)],
        **kwargs,
    )


class _Stream:
    def __init__(self, chunks: list[Any]) -> None:
        self._chunks = chunks

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Any]:
        for item in self._chunks:
            yield item


class FakeClient(LiteLLMClient):
    """A ``LiteLLMClient`` that replays scripted responses and records each call."""

    def __init__(self, *responses: Any) -> None:
        self.responses = list(responses)
        self.calls: list[dict[str, Any]] = []

    async def acompletion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        response = self.responses.pop(0)
        if kwargs.get("stream"):
            return _Stream(list(response))
        return response

    def completion(self, **kwargs: Any) -> Any:  # pragma: no cover - ADK uses acompletion
        raise NotImplementedError


def request() -> LlmRequest:
    return LlmRequest(
        model=MODEL,
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="go")])],
        config=types.GenerateContentConfig(),
    )


async def _collect(llm: LiteLlm, stream: bool) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(request(), stream=stream)]


def run(cls: type[LiteLlm], response: Any, *, stream: bool = True) -> list[LlmResponse]:
    """Every response ``cls`` yields for one scripted model response."""
    llm = cls(model=MODEL, llm_client=FakeClient(response))
    return asyncio.run(_collect(llm, stream))


def finals(responses: list[LlmResponse]) -> list[LlmResponse]:
    return [r for r in responses if not r.partial]


def summary(response: LlmResponse) -> dict[str, Any]:
    """What must be equal between a streamed final response and the non-streamed one."""
    parts = []
    for part in (response.content.parts if response.content else None) or []:
        call = part.function_call
        parts.append(
            {
                "text": part.text,
                "thought": part.thought,
                "call": (call.id, call.name, dict(call.args or {})) if call else None,
                "thought_signature": part.thought_signature,
            }
        )
    usage = response.usage_metadata
    return {
        "parts": parts,
        "finish_reason": response.finish_reason,
        "error_code": response.error_code,
        "usage": (
            (usage.prompt_token_count, usage.candidates_token_count, usage.total_token_count)
            if usage
            else None
        ),
    }


def calls_of(response: LlmResponse) -> list[tuple[str | None, str | None, dict[str, Any]]]:
    parts = (response.content.parts if response.content else None) or []
    return [
        (p.function_call.id, p.function_call.name, dict(p.function_call.args or {}))
        for p in parts
        if p.function_call
    ]
