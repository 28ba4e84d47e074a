"""``streamfix doctor``'s drivers for litellm's converters of the other dialects
(wire-shapes J-M): a scenario's events through litellm's own parser of that dialect (the
one its provider handler streams through), then ``litellm.stream_chunk_builder``.

- ``ANTHROPIC_DRIVER``: the Anthropic handler's ``ModelResponseIterator.chunk_parser``;
- ``GEMINI_DRIVER``: the Gemini ``ModelResponseIterator.chunk_parser``;
- ``RESPONSES_DRIVER``: the Responses bridge's
  ``OpenAiResponsesToChatCompletionStreamIterator.chunk_parser``;
- ``BEDROCK_DRIVER``: ``AWSEventStreamDecoder.chunk_parser`` on each ConverseStream
  event's payload (what litellm decodes off the event stream's messages).

litellm is imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import importlib
import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from streamfix import testing

__all__ = [
    "ANTHROPIC_DRIVER",
    "BEDROCK_DRIVER",
    "GEMINI_DRIVER",
    "RESPONSES_DRIVER",
    "parse",
    "read_response",
]

_Parse = Callable[[Any, dict[str, Any]], Any]


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return importlib.import_module("litellm")


@contextlib.contextmanager
def _quiet(litellm: Any) -> Iterator[None]:
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        yield
    finally:
        litellm.suppress_debug_info = quiet


def _anthropic() -> tuple[Any, _Parse]:
    handler = importlib.import_module("litellm.llms.anthropic.chat.handler")
    parser = handler.ModelResponseIterator(streaming_response=iter(()), sync_stream=True)
    return parser, lambda p, event: p.chunk_parser(chunk=event)


def _gemini() -> tuple[Any, _Parse]:
    module = importlib.import_module(
        "litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini"
    )
    logging = importlib.import_module("litellm.litellm_core_utils.litellm_logging")
    log = logging.Logging(
        model="gemini-3-pro-preview",
        messages=[],
        stream=True,
        call_type="completion",
        start_time=datetime.datetime.now(),
        litellm_call_id="streamfix-doctor",
        function_id="streamfix-doctor",
    )
    log.optional_params = {}  # what litellm's completion() sets before it streams
    parser = module.ModelResponseIterator(
        streaming_response=iter(()), sync_stream=True, logging_obj=log
    )
    return parser, lambda p, event: p.chunk_parser(chunk=event)


def _responses() -> tuple[Any, _Parse]:
    module = importlib.import_module(
        "litellm.completion_extras.litellm_responses_transformation.transformation"
    )
    parser = module.OpenAiResponsesToChatCompletionStreamIterator(
        streaming_response=iter(()), sync_stream=True
    )
    return parser, lambda p, event: p.chunk_parser(chunk=event)


def _bedrock() -> tuple[Any, _Parse]:
    module = importlib.import_module("litellm.llms.bedrock.chat.invoke_handler")
    parser = module.AWSEventStreamDecoder(model="anthropic.claude-sonnet-4-20250514-v1:0")
    # litellm reads Bedrock's binary event stream (``iter_bytes``): each event framed as
    # Bedrock frames it (an exception raises there, before any parser), decoded to its
    # payload, the event's type read off the message's headers, then parsed

    def one(p: Any, event: dict[str, Any]) -> Any:
        return next(iter(p.iter_bytes(iter([testing.bedrock_message(event)]))), None)

    return parser, one


_PARSERS: dict[str, Callable[[], tuple[Any, _Parse]]] = {
    "anthropic": _anthropic,
    "gemini": _gemini,
    "responses": _responses,
    "bedrock": _bedrock,
}


def parse(dialect: str, events: list[dict[str, Any]]) -> list[Any]:
    """litellm's chat chunks (``ModelResponseStream``) of a stream of ``dialect``, as its
    parser of that dialect makes them, one event at a time (what it makes of no chunk, or
    not a chat chunk, left out)."""
    chunk_type = importlib.import_module("litellm.types.utils").ModelResponseStream
    parser, one = _PARSERS[dialect]()
    made = (one(parser, event) for event in events)
    return [chunk for chunk in made if isinstance(chunk, chunk_type)]


def _drive(dialect: str) -> Callable[[testing.Scenario], testing.Outcome]:
    def drive(scenario: testing.Scenario) -> testing.Outcome:
        litellm = _litellm()

        def run() -> Any:
            with _quiet(litellm):
                chunks = parse(dialect, testing.fresh_chunks(scenario))
                return litellm.stream_chunk_builder(chunks)

        return _spelled(testing.run_case(run, read_response))

    drive.__doc__ = f"litellm's {dialect} parser on the scenario's events, then the builder."
    return drive


def _spelled(outcome: testing.Outcome) -> testing.Outcome:
    """An error litellm words as Bedrock sent it (``modelStreamErrorException {"message":
    "..."}``) read as the provider's ``code: words`` (its own words, kept whole)."""
    found = re.search(r"(\w+Exception) (\{.*\})", outcome.error or "")
    if found is None:
        return outcome
    try:
        words = json.loads(found[2]).get("message")
    except (ValueError, AttributeError):
        return outcome
    if not isinstance(words, str):
        return outcome
    return dataclasses.replace(outcome, error=f"{found[1]}: {words} ({outcome.error})")


def read_response(response: Any) -> testing.Outcome:
    """The outcome of litellm's built response: its calls, text, whether each call kept
    a thought signature (``extra_content`` or ``provider_specific_fields``), the
    signatures of its thinking blocks."""
    if response is None:
        return testing.Outcome(error="litellm.stream_chunk_builder: no chunks")
    message = response.choices[0].message
    outcome = testing.message_outcome(message)
    signed = tuple(_signed(call) for call in message.tool_calls or [])
    return testing.Outcome(
        outcome.calls,
        outcome.text,
        signatures=signed,
        reasoning_signatures=outcome.reasoning_signatures,
    )


def _signed(call: Any) -> bool:
    google = (getattr(call, "extra_content", None) or {}).get("google") or {}
    fields = getattr(call, "provider_specific_fields", None) or {}
    return bool(google.get("thought_signature") or fields.get("thought_signature"))


def _driver(dialect: Any, what: str) -> testing.Driver:
    return testing.Driver("litellm", "litellm", dialect, "litellm", _drive(dialect), what)


ANTHROPIC_DRIVER = _driver("anthropic", "anthropic ModelResponseIterator + stream_chunk_builder")
"""litellm's Anthropic Messages path (a ``litellm-anthropic`` doctor column)."""
GEMINI_DRIVER = _driver("gemini", "gemini ModelResponseIterator + stream_chunk_builder")
"""litellm's Gemini ``streamGenerateContent`` path (``litellm-gemini``)."""
RESPONSES_DRIVER = _driver("responses", "Responses bridge iterator + stream_chunk_builder")
"""litellm's Responses bridge (``litellm-responses``)."""
BEDROCK_DRIVER = _driver("bedrock", "bedrock AWSEventStreamDecoder + stream_chunk_builder")
"""litellm's Bedrock ConverseStream path (``litellm-bedrock``)."""
