"""Fakes for the google-adk shim tests: a ``llm_client`` that yields real litellm chunks.

``FakeClient`` replays scripted responses: a list of ``ModelResponseStream`` chunks for a
streamed call, a ``ModelResponse`` for a non-streamed one. It records the keyword
arguments of every call (``messages`` is what ADK asked litellm to send).
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from functools import partial
from importlib.metadata import version
from typing import Any

import support
from google.adk.models.lite_llm import LiteLlm, LiteLLMClient
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from litellm.types.utils import Choices, Message, ModelResponse, ModelResponseStream, Usage
from support import to_litellm

from streamfix_adk import StreamFixLiteLlm

MODEL = "openai/test-model"
ADK_VERSION = tuple(int(p) for p in version("google-adk").split(".")[:2])
#: google-adk 2.13+ carries signatures through its stream loop and finalizes a part once
#: (adk-python#7004, signature-only deltas); 1.39.x and 2.8.0 do not.
ADK_FIXED_UPSTREAM = ADK_VERSION >= (2, 13)
#: google-adk 2.9+ answers a truncated call with MALFORMED_FUNCTION_CALL (older: raises).
ADK_MALFORMED_RESPONSE = ADK_VERSION >= (2, 9)
#: The class whose fixed outcomes the tests assert: the shim's ``StreamFixLiteLlm``, or in
#: direct mode (``support.direct()``) ADK's own ``LiteLlm``, patched upstream-style. Chosen
#: here, where the tests bind it at import time.
FIXED: type[LiteLlm] = LiteLlm if support.direct() else StreamFixLiteLlm


def sig(text: str) -> str:
    """A thought signature as Gemini sends it: base64 text."""
    return base64.b64encode(text.encode()).decode()


#: litellm's spelling of a tool-call entry: always typed, always with a ``function``
#: (litellm's types require one); ``tc(None, ...)`` sends ``"index": null``.
tc = partial(support.tc, typed="always", function_always=True)


def _usage(prompt: int, completion: int) -> Usage:
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def chunk(
    *calls: dict[str, Any],
    content: str | None = None,
    reasoning: str | None = None,
    finish: str | None = None,
    usage: tuple[int, int] | None = None,
    choice: int = 0,
    error: Any = None,
    fields: dict[str, Any] | None = None,
) -> ModelResponseStream:
    """A real litellm ``ModelResponseStream`` chunk; ``fields`` are more keys of its
    delta (``thinking_blocks``, ``reasoning_details``, ...)."""
    top: dict[str, Any] = {}
    if usage is not None:
        top["usage"] = _usage(*usage)
    if error is not None:
        top["error"] = error
    body = support.chunk(
        *calls,
        content=content,
        reasoning=reasoning,
        finish=finish,
        choice=choice,
        delta={"role": "assistant", **(fields or {})},
        **top,
    )
    made = to_litellm(body)
    for entry, call in zip(calls, made.choices[0].delta.tool_calls or [], strict=True):
        if entry.get("index", 0) is None:
            # B6: litellm puts 0 there (writing it into the entry it is given; to_litellm
            # gives it a copy, so ``entry`` still says null)
            call.index = None
        fields = entry["function"].get("provider_specific_fields")
        if fields:  # F1: litellm's Function drops this key on construction
            call.function.provider_specific_fields = fields
    return made


def usage_chunk(prompt: int = 11, completion: int = 7) -> ModelResponseStream:
    return to_litellm(support.chunk(choices=[], usage=_usage(prompt, completion)))


def model_response(
    *,
    content: str | None = None,
    reasoning: str | None = None,
    calls: list[tuple[str | None, str, str, str | None]] = (),  # type: ignore[assignment]
    finish: str | None = "tool_calls",
    usage: tuple[int, int] | None = (11, 7),
    thinking_blocks: list[dict[str, Any]] | None = None,
    reasoning_details: list[dict[str, Any]] | None = None,
) -> ModelResponse:
    """The non-streamed ``ModelResponse`` for the same answer: calls are
    ``(id, name, arguments_json, signature)``, signatures where Gemini's OpenAI endpoint
    puts them on a non-streamed call. ``thinking_blocks`` go on the message as litellm's
    Anthropic transformation puts them (also in its ``provider_specific_fields``);
    ``reasoning_details`` as litellm keeps OpenRouter's (among the message's extras)."""
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
    extra: dict[str, Any] = {}
    if thinking_blocks is not None:
        extra["thinking_blocks"] = thinking_blocks
        extra["provider_specific_fields"] = {"thinking_blocks": thinking_blocks}
    if reasoning_details is not None:
        extra["reasoning_details"] = reasoning_details
    message = Message(content=content, tool_calls=tool_calls or None, **extra)
    if reasoning:
        message.reasoning_content = reasoning
    kwargs: dict[str, Any] = {}
    if usage is not None:
        kwargs["usage"] = _usage(*usage)
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
