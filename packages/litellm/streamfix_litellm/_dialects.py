"""litellm's converters of the other dialects (wire-shapes J-M), their calls decided by
the core: each provider iterator's parser hands litellm's stream its own
``ModelResponseStream`` chunks, with every tool-call entry the core's (part 4: the
repaired stream of a dialect).

litellm turns each provider's native stream into chat chunks in one parser method per
dialect (:data:`PARSERS`): Anthropic Messages events (``ModelResponseIterator.chunk_parser``
of the Anthropic handler), Gemini ``streamGenerateContent`` chunks (the Gemini
``ModelResponseIterator.chunk_parser``), OpenAI Responses events through its Responses
bridge (``OpenAiResponsesToChatCompletionStreamIterator.chunk_parser``) and Bedrock
ConverseStream events (``AWSEventStreamDecoder.converse_chunk_parser``). Where stock loses
a call's arguments (K2: an Anthropic input given whole in ``content_block_start``; J2: the
arguments only in a Responses done event) or crashes (J3: an empty argument delta; L3:
Gemini 3's ``partialArgs``), the fixed parser gives the call as sent.

Each event goes to one :class:`streamfix.StreamRepairer` per stream (the iterator's),
reading the dialect, and to stock's parser. The chunk handed on is stock's own (its text,
reasoning, thinking blocks, usage, finish reason and provider fields as stock makes them),
its tool-call entries replaced by the ones the repairer wrote for that event (several
entries in one chunk are split again by the wire, ``_wire``). A call's first entry keeps
the identity stock gave that call in the same chunk (its id and provider fields: Gemini's
``__thought__`` id and ``thought_signature``), so a call stock gets right comes out as
stock gives it. Where stock's parser raises on an event the core reads without an error,
the chunk is made from what the repairer wrote. Where the core reads a provider's error
(Anthropic's ``error`` event, ``response.failed``), litellm's exception for the provider's
status is raised with the provider's own words (stock's own exception as its cause), as
the wire raises any provider's in-stream error (``_errors``). A call cut off or never
named is left to the wire (``_wire``), which sees the cut call in these chunks and raises
as for any provider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamfix
from streamfix import _shimkit

from ._errors import provider_exception

__all__ = ["PARSERS", "anthropic_parser", "bedrock_parser", "gemini_parser", "responses_parser"]

_STATE = "_streamfix_dialect"
#: litellm's provider name of each dialect's parser
_PROVIDERS = {
    "anthropic": "anthropic",
    "gemini": "gemini",
    "responses": "openai",
    "bedrock": "bedrock",
}

#: Each dialect's stock parser: ``(module, "Class.method")``.
PARSERS = {
    "anthropic": ("litellm.llms.anthropic.chat.handler", "ModelResponseIterator.chunk_parser"),
    "gemini": (
        "litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini",
        "ModelResponseIterator.chunk_parser",
    ),
    "responses": (
        "litellm.completion_extras.litellm_responses_transformation.transformation",
        "OpenAiResponsesToChatCompletionStreamIterator.chunk_parser",
    ),
    "bedrock": (
        "litellm.llms.bedrock.chat.invoke_handler",
        "AWSEventStreamDecoder.converse_chunk_parser",
    ),
}


def anthropic_parser(self: Any, chunk: dict[str, Any]) -> Any:
    """The Anthropic handler's ``chunk_parser``: one Messages event."""
    return _parse(self, "anthropic", chunk, chunk)


def gemini_parser(self: Any, chunk: dict[str, Any]) -> Any:
    """The Gemini iterator's ``chunk_parser``: one ``GenerateContentResponse`` chunk."""
    return _parse(self, "gemini", chunk, chunk)


def responses_parser(self: Any, chunk: dict[str, Any]) -> Any:
    """The Responses bridge's ``chunk_parser``: one Responses event."""
    return _parse(self, "responses", chunk, chunk)


def bedrock_parser(self: Any, chunk_data: dict[str, Any]) -> Any:
    """``AWSEventStreamDecoder.converse_chunk_parser``: one ConverseStream event's payload
    (litellm has already read its event type off the message's headers: the payload is
    keyed again by it, as botocore gives the event)."""
    made = _parse(self, "bedrock", chunk_data, {_bedrock_event(chunk_data): chunk_data})
    for choice in getattr(made, "choices", None) or ():
        # Bedrock streams one choice; litellm before 1.81 numbered it by content block
        _set(choice, "index", 0)
    return made


def _bedrock_event(payload: dict[str, Any]) -> str:
    """The ConverseStream event a payload is, by its fields (as litellm's parser tells)."""
    if "start" in payload:
        return "contentBlockStart"
    if "delta" in payload:
        return "contentBlockDelta"
    if "contentBlockIndex" in payload:
        return "contentBlockStop"
    if "stopReason" in payload:
        return "messageStop"
    if "role" in payload:
        return "messageStart"
    return "metadata"


