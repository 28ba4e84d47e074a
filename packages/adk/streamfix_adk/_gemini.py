"""google-adk's native Gemini path (``google.adk.models.Gemini``, ``stream=True``) through
the core (wire-shapes L1-L4).

``Gemini.generate_content_async`` hands each google-genai ``GenerateContentResponse`` of
the stream to a ``StreamingResponseAggregator``, which yields ADK's partial responses and,
at ``close()``, the final response holding the turn's text and calls (progressive SSE
streaming, on by default in every supported release). The patch replaces the aggregator
class that ``google_llm`` uses by :class:`StreamFixStreamingResponseAggregator`: each raw
response goes to the core's Gemini reader first (``ToolCallAssembler(dialect="gemini")``),
then to ADK's own aggregator, so the partial responses are stock's, response for response.
Only the final response is decided here, by loss:

* the calls ADK aggregated equal the assembled ones (names, arguments, the signature on
  each part, the provider's id where it sent one): ADK's final response, as stock gives it;
* they differ (google-adk before 2.13 glues the calls of a turn streamed by JSON path
  into one, merging their arguments, adk-python#4311): the final response with ADK's other
  parts in place and the assembled calls where ADK's calls were, each with its own
  arguments, signature and id (the provider's, else the id ADK gave the call at that
  place, so the partial responses and the final agree);
* a call the stream cut off (E4: ``MAX_TOKENS`` in the middle of a call, or the stream
  ending before the call's last part): ADK hands the cut arguments on as a complete call
  (``{"city": "P"}``), without any error when the stream just ended. Patched, the final
  response is ADK's error response (``error_code`` ``MAX_TOKENS`` when Gemini said so,
  else ``MALFORMED_FUNCTION_CALL``), with the turn's text and thoughts, no call run, and
  what was assembled in ``custom_metadata["streamfix"]`` (the complete calls, the partial
  arguments of the cut ones).

``MALFORMED_FUNCTION_CALL`` from Gemini itself is reported by ADK as stock reports it
(its error response): stock loses nothing there. With progressive SSE streaming switched
off, ADK yields calls as they arrive, not in its final response: the aggregator is then
ADK's own, unchanged.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from google.adk.features import FeatureName, is_feature_enabled
from google.adk.models.llm_response import LlmResponse
from google.adk.utils.streaming_utils import StreamingResponseAggregator
from google.genai import types

import streamfix

__all__ = ["StreamFixStreamingResponseAggregator"]


class StreamFixStreamingResponseAggregator(StreamingResponseAggregator):
    """ADK's aggregator, its final response checked against the core's assembly."""

    def __init__(self) -> None:
        super().__init__()
        self._streamfix = streamfix.ToolCallAssembler(dialect="gemini")
        self._streamfix_error: streamfix.StreamFixError | None = None

    async def process_response(self, response: types.GenerateContentResponse) -> Any:
        """The raw response to the core, then ADK's own partial responses for it."""
        if self._streamfix_error is None:
            try:
                self._streamfix.feed(response, events=False)
            except streamfix.StreamFixError as error:
                self._streamfix_error = error
        async for llm_response in super().process_response(response):
            yield llm_response

    def close(self) -> LlmResponse | None:
        """ADK's final response, or, where it lost something, the fixed one."""
        final: LlmResponse | None = super().close()
        if final is None or not is_feature_enabled(FeatureName.PROGRESSIVE_SSE_STREAMING):
            return final
        error = self._streamfix_error
        message: streamfix.AssembledMessage | None = None
        if error is None:
            try:
                message = self._streamfix.finish()
            except streamfix.StreamFixError as raised:
                error = raised
        if isinstance(error, streamfix.TruncatedToolCallError):
            return _cut_off(final, error)
        if message is None:  # Gemini's own error (MALFORMED_FUNCTION_CALL): ADK reports it
            return final
        if _same_calls(_call_parts(final), message.tool_calls):
            return final
        _put_calls(final, message.tool_calls)
        return final


def _call_parts(response: LlmResponse) -> list[types.Part]:
    parts = response.content.parts if response.content else None
    return [part for part in parts or () if part.function_call is not None]


def _signature(call: streamfix.ToolCall) -> bytes | None:
    """The call's signature as google-genai decodes a part's ``thoughtSignature``."""
    if not call.thought_signature:
        return None
    try:
        return base64.b64decode(call.thought_signature, validate=True)
    except (binascii.Error, ValueError):
        return call.thought_signature.encode()


def _same_calls(parts: list[types.Part], calls: list[streamfix.ToolCall]) -> bool:
    """Whether ADK's call parts are the assembled calls (the provider's ids where sent)."""
    if len(parts) != len(calls):
        return False
    for part, call in zip(parts, calls, strict=True):
        function_call = part.function_call
        assert function_call is not None
        if (function_call.name, function_call.args or {}) != (call.name, call.parsed):
            return False
        if part.thought_signature != _signature(call):
            return False
        if call.id is not None and function_call.id != call.id:
            return False
    return True


def _put_calls(response: LlmResponse, calls: list[streamfix.ToolCall]) -> None:
    """The assembled calls where ADK's call parts were, ADK's other parts in place."""
    assert response.content is not None
    parts = list(response.content.parts or ())
    at = next((n for n, part in enumerate(parts) if part.function_call), len(parts))
    given = [part.function_call for part in parts if part.function_call]
    rest = [part for part in parts if part.function_call is None]
    fixed = []
    for n, call in enumerate(calls):
        part = types.Part.from_function_call(name=call.name, args=dict(call.parsed))
        assert part.function_call is not None
        adk_id = given[n].id if n < len(given) and given[n] else None
        part.function_call.id = call.id or adk_id
        part.thought_signature = _signature(call)
        fixed.append(part)
    before = len([p for p in parts[:at] if p.function_call is None])
    response.content.parts = [*rest[:before], *fixed, *rest[before:]]


def _cut_off(final: LlmResponse, error: streamfix.TruncatedToolCallError) -> LlmResponse:
    """ADK's error response for a turn whose call was cut off: its text and thoughts
    kept, no call, what was assembled in ``custom_metadata["streamfix"]``."""
    assembled = error.message.tool_calls if error.message else []
    if final.finish_reason == types.FinishReason.MAX_TOKENS:
        code = types.FinishReason.MAX_TOKENS
        advice = " The output token limit was reached: increase `max_output_tokens` and retry."
    else:
        code = types.FinishReason.MALFORMED_FUNCTION_CALL
        advice = " The stream carrying them most likely ended early."
    total = len(assembled) + len(error.partial_arguments)
    text = (
        f"Tool call arguments could not be assembled into valid JSON ({error})."
        f" None of the {total} calls of this turn were run.{advice}"
    )
    parts = [
        p for p in (final.content.parts if final.content else None) or () if not p.function_call
    ]
    metadata = dict(final.custom_metadata or {})
    metadata["streamfix"] = {
        "error": str(error),
        "calls": [{"id": c.id, "name": c.name, "arguments": c.parsed} for c in assembled],
        "partial_arguments": {str(n): text for n, text in error.partial_arguments.items()},
    }
    return final.model_copy(
        update={
            "content": types.ModelContent(parts=parts) if parts else None,
            "error_code": code.value,
            "error_message": text,
            "finish_reason": code,
            "custom_metadata": metadata,
        }
    )
