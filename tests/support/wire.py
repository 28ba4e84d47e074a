"""Chunk dicts as the SDKs' chunk objects: the one converter of the test folders.

``to_openai`` builds an ``openai`` ``ChatCompletionChunk`` and ``to_litellm`` a ``litellm``
``ModelResponseStream``, each the way that SDK's own stream builds one; :class:`Kind` (and
:func:`convert`) pick one of them, or the dict itself, by name.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from support.chunks import Chunk

if TYPE_CHECKING:
    from litellm.types.utils import ModelResponseStream
    from openai.types.chat import ChatCompletionChunk

__all__ = ["KINDS", "Kind", "convert", "to_litellm", "to_openai"]


def to_openai(body: Chunk) -> ChatCompletionChunk:
    """The chunk as an ``openai`` ``ChatCompletionChunk``, built as the openai SDK does.

    The SDK's ``Stream`` builds chunks with ``construct_type`` (no validation), so values
    outside the declared literals (``finish_reason: "error"``), object-typed arguments and
    unknown keys (``extra_content``, ``provider_specific_fields``, a top-level ``error``)
    all survive. ``construct`` builds the nested models recursively the same way.
    """
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
    from litellm.types.utils import ModelResponseStream

    body = copy.deepcopy(body)
    for choice in body.get("choices") or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            call.setdefault("function", {})
    return ModelResponseStream(**body)


KINDS: Final = ("dict", "openai", "litellm")
_CONVERTERS: Final[dict[str, Callable[[Chunk], Any]]] = {
    "dict": lambda body: body,
    "openai": to_openai,
    "litellm": to_litellm,
}


def convert(kind: str, bodies: Iterable[Chunk]) -> list[Any]:
    """``bodies`` as ``kind`` (one of :data:`KINDS`) chunks."""
    one = _CONVERTERS[kind]
    return [one(body) for body in bodies]


class Kind:
    """Converts chunk dicts to one wire type: ``kind(chunks)`` or ``kind.one(chunk)``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._convert = _CONVERTERS[name]

    def one(self, body: Chunk) -> Any:
        return self._convert(body)

    def __call__(self, bodies: list[Chunk]) -> list[Any]:
        return convert(self.name, bodies)

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"
