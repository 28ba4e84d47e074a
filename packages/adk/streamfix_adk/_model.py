"""``StreamFixLiteLlm``: ADK's ``LiteLlm`` whose streaming path assembles through streamfix.

The shim does not copy ADK's request preparation or response building. For a streamed
call it runs ADK's own ``generate_content_async`` on a copy of the model whose
``llm_client`` hands ADK a *canonical* stream:

* every provider chunk goes through :class:`streamfix.ToolCallAssembler`;
* text, reasoning, usage and grounding are passed on to ADK as they arrive (so ADK's
  partial text and reasoning responses stream as today), with the tool-call fragments
  and the finish reason taken out;
* when the provider's stream ends, the assembled calls are sent as complete calls, one
  per chunk (unique index, id, name, complete arguments, the thought signature in
  ``extra_content.google.thought_signature``), then one chunk with the finish reason.

ADK then builds every ``LlmResponse`` itself, so the final ``partial=False`` response is
the one its non-streamed path builds for the same message. What ADK's stream loop cannot
do on some versions is done here, each part small and named:

* ``_restore_signatures``: google-adk < 2.9 drops every thought signature that is not
  embedded in the call id on its streamed path; the signature is put on the part
  exactly as ADK's non-streamed conversion decodes it.
* A truncated or malformed call ends the turn with ADK's error response
  (``error_code`` ``MAX_TOKENS`` when the provider said ``length``, else
  ``MALFORMED_FUNCTION_CALL``), built here because older versions raise instead.
* A provider error inside the stream is raised as :class:`streamfix.ProviderStreamError`
  (its text holds the provider's own message), as ADK raises provider errors elsewhere.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from google.adk.models import lite_llm as _adk
from google.adk.models.lite_llm import LiteLlm, LiteLLMClient
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

import streamfix

__all__ = ["StreamFixLiteLlm", "fixed_generate_content_async"]

logger = logging.getLogger("streamfix.adk")

#: ADK's own method, captured before any patching; the fixed path runs it.
_STOCK_GENERATE = LiteLlm.__dict__["generate_content_async"]

_FAILURE_ERRORS = (
    streamfix.TruncatedToolCallError,
    streamfix.MalformedToolCallError,
    streamfix.ArgumentsTooLargeError,
)


@dataclass
class _StreamState:
    """What the canonical stream learned, read back after ADK's loop."""

    message: streamfix.AssembledMessage | None = None
    failure: streamfix.StreamFixError | None = None
    finish_reason: str | None = None
    model: str | None = None
    tools: list[str] | None = field(default=None)


class _AssemblingClient(LiteLLMClient):  # type: ignore[misc]
    """A ``LiteLLMClient`` whose streams come out canonical; anything else is delegated."""

    def __init__(self, inner: Any, state: _StreamState) -> None:
        self._inner = inner
        self._state = state

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        response = await self._inner.acompletion(*args, **kwargs)
        if not kwargs.get("stream"):
            return response
        return _canonical_stream(response, self._state)

    def completion(self, *args: Any, **kwargs: Any) -> Any:
        return self._inner.completion(*args, **kwargs)


async def _canonical_stream(
    chunks: AsyncIterator[Any], state: _StreamState
) -> AsyncGenerator[Any, None]:
    """The provider's stream as ADK should have seen it (see the module docstring)."""
    assembler = streamfix.ToolCallAssembler(state.tools)
    async for chunk in chunks:
        assembler.feed(chunk)  # a ProviderStreamError propagates through ADK's loop
        state.model = getattr(chunk, "model", None) or state.model
        passed = _pass_through(chunk)
        if passed is not None:
            yield passed
    try:
        message = assembler.finish()
    except _FAILURE_ERRORS as error:
        # ADK finalizes the text and reasoning already passed on; the error response
        # for the calls is added after ADK's loop (fixed_generate_content_async).
        state.failure = error
        state.finish_reason = error.message.finish_reason if error.message else None
        return
    state.message = message
    state.finish_reason = message.finish_reason
    for call in message.tool_calls:
        yield _call_chunk(call, state.model)
    if message.finish_reason:
        yield _chunk(state.model, Delta(), message.finish_reason)


def _pass_through(chunk: Any) -> Any:
    """The chunk without its tool-call fragments and finish reason, or ``None`` if
    nothing else is left. Plain text, reasoning and usage chunks go through as they are.

    Runs once per chunk: litellm's objects are read through their field dicts (their
    ``getattr`` of an absent field costs a raised exception)."""
    if not isinstance(chunk, ModelResponseStream):
        return None
    choices = chunk.choices or []
    first = next((choice for choice in choices if not _field(choice, "index")), None)
    delta = _field(first, "delta") if first is not None else None
    calls = _field(delta, "tool_calls") if delta is not None else None
    if len(choices) == 1 and first is not None and not calls and not _field(first, "finish_reason"):
        return chunk  # text, reasoning or nothing: as it is
    keep_delta = delta is not None and any(_field(delta, key) for key in _TEXT_FIELDS)
    if not keep_delta and not (_field(chunk, "usage") or _field(chunk, _GROUNDING)):
        return None
    copy = chunk.model_copy()
    if keep_delta:
        delta = delta.model_copy()
        delta.tool_calls = None
        copy.choices = [StreamingChoices(index=0, delta=delta, finish_reason=None)]
    else:
        copy.choices = []
    return copy


_TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "thinking_blocks")
_GROUNDING = "vertex_ai_grounding_metadata"


def _field(obj: Any, name: str) -> Any:
    """A field of a litellm pydantic object, declared or extra, else ``None``."""
    extra = getattr(obj, "__pydantic_extra__", None)
    if extra and name in extra:
        return extra[name]
    return obj.__dict__.get(name)


def _chunk(model: str | None, delta: Delta, finish_reason: str | None = None) -> Any:
    chunk = ModelResponseStream(
        choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish_reason)]
    )
    if model:
        chunk.model = model
    return chunk


def _call_chunk(call: streamfix.ToolCall, model: str | None) -> Any:
    """One complete call, as ADK reads it back into a non-streamed tool call."""
    entry: dict[str, Any] = {
        "index": call.index,
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }
    if call.thought_signature:
        entry["extra_content"] = {"google": {"thought_signature": call.thought_signature}}
    return _chunk(model, Delta(role="assistant", tool_calls=[entry]))


def _signature_bytes(call: streamfix.ToolCall) -> Any:
    """The signature exactly as ADK's non-streamed conversion decodes it."""
    placement = {"extra_content": {"google": {"thought_signature": call.thought_signature}}}
    return _adk._extract_thought_signature_from_tool_call(placement)


def _restore_signatures(response: LlmResponse, message: streamfix.AssembledMessage) -> None:
    """Put each call's signature on its part where ADK's stream loop dropped it
    (google-adk < 2.9 reads signatures on the streamed path only from the call id)."""
    if response.partial or not response.content or not response.content.parts:
        return
    calls = [part for part in response.content.parts if part.function_call]
    if len(calls) != len(message.tool_calls):
        return
    for part, call in zip(calls, message.tool_calls, strict=True):
        if call.thought_signature and not part.thought_signature:
            part.thought_signature = _signature_bytes(call)


def _failure_response(state: _StreamState) -> LlmResponse:
    """ADK's error response for calls that cannot be run (truncated or malformed)."""
    error = state.failure
    assert error is not None
    truncated = isinstance(error, streamfix.TruncatedToolCallError)
    if truncated and state.finish_reason == "length":
        code = types.FinishReason.MAX_TOKENS
        advice = " The output token limit was reached: increase `max_output_tokens` and retry."
    else:
        code = types.FinishReason.MALFORMED_FUNCTION_CALL
        advice = " The stream carrying them most likely ended early." if truncated else ""
    complete = len(error.message.tool_calls) if error.message else 0
    text = (
        f"Tool call arguments could not be assembled into valid JSON ({error})."
        f" None of the {complete + len(error.partial_arguments)} calls of this turn were"
        f" run.{advice}"
    )
    usage = error.message.usage if error.message else None
    return LlmResponse(
        error_code=code,
        error_message=text,
        finish_reason=code,
        model_version=state.model,
        usage_metadata=_usage_metadata(usage) if usage else None,
    )


def _usage_metadata(usage: dict[str, Any]) -> types.GenerateContentResponseUsageMetadata:
    """The token counts of a failed turn (ADK puts usage on its final response)."""
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=usage.get("prompt_tokens"),
        candidates_token_count=usage.get("completion_tokens"),
        total_token_count=usage.get("total_tokens"),
    )


def _declared_tools(llm_request: LlmRequest) -> list[str] | None:
    tools = getattr(llm_request, "tools_dict", None)
    return list(tools) if tools else None


async def fixed_generate_content_async(
    self: LiteLlm, llm_request: LlmRequest, stream: bool = False
) -> AsyncGenerator[LlmResponse, None]:
    """``LiteLlm.generate_content_async`` with the streamed path assembled by streamfix.

    Non-streamed calls run ADK's own method unchanged.
    """
    if not stream:
        async for response in _STOCK_GENERATE(self, llm_request, stream=False):
            yield response
        return
    state = _StreamState(tools=_declared_tools(llm_request))
    model = self.model_copy(update={"llm_client": _AssemblingClient(self.llm_client, state)})
    usage_reported = False
    async for response in _STOCK_GENERATE(model, llm_request, stream=True):
        if state.failure is not None and not response.partial and _is_empty(response):
            continue  # ADK's empty end-of-stream response: the error response replaces it
        if state.message is not None:
            _restore_signatures(response, state.message)
        usage_reported = usage_reported or response.usage_metadata is not None
        yield response
    if state.failure is not None:
        failure = _failure_response(state)
        if usage_reported:  # on ADK's text response already: not counted twice
            failure.usage_metadata = None
        yield failure


def _is_empty(response: LlmResponse) -> bool:
    return not (response.content and response.content.parts)


class StreamFixLiteLlm(LiteLlm):  # type: ignore[misc]
    """ADK's ``LiteLlm`` whose streamed responses are assembled by streamfix.

    Use it where you would use ``LiteLlm`` (``Agent(model=StreamFixLiteLlm(model=...))``);
    no patching needed. Non-streamed calls are ADK's own.
    """

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        async for response in fixed_generate_content_async(self, llm_request, stream):
            yield response
