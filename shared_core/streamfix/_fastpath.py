"""The one fast path: "this chunk only continues one call's arguments".

Most chunks of a streamed tool call carry nothing but a few more characters of one
call's arguments. :func:`consume`, the assembler's loop over chunks, recognises them,
for dicts and for chunk objects (the ``openai`` ``ChatCompletionChunk``, the ``litellm``
``ModelResponseStream``) by the same criteria, so that the assembler can append their
text without normalising them and a shim can pass them on unchanged
(``ToolCallAssembler.continued``). :func:`fields` is the one reader of a pydantic
object's fields (declared and extra), used by the normaliser too.

The criteria, all required (a field set to ``None`` counts as absent):

* the chunk has one choice, no ``usage`` and no ``error`` (its other top-level fields,
  ``id``, ``model``, ..., are metadata nobody assembles);
* the choice has a non-negative integer ``index``, a ``delta`` and no ``finish_reason``;
* the delta has one ``tool_calls`` entry; ``content``, ``reasoning_content`` and
  ``reasoning`` absent or ``""``; no ``thinking_blocks`` or ``reasoning_details``;
* the entry has an integer ``index``, no ``id``, no ``type`` or ``"function"``, no
  provider fields, and a ``function`` whose ``arguments`` is a string and which has
  no ``name`` and no ``provider_specific_fields``.

The fast path skips the normaliser, never a decision: a chunk it takes still counts for
E10 as the slow path counts it (``_repair.read_role``: a delta without a role, or one
naming it). ``tests/core/test_fast_equals_slow.py`` checks that both paths end in equal
states and events on every stream of the corpus and the strategies.

A framework that reads a top-level field of its own (ADK's grounding metadata) checks
that field itself.

Whatever this accepts, the normaliser reads as exactly one :class:`~._normalize.Fragment`
with that index and argument text and nothing else (``tests/core/test_fastpath.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._repair import read_role
from ._state import CallState, ChoiceState

__all__ = ["consume", "field", "fields"]

# The fields of a tool-call entry that are not provider extras.
_ENTRY_KEYS = frozenset(("index", "id", "type", "function"))
_TYPES = (None, "function")
_NO_TEXT = (None, "")


def fields(value: Any) -> dict[str, Any]:
    """A chunk part's fields as a dict: a dict as it is, a pydantic model's declared and
    extra fields (read directly: attribute access on litellm's types goes through a slow
    ``__getattr__``; pydantic keeps undeclared fields, and litellm some declared ones, in
    ``__pydantic_extra__``). ``TypeError`` or ``AttributeError`` for anything else."""
    if type(value) is dict:
        return value
    own = value.__dict__
    if type(own) is not dict:
        raise TypeError(f"{type(value).__name__} is not an object of fields")
    extra = getattr(value, "__pydantic_extra__", None)
    return {**own, **extra} if extra else own


def field(value: Any, name: str) -> Any:
    """One field of a chunk part (a dict's key, a pydantic model's declared or extra
    field), else ``None``: :func:`fields` without building the merged dict."""
    if type(value) is dict:
        return value.get(name)
    extra = getattr(value, "__pydantic_extra__", None)
    if extra and name in extra:
        return extra[name]
    return value.__dict__.get(name)


def _model_fields(value: Any) -> dict[str, Any]:
    """:func:`fields` for a pydantic model only (``AttributeError`` otherwise): the object
    path of :func:`consume` reads five of these per chunk."""
    extra = value.__pydantic_extra__
    return {**value.__dict__, **extra} if extra else value.__dict__


def consume(
    chunks: Iterable[Any],
    choices: Mapping[int, ChoiceState],
    route: Callable[[ChoiceState, int, str], CallState | None],
    other: Callable[[Any, list[Any] | None], None],
    more: Callable[[ChoiceState, CallState, str, list[Any] | None], None] | None,
    events: list[Any] | None,
) -> int | None:
    """The assembler's hot loop: every chunk of every stream passes here once.

    A chunk that only adds ``text`` to the arguments of the call at wire index ``index``
    of choice ``number`` (module docstring) goes to ``route(state, index, text)``, which
    names the call it continues (or ``None``); the text is then appended to that call's
    parts (``more`` is ``None``: no events, no size cap) or handed to ``more``. Every
    other chunk goes to ``other(chunk, events)``. Returns the wire index of the last
    chunk if it took this path, else ``None``.

    The criteria are inline, not a function per chunk: a call costs about a sixth of a
    dict chunk's time. Keep it flat (a dict chunk as OpenAI sends it is decided by the
    ``len`` tests alone).
    """
    last: int | None = None
    for chunk in chunks:
        last = None
        try:
            if type(chunk) is dict:
                top = chunk
                (choice,) = top["choices"]
                delta = choice["delta"]
                (entry,) = delta["tool_calls"]
                function = entry["function"]
            else:
                top = _model_fields(chunk)
                (choice,) = top["choices"]
                choice = _model_fields(choice)
                delta = _model_fields(choice["delta"])
                (entry,) = delta["tool_calls"]
                entry = _model_fields(entry)
                function = _model_fields(entry["function"])
            text, index, number = function["arguments"], entry["index"], choice["index"]
        except (KeyError, TypeError, ValueError, AttributeError):
            other(chunk, events)
            continue
        if (
            type(text) is str
            and type(index) is int
            and type(number) is int
            and number >= 0
            and choice.get("finish_reason") is None
            and top.get("usage") is None
            and top.get("error") is None
            and (
                len(function) == 1
                or (
                    function.get("name") is None
                    and function.get("provider_specific_fields") is None
                )
            )
            and (
                len(entry) == 2
                or (
                    entry.get("id") is None
                    and entry.get("type") in _TYPES
                    and (entry.keys() <= _ENTRY_KEYS or _no_extras(entry))
                )
            )
            and (
                len(delta) == 1
                or (
                    delta.get("content") in _NO_TEXT
                    and delta.get("reasoning_content") in _NO_TEXT
                    and delta.get("reasoning") in _NO_TEXT
                    and delta.get("thinking_blocks") is None
                    and delta.get("reasoning_details") is None
                )
            )
        ):
            state = choices.get(number)
            call = route(state, index, text) if state is not None else None
            if call is not None:
                assert state is not None
                if len(delta) == 1 or delta.get("role") is None:
                    state.unroled += 1  # E10's bookkeeping, as _repair.read_role keeps it
                else:
                    read_role(state, True)
                if more is None:
                    call.parts.append(text)
                else:
                    more(state, call, text, events)
                last = index
                continue
        other(chunk, events)
    return last


def _no_extras(entry: dict[str, Any]) -> bool:
    """The entry's fields beyond the standard ones are all ``None``."""
    return all(entry[key] is None for key in entry.keys() - _ENTRY_KEYS)
