"""The one chunk normaliser: every accepted chunk type becomes the same internal shape.

Accepted: an OpenAI chat-completion chunk as a dict, any object of the same shape (the
``openai`` ``ChatCompletionChunk``, the ``litellm`` ``ModelResponseStream``: read as the
plain dicts they stand for), and an Ollama native ``/api/chat`` NDJSON object. The result
is a :class:`Chunk`: per choice a :class:`ChoiceDelta` with its tool-call
:class:`Fragment` s, plus usage and any error the provider put in the stream. Nothing
here decides where a fragment goes: that is ``_routing``. Malformed parts are reported in
``Chunk.problems`` and left out.

The tuples are built with ``tuple.__new__`` (the way :mod:`collections` does it): this runs
once per fragment and must stay cheap.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ._fastpath import fields as _fields

__all__ = ["ChoiceDelta", "Chunk", "Fragment", "legacy_call_id", "normalize"]


_new = tuple.__new__
_STANDARD_CALL_KEYS = frozenset(("index", "id", "type", "function"))
_THOUGHT_SEPARATOR = "__thought__"
_SIGNATURE_VENDORS = ("google", "vertex")


class Fragment(NamedTuple):
    """One entry of ``delta.tool_calls``, every field optional."""

    call_index: int | None
    id: str | None
    name: str | None
    arguments: str | None
    signature: str | None
    extras: dict[str, Any] | None


class ChoiceDelta(NamedTuple):
    """What one chunk says about one choice.

    ``reasoning_details`` (F5) and ``thinking_blocks`` (F6) are the pieces of the delta's
    lists of those names as plain dicts, ``None`` when the delta has none
    (:func:`_reasoning_pieces`)."""

    choice: int
    content: str | None
    reasoning: str | None
    fragments: list[Fragment]
    finish_reason: str | None
    reasoning_details: list[dict[str, Any]] | None
    thinking_blocks: list[dict[str, Any]] | None
    role: bool  # the delta names its role (E10 reads where it comes again)


#: The ``type`` of an error payload saying the model's call was malformed (the repaired
#: stream writes Gemini's ``MALFORMED_FUNCTION_CALL``, L4, so).
MALFORMED_CALL = "malformed_function_call"


class ProviderError(NamedTuple):
    """An error the provider sent inside the stream (``malformed``: it says the model's
    call was malformed, L4)."""

    text: str
    status_code: int | None
    malformed: bool = False


class Chunk(NamedTuple):
    """One normalised chunk."""

    choices: list[ChoiceDelta]
    usage: dict[str, Any] | None
    error: ProviderError | None
    problems: list[str]


def normalize(chunk: object) -> Chunk:
    """Normalise one chunk of any accepted type."""
    problems: list[str] = []
    if isinstance(chunk, dict):
        if "choices" in chunk:
            return _openai_dict(chunk, problems)
        if "message" in chunk or "done" in chunk:
            return _ollama(chunk, problems)
        if "error" in chunk:
            return _new(Chunk, ([], None, _error(chunk.get("error")), problems))
        problems.append(f"not a chunk: dict with keys {sorted(map(str, chunk))[:8]}")
        return _new(Chunk, ([], None, None, problems))
    if hasattr(chunk, "choices"):
        return _openai_dict(_view(chunk), problems)
    problems.append(f"not a chunk: {type(chunk).__name__}")
    return _new(Chunk, ([], None, None, problems))


# --- OpenAI-style dicts -------------------------------------------------------------------


def _openai_dict(chunk: dict[str, Any], problems: list[str]) -> Chunk:
    choices = chunk["choices"]
    usage = _usage(chunk.get("usage"), problems)
    error = _error(chunk["error"]) if chunk.get("error") is not None else None
    out: list[ChoiceDelta] = []
    if not isinstance(choices, list):
        if choices is not None:
            problems.append(f"choices is {type(choices).__name__}, not a list")
        return _new(Chunk, (out, usage, error, problems))
    response = chunk.get("id")
    for choice in choices:
        if type(choice) is not dict:
            problems.append(f"choice is {type(choice).__name__}, not an object")
            continue
        part = _dict_choice(choice, problems, response)
        if part is not None:
            out.append(part)
    return _new(Chunk, (out, usage, error, problems))


def _dict_choice(
    choice: dict[str, Any], problems: list[str], response: object = None
) -> ChoiceDelta | None:
    number = choice.get("index", 0)
    if type(number) is not int or number < 0:
        problems.append(f"choice index {number!r} is not a non-negative integer")
        return None
    delta = choice.get("delta")
    if delta is None:
        delta = choice.get("message") or {}
    if type(delta) is not dict:
        problems.append(f"delta is {type(delta).__name__}, not an object")
        delta = {}
    fragments = _fragments(delta.get("tool_calls"), problems)
    if not fragments and delta.get("function_call") is not None:
        fragments = _legacy_call(delta["function_call"], response, problems)
    finish = choice.get("finish_reason")
    if finish == "function_call":  # H1: the legacy name of "tool_calls"
        finish = "tool_calls"
    reasoning = delta.get("reasoning_content")
    if reasoning is None:
        reasoning = delta.get("reasoning")
    details = delta.get("reasoning_details")
    blocks = delta.get("thinking_blocks")
    return _new(
        ChoiceDelta,
        (
            number,
            _text(delta.get("content"), "content", problems),
            _text(reasoning, "reasoning", problems),
            fragments,
            _text(finish, "finish_reason", problems),
            None if details is None else _reasoning_pieces(details, _DETAILS, problems),
            None if blocks is None else _reasoning_pieces(blocks, _BLOCKS, problems),
            delta.get("role") is not None,
        ),
    )


def _legacy_call(function_call: object, response: object, problems: list[str]) -> list[Fragment]:
    """H1: ``delta.function_call``, the dialect before ``tool_calls``: one call per
    message, at index 0, never with an id. The fragment that names it gets one made
    from the response's id (the same on every chunk), so the call has an id to answer."""
    function = _object(function_call, "function_call", problems)
    if not function:
        return []
    name = function.get("name")
    call_id = legacy_call_id(response) if name else None
    return [_fragment(0, call_id, name, function.get("arguments"), None, None, problems)]


