"""openai shim: the SDK's chat-completions stream helper survives every wire shape.

``streamfix.install("openai")`` (or :func:`install`) makes the SDK's
``ChatCompletionStreamState`` (and so ``client.chat.completions.stream(...)``, sync and
async, ``ChatCompletionStream`` and ``AsyncChatCompletionStream``) assemble tool calls
through the core: calls sent with no index, indices starting above 0, one index reused for
two calls, names and ids repeated on every fragment, and an error payload inside the
stream (raised as the SDK's ``APIError`` with the provider's text) no longer crash or
corrupt the completion. Everything else (events, snapshot, ``get_final_completion()``)
is the SDK's own.

Installed, ``client.chat.completions.create(stream=True)`` (sync and async, however the
stream is read, ``with_raw_response`` and ``with_streaming_response`` too) yields the
repaired stream (``streamfix.repair``, wire-shapes R): chunks in OpenAI's own form that
any framework's index-keyed accumulation assembles right. A call cut off or never named
raises :class:`StreamFixAPIError` (an ``openai.APIError`` and a ``streamfix``
error) once everything complete was yielded.

Without patching, use the fixed class directly::

    from streamfix_openai import StreamFixChatCompletionStreamState

    state = StreamFixChatCompletionStreamState(input_tools=tools)
    for chunk in client.chat.completions.create(..., stream=True):
        state.handle_chunk(chunk)
    completion = state.get_final_completion()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._patch import SHIM, SUPPORTED

if TYPE_CHECKING:
    from ._state import StreamFixChatCompletionStreamState
    from ._wire import StreamFixAPIError

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "StreamFixAPIError", "StreamFixChatCompletionStreamState", "available"]
__all__ += ["install", "installed", "uninstall"]


def __getattr__(name: str) -> Any:
    """The fixed class and the wire's error, imported with openai on first use (the
    package imports without)."""
    if name == "StreamFixChatCompletionStreamState":
        from ._state import StreamFixChatCompletionStreamState

        return StreamFixChatCompletionStreamState
    if name == "StreamFixAPIError":
        from ._wire import StreamFixAPIError

        return StreamFixAPIError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
