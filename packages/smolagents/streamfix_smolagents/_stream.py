"""smolagents' ``generate_stream``, fed only what belongs to choice 0, provider errors raised.

``OpenAIModel``, ``LiteLLMModel`` and ``InferenceClientModel`` each stream with
``for event in self.retryer(<client call>, ..., stream=True)`` and convert
``event.choices[0]`` of every event into a ``ChatMessageStreamDelta``. Two things are lost
there, where the provider's chunk is still in hand:

* with n > 1 (wire-shapes E7) the chunks of choice 1 are read as choice 0's: their text
  and tool-call fragments are mixed into choice 0's deltas (two interleaved calls at
  index 0 become one glued call, which smolagents cannot parse);
* a provider error inside the stream (E5: a top-level ``error`` object, with or without
  choices, or ``finish_reason: "error"``) is dropped with the rest of the chunk: the agent
  sees a stream that merely ended (a truncated call, or nothing), never the provider's
  words. (openai's and huggingface_hub's own SSE readers raise for a line whose top-level
  ``error`` is set, before smolagents sees it; what reaches ``generate_stream`` is a chunk
  another client passed on, and ``finish_reason: "error"`` without an error object.)
* a call in the legacy ``delta.function_call`` dialect (H1) is read as no call at all:
  smolagents reads ``tool_calls`` alone. The filter gives such a delta as a copy whose
  ``tool_calls`` holds the same call.

:func:`choice_zero_stream` wraps a model class's own ``generate_stream``: the stock
generator runs unchanged on a view of the model (:class:`_ChoiceZeroModel`) whose
``retryer`` hands it the provider's events through :func:`choice_zero_events`. That
filter passes every event that only concerns choice 0 on as the very same object (so
stock's deltas, token usage and errors are exactly stock's), gives an event carrying
other choices as a copy holding choice 0's alone (the provider's object is never
changed), and raises :class:`streamfix.ProviderStreamError` with the provider's own text
where the core reads an error in the stream.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Generator, Iterable, Iterator
from types import SimpleNamespace
from typing import Any

import streamfix
from streamfix._fastpath import field, fields
from streamfix._normalize import legacy_call_id

__all__ = ["choice_zero_events", "choice_zero_stream"]


def choice_zero_events(events: Iterable[Any]) -> Iterator[Any]:
    """The provider's events as choice 0 alone sees them; a provider error raised.

    An event that carries an error (a top-level ``error``, ``finish_reason: "error"``)
    raises :class:`streamfix.ProviderStreamError` with the provider's text, its
    ``message`` what choice 0 had assembled before it (the core reads the events kept so
    far; smolagents keeps every delta of a stream too). The check is a few field reads
    per event: the core runs only when an error arrives.
    """
    seen: list[Any] = []
    for raw in events:
        event = raw
        try:
            top = fields(event)
            choices: Any = top.get("choices") or ()
            first = fields(choices[0]) if len(choices) == 1 else None
        except (TypeError, AttributeError):  # not a chunk of fields: stock's to judge
            yield event
            continue
        if first is None or first.get("index") not in _ZERO:  # n > 1: a copy, choice 0's
            event = _choice_zero(event)
            choices = getattr(event, "choices", None) or ()
            first = None
        elif (delta := first.get("delta")) is not None and field(
            delta, "function_call"
        ) is not None:
            event = _legacy_as_tool_call(event, top.get("id"))
        seen.append(event)
        if top.get("error") is not None or (
            first.get("finish_reason") == "error"
            if first is not None
            else any(getattr(choice, "finish_reason", None) == "error" for choice in choices)
        ):
            streamfix.assemble(seen)  # raises the ProviderStreamError, with what came before
        yield event


_ZERO = (0, None)


def _legacy_as_tool_call(event: Any, response: object) -> Any:
    """H1: a delta in the legacy ``function_call`` dialect, which smolagents does not read
    (it reads ``tool_calls`` alone): a copy whose ``tool_calls`` holds the same call at
    index 0, with the core's id for it (``legacy_call_id``) on the piece that names it.
    A delta that has ``tool_calls`` too is left as it is."""
    (choice,) = event.choices
    delta = choice.delta
    if getattr(delta, "tool_calls", None):
        return event
    function = delta.function_call
    named = bool(getattr(function, "name", None))
    entry = SimpleNamespace(
        index=0,
        id=legacy_call_id(response) if named else None,
        type="function" if named else None,
        function=function,
    )
    new_choice = _copy(choice, delta=_copy(delta, tool_calls=[entry]))
    return _copy(event, choices=[new_choice])


def _copy(owner: Any, **changes: Any) -> Any:
    """A copy of ``owner`` with ``changes``: the provider's objects are never changed."""
    model_copy = getattr(owner, "model_copy", None)
    if callable(model_copy):  # openai's and litellm's pydantic objects
        return model_copy(update=changes)
    shallow = copy.copy(owner)  # huggingface_hub's dataclasses
    for name, value in changes.items():
        setattr(shallow, name, value)
    return shallow