def legacy_call_id(response: object) -> str:
    """H1: the id a legacy ``function_call`` gets, from the response's id (``call_0`` if
    it has none); a shim that turns such a delta into ``tool_calls`` uses it too."""
    return f"call_{response}" if type(response) is str and response else "call_0"


def _fragments(calls: object, problems: list[str]) -> list[Fragment]:
    """The fragments of a ``tool_calls`` list (OpenAI delta or Ollama message)."""
    fragments: list[Fragment] = []
    if not calls:
        return fragments
    if type(calls) is not list:
        problems.append(f"tool_calls is {type(calls).__name__}, not a list")
        return fragments
    for call in calls:
        fragment = _dict_call(call, problems)
        if fragment is not None:
            fragments.append(fragment)
    return fragments


def _dict_call(call: object, problems: list[str]) -> Fragment | None:
    if type(call) is not dict:
        problems.append(f"tool call is {type(call).__name__}, not an object")
        return None
    function = _object(call.get("function"), "function", problems)
    extras = None
    if not _STANDARD_CALL_KEYS.issuperset(call):  # provider fields; null is absent
        extras = {
            key: value
            for key, value in call.items()
            if key not in _STANDARD_CALL_KEYS and value is not None
        } or None
    return _fragment(
        call.get("index"),
        call.get("id"),
        function.get("name"),
        function.get("arguments"),
        extras,
        function.get("provider_specific_fields"),
        problems,
    )


# --- objects of the same shape (openai, litellm) ------------------------------------------

_SCALARS = frozenset((str, int, float, bool, type(None)))


def _without_none(fields: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: fields[key] for key in keys if fields.get(key) is not None}


_CHOICE_KEYS = ("index", "finish_reason")
_DELTA_KEYS = ("content", "reasoning_content", "reasoning", "role")
_CALL_SKIP = frozenset(("function", "type"))
_FUNCTION_KEYS = ("name", "arguments", "provider_specific_fields")


