"""The fixed ``litellm.stream_chunk_builder``: a streamed response back into the
``ModelResponse`` litellm's non-streamed path returns for the same provider response.

The core (:class:`streamfix.ToolCallAssembler`) reads every chunk and decides the calls:
same-index parallel calls kept apart, names repeated on every fragment, phantoms,
cumulative and re-sent arguments, the legacy ``function_call`` dialect, Gemini thought
signatures (``extra_content``) and Anthropic thinking blocks (signed, unsigned or
signature-only). litellm's own builder then runs on the chunks that carry anything other
than a call's argument text, with each call's fragments replaced by the one entry the
core assembled: so the response's id, created, model, system fingerprint, usage
(``messages`` counted for the prompt as stock counts them), cost, hidden params and
every other field are stock's own, computed by stock's own code, and the argument text
is read once, not by litellm's per-fragment joins.

A stream with no tool call, no legacy function call and no thinking block goes to the
stock builder unchanged. Errors (decided: raised, never a silent ordinary response):

- an error payload inside the stream (Groq's ``{"error": ...}`` chunk, OpenRouter's
  ``finish_reason: "error"``, Ollama's error line) raises litellm's exception for the
  provider's status (``BadRequestError`` 400, ``RateLimitError`` 429,
  ``ServiceUnavailableError`` 503, ``InternalServerError`` otherwise) with the
  provider's own text;
- arguments cut off (``finish_reason: "length"``, or the stream ended inside the JSON
  value), a call that never got a name, arguments that are not one JSON object: raise
  ``litellm.APIError`` (status 500, the builder's own error type) naming the call. Not
  raised: named calls whose arguments are whole text that never began a JSON object
  (``a0;a1;``): stock joins them by index and hands them on as sent, so stock's response
  is returned (litellm's own ``get_combined_tool_content`` tests pin that).

Each raised exception carries ``assembled`` (the :class:`streamfix.AssembledMessage`
built from everything that did complete), ``partial_arguments`` (each cut call's raw
text by position) and the core's error as ``__cause__``.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Sequence
from typing import Any

import streamfix
from streamfix import _shimkit

from ._errors import litellm_error
from ._wire import wire_of

__all__ = ["stream_chunk_builder"]

_MODULE = "litellm.main"  # stock's builder is bound there in every supported release


def stream_chunk_builder(
    chunks: list[Any], messages: Sequence[Any] | None = None, *args: Any, **kwargs: Any
) -> Any:
    """``litellm.stream_chunk_builder``, fixed (see the module doc). Same signature."""
    stock = _shimkit.stock_of(_MODULE, "stream_chunk_builder")
    if not chunks or not _chat_chunks(chunks):
        return stock(chunks, messages, *args, **kwargs)
    wired = _wired(chunks, kwargs.get("logging_obj"))
    built = wired or _assemble(chunks, kwargs.get("logging_obj"))
    if built is None:  # whole arguments that are not JSON: stock hands them on as sent
        return stock(chunks, messages, *args, **kwargs)
    kept, assembled = built
    if not any(m.tool_calls or m.thinking_blocks for m in assembled.values()) and not any(
        _field(chunk, "function_call") for chunk in kept
    ):
        return stock(chunks, messages, *args, **kwargs)
    rewritten = _rewritten(kept, assembled)
    response = stock(rewritten, messages, *args, **kwargs)
    if len(assembled) > 1 and len(response.choices) != len(assembled):
        # n > 1 on a litellm whose builder reads only choices[0] (1.80): each choice
        # built on its own, never one glued into another (E7)
        response.choices = [
            _one_choice(stock(_narrowed(rewritten, index), messages, *args, **kwargs), index)
            for index in sorted(assembled)
        ]
    for choice in response.choices:
        message = assembled.get(choice.index)
        if message is not None:
            _finish_choice(choice, message)
    return response


def _chat_chunks(chunks: Sequence[Any]) -> bool:
    """Chat-completion chunks (``delta``), not text-completion ones (``text``)."""
    for chunk in chunks:
        choices = _get(chunk, "choices")
        if choices:
            return _get(choices[0], "delta", _MISSING) is not _MISSING
    return True


def _assemble(
    chunks: Sequence[Any], logging_obj: Any
) -> tuple[list[Any], dict[int, streamfix.AssembledMessage]] | None:
    """The core over every chunk: the chunks stock must still see (all but those that
    only continue a call's arguments; the first and last always), and each choice's
    assembled message. ``None`` when the core refuses only arguments that are whole but
    not JSON (:func:`_not_json`): stock hands those on as sent and loses nothing. Raises
    litellm's exceptions for anything else the core refuses."""
    assembler = streamfix.ToolCallAssembler()
    kept: list[Any] = []
    last = len(chunks) - 1
    chunk = None
    try:
        for at, chunk in enumerate(chunks):
            assembler.feed(chunk, events=False)
            if assembler.continued is None or at in (0, last):
                kept.append(chunk)
        return kept, assembler.finish_all()
    except streamfix.StreamFixError as error:
        if _not_json(error, chunks):
            return None
        model = str(_get(chunks[0], "model") or "")
        provider = str(getattr(logging_obj, "custom_llm_provider", None) or "")
        raise litellm_error(error, _get(chunk, "error"), model, provider) from error


def _not_json(error: streamfix.StreamFixError, chunks: Sequence[Any]) -> bool:
    """Whether ``error`` refuses only named calls whose arguments are whole text that never
    began a JSON object (``a0;a1;``, not a cut-off ``{"city": "Pa``), in a stream that was
    not cut off (no ``length`` finish): text the provider sent as it is, which stock's
    builder joins by index and hands on unchanged. Anything else stays an error."""
    if not isinstance(error, (streamfix.TruncatedToolCallError, streamfix.MalformedToolCallError)):
        return False
    if not error.partial_arguments or None in error.partial_names.values():
        return False
    if any(_get(c, "finish_reason") == "length" for k in chunks for c in _get(k, "choices") or ()):
        return False
    return all(_never_json(text) for text in error.partial_arguments.values())


def _never_json(text: str) -> bool:
    """Text a JSON reader rejects before its end, and that does not begin an object."""
    if text.lstrip().startswith("{"):
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return error.pos < len(text.rstrip()) and not error.msg.startswith("Unterminated")
    return False


def _wired(
    chunks: Sequence[Any], logging_obj: Any
) -> tuple[list[Any], dict[int, streamfix.AssembledMessage]] | None:
    """The stream's repair (``_wire``) when ``chunks`` is the repaired wrapper's own
    list: what :func:`_assemble` returns, from the messages the stream's repairer
    settled (nothing assembled again); ``None`` for any other list."""
    wire = wire_of(logging_obj, chunks)
    if wire is None:
        return None
    error = wire.repairer.error
    if error is not None:
        provider = str(getattr(logging_obj, "custom_llm_provider", None) or "")
        model = str(_get(chunks[0], "model") or "")
        raise litellm_error(error, None, model, provider) from error
    last = len(chunks) - 1
    kept = [c for at, c in enumerate(chunks) if at in (0, last) or id(c) not in wire.continued]
    return kept, wire.messages


def _rewritten(kept: Sequence[Any], assembled: dict[int, streamfix.AssembledMessage]) -> list[Any]:
    """Copies of ``kept`` without their tool-call fragments and legacy function calls;
    each choice's assembled calls, one entry each, on the first chunk that carried a
    call of that choice."""
    placed: set[int] = set()
    out: list[Any] = []
    usage = None
    for chunk in kept:
        choices = _get(chunk, "choices") or []
        if not choices:  # Azure's filter results, the include_usage chunk (E6)
            usage = _get(chunk, "usage") or usage
            continue
        new_choices = []
        for choice in choices:
            index = _get(choice, "index", 0) or 0
            delta = _get(choice, "delta")
            had_calls = bool(_get(delta, "tool_calls") or _get(delta, "function_call"))
            entries = None
            message = assembled.get(index)
            if had_calls and index not in placed and message is not None and message.tool_calls:
                placed.add(index)
                entries = [_entry(call) for call in message.tool_calls]
            new_choices.append(_with_delta(choice, delta, entries))
        out.append(_with_choices(chunk, new_choices))
    if usage is not None and out:
        # on the last chunk: litellm before 1.110 fails on a chunk without choices
        out[-1] = _with_choices(out[-1], list(_get(out[-1], "choices")), usage=usage)
    return out


def _narrowed(chunks: Sequence[Any], index: int) -> list[Any]:
    """The chunks carrying choice ``index``, with only that choice."""
    out = []
    for chunk in chunks:
        choices = [c for c in _get(chunk, "choices") or [] if (_get(c, "index", 0) or 0) == index]
        if choices:
            out.append(_with_choices(chunk, choices))
    return out


def _one_choice(response: Any, index: int) -> Any:
    choice = response.choices[0]
    choice.index = index
    return choice


def _entry(call: streamfix.ToolCall) -> dict[str, Any]:
    """One complete tool-call entry, as stock's builder reads a fragment."""
    entry: dict[str, Any] = {
        "index": call.index,
        "id": call.id or str(uuid.uuid4()),  # as litellm's non-streamed path names it
        "type": call.type,
        "function": {"name": call.name, "arguments": call.arguments},
    }
    fields = call.extras.get("provider_specific_fields")
    if isinstance(fields, dict) and fields:
        entry["provider_specific_fields"] = fields
    return entry


def _with_delta(choice: Any, delta: Any, entries: list[dict[str, Any]] | None) -> Any:
    if delta is None:
        return choice
    if isinstance(choice, dict):
        new_delta = dict(delta) if isinstance(delta, dict) else delta
        if isinstance(new_delta, dict):
            new_delta["tool_calls"] = entries
            new_delta.pop("function_call", None)
        return {**choice, "delta": new_delta}
    new_delta = copy.copy(delta)
    new_delta.tool_calls = entries
    if getattr(new_delta, "function_call", None) is not None:
        new_delta.function_call = None
    new_choice = copy.copy(choice)
    new_choice.delta = new_delta
    return new_choice


def _with_choices(chunk: Any, choices: list[Any], **fields: Any) -> Any:
    if isinstance(chunk, dict):
        return {**chunk, "choices": choices, **fields}
    new = copy.copy(chunk)
    new.choices = choices
    for name, value in fields.items():
        setattr(new, name, value)
    return new


def _finish_choice(choice: Any, message: streamfix.AssembledMessage) -> None:
    """What stock's builder cannot carry over from the entries: each call's
    ``extra_content`` (Gemini's thought signature, as the non-streamed call carries it),
    the thinking blocks as sent, the legacy function call's finish reason."""
    built = choice.message
    for call, tool_call in zip(message.tool_calls, built.tool_calls or (), strict=False):
        for key, value in _call_fields(call).items():
            if getattr(tool_call, key, None) is None:
                setattr(tool_call, key, value)
    if message.thinking_blocks:
        # litellm's block ``index`` is its streaming position, not part of the block
        blocks = [{k: v for k, v in b.items() if k != "index"} for b in message.thinking_blocks]
        if getattr(built, "thinking_blocks", None) != blocks:
            built.thinking_blocks = blocks
    if message.tool_calls and choice.finish_reason in ("function_call", "stop"):
        # litellm's non-streamed path says so for a message with tool calls
        # (convert_to_model_response_object: "stop" with tool calls is "tool_calls")
        choice.finish_reason = "tool_calls"


def _call_fields(call: streamfix.ToolCall) -> dict[str, Any]:
    """The provider fields of a call other than ``provider_specific_fields`` (which stock
    sets from the entry); a thought signature that came in none of them (a
    signature-only delta) as Gemini's OpenAI-compatible wire sends it, in
    ``extra_content.google``, where litellm's non-streamed call keeps it."""
    fields = {
        key: copy.deepcopy(value)
        for key, value in call.extras.items()
        if key != "provider_specific_fields"
    }
    signature = call.thought_signature
    if signature is not None and not _holds(call.extras, signature):
        fields.setdefault("extra_content", {}).setdefault("google", {})
        fields["extra_content"]["google"]["thought_signature"] = signature
    return fields


def _holds(value: object, text: str) -> bool:
    """Whether ``text`` is one of the values nested in ``value``."""
    if isinstance(value, dict):
        return any(_holds(item, text) for item in value.values())
    if isinstance(value, list):
        return any(_holds(item, text) for item in value)
    return value == text


_MISSING: Any = object()


def _get(value: Any, name: str, default: Any = None) -> Any:
    if isinstance(value, dict):
        return value.get(name, default)
    return getattr(value, name, default)


def _field(chunk: Any, name: str) -> Any:
    """``name`` of the first choice's delta of ``chunk`` (``None`` when absent)."""
    choices = _get(chunk, "choices") or []
    return _get(_get(choices[0], "delta"), name) if choices else None
