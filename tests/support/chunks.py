"""The one builder of streamed chat-completion chunks: ``tc()`` and ``chunk()``.

``tc(index, id, name, args)`` follows docs/wire-shapes.md: a field left out (its default,
:data:`ABSENT`, the ``-`` of the specification) is not sent at all, ``None`` sends an
explicit ``null``. :data:`ABSENT` is an object of its own, not the text ``"-"``: an
argument fragment may well be ``"-"`` (the sign of a negative number). A folder whose
framework sees entries spelled one way (always ``"type": "function"``, always a
``function`` object) binds that spelling once with :func:`functools.partial`.
"""

from __future__ import annotations

from typing import Any, Final, Literal

__all__ = ["ABSENT", "Chunk", "chunk", "tc"]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final[Any] = _Absent()
"""Marks a field that is not sent (the ``-`` of the specification)."""

Chunk = dict[str, Any]


def tc(
    index: Any = ABSENT,
    id: Any = ABSENT,
    name: Any = ABSENT,
    args: Any = ABSENT,
    *,
    typed: Literal["never", "with id", "always"] = "never",
    function_always: bool = False,
    fn_extra: dict[str, Any] | None = None,
    **extra: Any,
) -> Chunk:
    """One entry of ``choices[i].delta.tool_calls``; :data:`ABSENT` leaves a field out.

    ``typed``: when the entry carries ``"type": "function"``: never (unless given in
    ``extra``), next to an id (as the SDKs spell a call's first fragment), or always.
    ``function_always``: a ``function`` object even when it carries nothing (``{}``).
    ``extra`` keys are added to the entry as sent (``type``, ``extra_content``,
    ``provider_specific_fields``, ...); ``fn_extra`` keys to its ``function``.
    """
    entry: Chunk = {}
    if index is not ABSENT:
        entry["index"] = index
    if id is not ABSENT:
        entry["id"] = id
    if typed == "always" or (typed == "with id" and id is not ABSENT):
        entry["type"] = "function"
    entry.update(extra)
    function: Chunk = {}
    if name is not ABSENT:
        function["name"] = name
    if args is not ABSENT:
        function["arguments"] = args
    function.update(fn_extra or {})
    if function or function_always:
        entry["function"] = function
    return entry


def chunk(
    *calls: Chunk,
    content: str | None = None,
    reasoning: str | None = None,
    finish: str | None = None,
    choice: int = 0,
    delta: Chunk | None = None,
    **top: Any,
) -> Chunk:
    """An OpenAI ``chat.completion.chunk`` dict with one choice.

    The choice's delta holds the fields of ``delta`` as given (``role``, explicit nulls,
    any key), then ``content`` and ``reasoning_content`` when given (``None`` leaves them
    out), then ``calls`` as ``tool_calls`` when there are any. ``finish`` is the choice's
    ``finish_reason``. ``top`` sets top-level keys (``usage``, ``error``, ``id``,
    ``model``, ``choices=[]`` for a choice-less chunk, ...).
    """
    fields: Chunk = dict(delta or {})
    if content is not None:
        fields["content"] = content
    if reasoning is not None:
        fields["reasoning_content"] = reasoning
    if calls:
        fields["tool_calls"] = list(calls)
    body: Chunk = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": choice, "delta": fields, "finish_reason": finish}],
    }
    body.update(top)
    return body