def _view(chunk: Any) -> dict[str, Any]:
    """A chunk object (openai ``ChatCompletionChunk``, litellm ``ModelResponseStream``) as
    the plain dict it stands for, holding only the fields the normaliser reads."""
    fields = _fields(chunk)
    view = _without_none(fields, ("usage", "error", "id"))
    if "usage" in view:  # as the provider sent it: a parsed model's unset fields left out
        view["usage"] = _plain(view["usage"], exclude_unset=True)
    view["choices"] = [_choice_view(choice) for choice in fields.get("choices") or ()]
    return view


def _choice_view(choice: Any) -> dict[str, Any]:
    fields = _fields(choice)
    view = _without_none(fields, _CHOICE_KEYS)
    delta = fields.get("delta") or fields.get("message")
    if delta is not None:
        delta_fields = _fields(delta)
        delta_view = _without_none(delta_fields, _DELTA_KEYS)
        calls = delta_fields.get("tool_calls")
        if calls:
            delta_view["tool_calls"] = [_call_view(call) for call in calls]
        elif delta_fields.get("function_call") is not None:
            function_call = _fields(delta_fields["function_call"])
            delta_view["function_call"] = _without_none(function_call, ("name", "arguments"))
        for key in _PIECE_FIELDS:  # F5, F6
            if delta_fields.get(key) is not None:
                delta_view[key] = _plain(delta_fields[key])
        view["delta"] = delta_view
    return view


def _call_view(call: Any) -> dict[str, Any]:
    fields = _fields(call)
    view = {
        key: _plain(value)
        for key, value in fields.items()
        if value is not None and key not in _CALL_SKIP
    }
    function = fields.get("function")
    if function is not None:
        view["function"] = _without_none(_fields(function), _FUNCTION_KEYS)
    return view