def _choice_zero(event: Any) -> Any:
    """``event`` itself when its choices are all choice 0's, else a copy holding those."""
    choices = getattr(event, "choices", None)
    if not choices or not isinstance(choices, list):
        return event
    positions = [n for n, choice in enumerate(choices) if _is_choice_zero(choice)]
    if len(positions) == len(choices):
        return event
    kept = [choices[n] for n in positions]
    model_copy = getattr(event, "model_copy", None)
    if callable(model_copy):  # openai's and litellm's pydantic chunks
        return model_copy(update={"choices": kept})
    shallow = copy.copy(event)  # huggingface_hub's dataclass chunks, also dicts
    shallow.choices = kept
    items = event.get("choices") if isinstance(event, dict) else None
    if isinstance(items, list) and len(items) == len(choices):
        # the dict view keeps its plain dicts, as huggingface_hub builds it
        dict.__setitem__(shallow, "choices", [items[n] for n in positions])
    return shallow


def _is_choice_zero(choice: Any) -> bool:
    """Whether the choice is choice 0's: an index that names another choice (an integer
    other than 0, or its digits) is the only thing that says it is not."""
    index = getattr(choice, "index", None)
    if isinstance(index, str) and index.isascii() and index.isdigit():
        index = int(index)
    return not (type(index) is int and index != 0)


class _ChoiceZeroModel:
    """The model as stock's ``generate_stream`` sees it: every attribute read, set or
    deleted is the model's, except ``retryer``, whose streams go through
    :func:`choice_zero_events`. One view per call: nothing of the model is swapped, so
    concurrent streams of one model do not see each other."""

    __slots__ = ("_model",)

    def __init__(self, model: Any) -> None:
        object.__setattr__(self, "_model", model)

    def retryer(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Iterator[Any]:
        """The model's own ``retryer`` (rate-limit retries as stock has them), its
        stream filtered."""
        model = object.__getattribute__(self, "_model")
        return choice_zero_events(model.retryer(call, *args, **kwargs))

    @property  # type: ignore[misc]  # isinstance() and super() see the model's class
    def __class__(self) -> type[Any]:
        return type(object.__getattribute__(self, "_model"))

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_model"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_model"), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(object.__getattribute__(self, "_model"), name)


def choice_zero_stream(original: Callable[..., Any]) -> Callable[..., Any]:
    """A model class's ``generate_stream`` (``original``, stock's), run on a view of the
    model whose provider events are choice 0's alone and whose provider errors raise
    :class:`streamfix.ProviderStreamError`. Same signature, same deltas otherwise."""

    @functools.wraps(original)
    def generate_stream(self: Any, *args: Any, **kwargs: Any) -> Generator[Any, None, None]:
        yield from original(_ChoiceZeroModel(self), *args, **kwargs)

    generate_stream.__streamfix__ = True  # type: ignore[attr-defined]
    return generate_stream
