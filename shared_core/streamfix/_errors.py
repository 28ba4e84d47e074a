"""The one error hierarchy of streamfix.

Every error the assembler raises derives from :class:`StreamFixError`. Errors that end
an assembly carry what had been assembled so far, so nothing is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._types import AssembledMessage

__all__ = [
    "ArgumentsTooLargeError",
    "AssemblerClosedError",
    "MalformedToolCallError",
    "ProviderMalformedCallError",
    "ProviderStreamError",
    "StreamFixError",
    "TruncatedToolCallError",
]


class StreamFixError(Exception):
    """Base class of every streamfix error.

    ``str(error)`` is the human text. ``message`` is *not* text: it is the
    :class:`~streamfix.AssembledMessage` built from everything that did complete
    (complete calls, text, reasoning, usage, diagnostics), or ``None`` when nothing could
    be assembled (the name follows the chat-completions ``message`` it stands for).
    ``partial_arguments`` maps the position of each incomplete call (its place in order
    of first appearance) to the raw argument text received for it, ``partial_names`` to
    its name (``None`` if it never got one).
    """

    def __init__(
        self,
        text: str,
        *,
        message: AssembledMessage | None = None,
        partial_arguments: dict[int, str] | None = None,
        partial_names: dict[int, str | None] | None = None,
    ) -> None:
        super().__init__(text)
        self.message = message
        self.partial_arguments: dict[int, str] = dict(partial_arguments or {})
        self.partial_names: dict[int, str | None] = dict(partial_names or {})


class TruncatedToolCallError(StreamFixError):
    """A call's arguments ended before their JSON value was complete (wire-shapes E4)."""


class MalformedToolCallError(StreamFixError):
    """A call's arguments are not a JSON object, or a call has arguments but no name."""


class ProviderStreamError(StreamFixError):
    """The provider sent an error inside the stream (wire-shapes E5).

    ``provider_message`` is the provider's own text; it is also part of ``str(error)``.
    """

    def __init__(
        self,
        text: str,
        *,
        provider_message: str,
        status_code: int | None = None,
        message: AssembledMessage | None = None,
        partial_arguments: dict[int, str] | None = None,
        partial_names: dict[int, str | None] | None = None,
    ) -> None:
        super().__init__(
            text,
            message=message,
            partial_arguments=partial_arguments,
            partial_names=partial_names,
        )
        self.provider_message = provider_message
        self.status_code = status_code


class ProviderMalformedCallError(ProviderStreamError, MalformedToolCallError):
    """The provider said the model's call was malformed and sent no call (Gemini's
    ``finishReason: MALFORMED_FUNCTION_CALL``, wire-shapes L4): a malformed call, with
    the provider's words (``provider_message``); caught as either parent."""


class ArgumentsTooLargeError(StreamFixError):
    """A call's arguments grew past the configured ``max_argument_bytes``."""


class AssemblerClosedError(StreamFixError):
    """The assembler was fed or finished after it had finished or failed."""
