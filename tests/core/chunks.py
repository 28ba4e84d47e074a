"""Small builders for streamed chat-completion chunks, and converters to typed objects.

``tc(index, id, name, args)`` follows the notation of docs/wire-shapes.md: ``"-"`` (the
:data:`ABSENT` sentinel) means the field is not sent at all, ``None`` sends an explicit
``null``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from litellm.types.utils import ModelResponseStream
    from openai.types.chat import ChatCompletionChunk

__all__ = ["ABSENT", "KINDS", "Kind", "chunk", "tc", "to_litellm", "to_openai", "tool_delta"]

ABSENT: Final = "-"
"""Marks a field that is not sent (the ``-`` of the specification)."""

Chunk = dict[str, Any]


def tc(
    index: Any = ABSENT, id: Any = ABSENT, name: Any = ABSENT, args: Any = ABSENT, **extra: Any
) -> dict[str, Any]:
    """One entry of ``choices[i].delta.tool_calls``; ``"-"`` leaves a field out.

    ``extra`` keys are added to the entry as sent (``type``, ``extra_content``,
    ``provider_specific_fields``, ...). ``function`` extras go in ``fn_extra``.
    """
    fn_extra: dict[str, Any] = extra.pop("fn_extra", {})
    entry: dict[str, Any] = {}
    if index is not ABSENT:
        entry["index"] = index
    if id is not ABSENT:
        entry["id"] = id
    entry.update(extra)
    function: dict[str, Any] = {}
    if name is not ABSENT:
        function["name"] = name
    if args is not ABSENT:
        function["arguments"] = args
    function.update(fn_extra)
    if function:
        entry["function"] = function
    return entry


def chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    choice: int = 0,
    **top: Any,
) -> Chunk:
    """An OpenAI ``chat.completion.chunk`` dict with one choice.

    ``delta=None`` gives an empty delta. ``top`` sets top-level keys (``usage``,
    ``error``, ``choices=[]`` for a choice-less chunk, ...).
    """
    body: Chunk = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": choice, "delta": dict(delta or {}), "finish_reason": finish_reason}],
    }
    body.update(top)
    return body


def tool_delta(*calls: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A delta carrying ``calls`` (and any other delta fields, e.g. ``content``)."""
    return {"tool_calls": list(calls), **fields} if calls else dict(fields)


def to_openai(body: Chunk) -> ChatCompletionChunk:
    """The chunk as an ``openai`` ``ChatCompletionChunk``, built as the openai SDK does.

    The SDK's ``Stream`` builds chunks with ``construct_type`` (no validation), so values
    outside the declared literals (``finish_reason: "error"``), object-typed arguments and
    unknown keys (``extra_content``, ``provider_specific_fields``, a top-level ``error``)
    all survive. ``construct`` builds the nested models recursively the same way.
    """
    import copy

    from openai.types.chat import ChatCompletionChunk

    return ChatCompletionChunk.construct(**copy.deepcopy(body))


def to_litellm(body: Chunk) -> ModelResponseStream:
    """The chunk as a ``litellm`` ``ModelResponseStream``, built the way litellm builds one.

    Known losses of litellm's types (tests that need these fields are dict/openai only):
    ``function.provider_specific_fields`` is dropped by ``litellm.types.utils.Function``;
    a missing/null tool-call ``index`` is replaced by a position counter; a missing tool-call
    ``type`` becomes ``"function"``; ``finish_reason`` goes through ``map_finish_reason``
    (``"error"`` and ``"end_turn"`` become ``"stop"``). litellm's tool-call type requires
    ``function``: an entry without one (a signature-only delta) gets ``{}``, which is what
    litellm's own stream wrappers emit (``Function(arguments="", name=None)``).
    """
    import copy

    from litellm.types.utils import ModelResponseStream

    body = copy.deepcopy(body)
    for choice in body.get("choices") or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            call.setdefault("function", {})
    return ModelResponseStream(**body)


KINDS: Final = ("dict", "openai", "litellm")


class Kind:
    """Converts chunk dicts to one wire type: ``kind(chunks)`` or ``kind.one(chunk)``."""

    def __init__(self, name: str) -> None:
        converters: dict[str, Callable[[Chunk], Any]] = {
            "dict": lambda body: body,
            "openai": to_openai,
            "litellm": to_litellm,
        }
        self.name = name
        self._convert = converters[name]

    def one(self, body: Chunk) -> Any:
        return self._convert(body)

    def __call__(self, bodies: list[Chunk]) -> list[Any]:
        return [self._convert(body) for body in bodies]

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"