def _repairer(parser: Any, dialect: str) -> Any:
    """The stream's repairer, on the parser object (one per stream)."""
    state = parser.__dict__.get(_STATE)
    if state is None:
        state = parser.__dict__[_STATE] = streamfix.StreamRepairer(dialect=dialect)
    return state


def _parse(parser: Any, dialect: str, chunk: dict[str, Any], event: dict[str, Any]) -> Any:
    stock: Callable[[Any, dict[str, Any]], Any] = _shimkit.stock_of(*PARSERS[dialect])
    repairer = _repairer(parser, dialect)
    if repairer.error is not None:  # the core is done (an error it read): stock from here
        return stock(parser, chunk)
    bodies = repairer.feed(event)
    error = repairer.error
    try:
        made = stock(parser, chunk)
    except Exception as raised:
        if isinstance(error, streamfix.ProviderStreamError):
            raise _provider_error(error, dialect) from raised
        if error is not None:
            raise
        return _chunk(bodies)  # stock broke on an event the core read: the core's reading
    if isinstance(error, streamfix.ProviderStreamError):  # stock read on: the stream ends
        raise _provider_error(error, dialect)
    return _with_calls(made, bodies)


def _provider_error(error: streamfix.ProviderStreamError, dialect: str) -> Exception:
    """litellm's exception for the provider's status, with the provider's own words (its
    error type and message) and what was assembled (``_errors``)."""
    return provider_exception(error, None, "", _PROVIDERS[dialect])


def _with_calls(made: Any, bodies: list[dict[str, Any]]) -> Any:
    """Stock's chunk ``made`` with the tool-call entries of ``bodies`` (the repairer's
    chunks for the same event) as its own; a chunk made of ``bodies`` when stock made
    none."""
    entries = _entries_of(bodies)
    if not getattr(made, "choices", None):  # stock made nothing of the event
        return _chunk(bodies) if entries else made
    delta = made.choices[0].delta
    own = list(getattr(delta, "tool_calls", None) or ())
    if not own and not entries:
        return made
    _set(delta, "tool_calls", _entries([_identity(entry, own) for entry in entries]) or None)
    return made


def _set(model: Any, name: str, value: Any) -> None:
    """``model.name`` set wherever litellm's model holds it (a declared field, or, before
    litellm 1.81, an extra field, maybe also in the instance's own dict)."""
    setattr(model, name, value)
    extra = getattr(model, "__pydantic_extra__", None)
    if extra is not None and name in extra:
        extra[name] = value
    if name in model.__dict__:
        model.__dict__[name] = value


def _entries_of(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        entry
        for body in bodies
        for choice in body.get("choices") or ()
        for entry in (choice.get("delta") or {}).get("tool_calls") or ()
    ]


def _identity(entry: dict[str, Any], own: list[Any]) -> dict[str, Any]:
    """A call's first entry with the id and provider fields stock gave the same call in
    the same chunk (the first of stock's entries with that name, taken once); a Gemini
    signature the core writes in ``extra_content`` is put where litellm keeps it and
    reads it back (``provider_specific_fields``)."""
    entry = {"id": None, **entry}
    function = entry.get("function") or {}
    name = function.get("name")
    if name:
        for n, theirs in enumerate(own):
            if getattr(theirs.function, "name", None) == name:
                del own[n]
                entry["id"] = theirs.id or entry["id"]
                fields = getattr(theirs, "provider_specific_fields", None)
                if fields:
                    entry["provider_specific_fields"] = fields
                break
    extra = entry.get("extra_content")
    if extra == {"google": {"thought_signature": (signature := _signature(extra))}}:
        del entry["extra_content"]  # litellm's own place for it: its provider fields
        entry.setdefault("provider_specific_fields", {"thought_signature": signature})
    return entry


def _signature(extra: Any) -> Any:
    return ((extra or {}).get("google") or {}).get("thought_signature")


def _entries(entries: list[dict[str, Any]]) -> list[Any]:
    """The entries as litellm's ``Delta`` makes them (``ChatCompletionDeltaToolCall``)."""
    from litellm.types.utils import Delta

    for entry in entries:
        entry.setdefault("function", {})
    return list(Delta(tool_calls=entries).tool_calls or ()) if entries else []


def _chunk(bodies: list[dict[str, Any]]) -> Any:
    """A ``ModelResponseStream`` of the repairer's chunks for one event (their text and
    reasoning joined, their finish reason the last one's, every entry in one list)."""
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    fields: dict[str, Any] = {}
    finish = None
    for body in bodies:
        for choice in body.get("choices") or ():
            finish = choice.get("finish_reason") or finish
            for key, value in (choice.get("delta") or {}).items():
                if isinstance(value, str) and key not in ("role",):
                    fields[key] = fields.get(key, "") + value
    entries = _entries([_identity(entry, []) for entry in _entries_of(bodies)])
    delta = Delta(**fields, tool_calls=entries or None)
    choice = StreamingChoices(index=0, delta=delta, finish_reason=finish)
    return ModelResponseStream(choices=[choice])