def _plain(value: Any, *, exclude_unset: bool = False) -> Any:
    """Any nested pydantic value as plain dicts and lists (for usage and provider extras);
    ``exclude_unset``: a model's fields that were never set left out."""
    kind = type(value)
    if kind in _SCALARS or kind is dict:
        return value
    if kind is list or kind is tuple:
        return [_plain(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    return dump(exclude_unset=True) if exclude_unset else dump()


# --- reasoning metadata (F5, F6) -----------------------------------------------------------

_DETAILS = "reasoning_details"
_BLOCKS = "thinking_blocks"
_PIECE_FIELDS = (_DETAILS, _BLOCKS)
#: The fields of a piece that are text sent in pieces (joined by the assembler).
TEXT_FIELDS: dict[str, frozenset[str]] = {
    _DETAILS: frozenset(("text", "summary", "data")),
    _BLOCKS: frozenset(("thinking", "data")),
}


def _reasoning_pieces(value: object, field: str, problems: list[str]) -> list[dict[str, Any]]:
    """The pieces of ``delta.reasoning_details`` or ``delta.thinking_blocks``: a list of
    objects, each kept as sent except a text field (:data:`TEXT_FIELDS`) that is not a
    string, which is left out with a problem. Anything else is a problem, left out."""
    pieces: list[dict[str, Any]] = []
    if type(value) is not list:
        problems.append(f"{field} is {type(value).__name__}, not a list")
        return pieces
    text_fields = TEXT_FIELDS[field]
    for entry in value:
        if type(entry) is not dict:
            problems.append(f"an entry of {field} is {type(entry).__name__}, not an object")
            continue
        bad = [key for key in text_fields if type(entry.get(key, "")) not in (str, type(None))]
        if bad:
            problems.append(f"{field} {', '.join(sorted(bad))} not a string; ignored")
            entry = {key: item for key, item in entry.items() if key not in bad}  # noqa: PLW2901
        pieces.append(entry)
    return pieces


# --- Ollama native /api/chat --------------------------------------------------------------


def _ollama(chunk: dict[str, Any], problems: list[str]) -> Chunk:
    if chunk.get("error") is not None:
        return _new(Chunk, ([], None, _error(chunk["error"]), problems))
    message = _object(chunk.get("message"), "message", problems)
    fragments = _fragments(message.get("tool_calls"), problems)
    finish = chunk.get("done_reason") if chunk.get("done") else None
    usage = None
    if chunk.get("done") and ("prompt_eval_count" in chunk or "eval_count" in chunk):
        prompt, completion = chunk.get("prompt_eval_count"), chunk.get("eval_count")
        if type(prompt) is int and type(completion) is int:
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
    choice = _new(
        ChoiceDelta,
        (
            0,
            _text(message.get("content"), "content", problems),
            _text(message.get("thinking"), "thinking", problems),
            fragments,
            _text(finish, "done_reason", problems),
            None,
            None,
            False,  # every Ollama line names the role: it never marks a restart
        ),
    )
    return _new(Chunk, ([choice], usage, None, problems))


# --- shared field rules -------------------------------------------------------------------


def _fragment(
    index: object,
    call_id: object,
    name: object,
    arguments: object,
    extras: dict[str, Any] | None,
    function_specific: object,
    problems: list[str],
) -> Fragment:
    """Check and coerce the fields of one tool-call entry; find its thought signature."""
    if type(index) is str and index.isascii() and index.isdigit():
        index = int(index)  # G6: "0" in one chunk, 0 in the next
    if index is not None and type(index) is not int:
        problems.append(f"tool call index {index!r} is not an integer; routed as absent")
        index = None
    if call_id is not None and type(call_id) is not str:
        problems.append(f"tool call id {call_id!r} is not a string; ignored")
        call_id = None
    if name is not None and type(name) is not str:
        problems.append(f"tool name {name!r} is not a string; ignored")
        name = None
    if arguments is not None and type(arguments) is not str:
        arguments = _arguments_value(arguments, problems)
    signature = None
    if extras is not None:
        signature = _signature_in(extras.get("extra_content"), extras)
    if signature is None and isinstance(function_specific, dict):
        signature = _string(function_specific.get("thought_signature"))
    if signature is None and call_id and _THOUGHT_SEPARATOR in call_id:
        signature = call_id.split(_THOUGHT_SEPARATOR, 1)[1] or None
    return _new(Fragment, (index, call_id or None, name or None, arguments, signature, extras))


def _signature_in(extra_content: object, extras: dict[str, Any]) -> str | None:
    if isinstance(extra_content, dict):
        for vendor in _SIGNATURE_VENDORS:
            block = extra_content.get(vendor)
            if isinstance(block, dict) and _string(block.get("thought_signature")):
                return str(block["thought_signature"])
    specific = extras.get("provider_specific_fields")
    if isinstance(specific, dict):
        return _string(specific.get("thought_signature"))
    return None


def _arguments_value(value: object, problems: list[str]) -> str | None:
    """Arguments sent as a JSON value instead of text (wire-shapes D1)."""
    if isinstance(value, (dict, list)):
        try:
            return json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:
            problems.append(f"arguments value cannot be serialised: {exc}")
            return None
    problems.append(f"arguments {type(value).__name__} is neither text nor an object; ignored")
    return None


def _object(value: object, field: str, problems: list[str]) -> dict[str, Any]:
    """An object field as a dict: absent is empty, anything else a problem, left out."""
    if value is None:
        return {}
    if type(value) is not dict:
        problems.append(f"{field} is {type(value).__name__}, not an object")
        return {}
    return value


def _string(value: object) -> str | None:
    return value if type(value) is str and value else None


def _text(value: object, field: str, problems: list[str]) -> str | None:
    if value is None or type(value) is str:
        return value
    problems.append(f"{field} is {type(value).__name__}, not a string; ignored")
    return None


def _usage(value: object, problems: list[str]) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception as exc:
            problems.append(f"usage could not be read: {exc}")
            return None
        return dumped if isinstance(dumped, dict) else None
    problems.append(f"usage is {type(value).__name__}, not an object; ignored")
    return None


def _error(value: object) -> ProviderError:
    """The provider's own words from an error payload, whatever its shape."""
    status, malformed = None, False
    if isinstance(value, dict):
        status = value.get("code") if type(value.get("code")) is int else None
        text = value.get("message") or value.get("error") or json.dumps(value, default=str)
        malformed = value.get("type") == MALFORMED_CALL
    else:
        text = value
    return _new(ProviderError, (str(text), status, malformed))
