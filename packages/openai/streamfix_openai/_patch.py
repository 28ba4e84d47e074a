"""``streamfix.install("openai")``: the openai SDK's chat-completions stream helper
assembles tool calls through the core.

Replaces ``ChatCompletionStreamState`` in ``openai.lib.streaming.chat._completions`` (the
name ``ChatCompletionStream`` and ``AsyncChatCompletionStream`` build their state from, and
so the stream managers of ``client.chat.completions.stream``) and wherever else it was
imported by name (``openai.lib.streaming.chat``); :func:`uninstall` puts the SDK's class
back at each of those places.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

from ._versions import HELPER_MODULE, SUPPORTED

__all__ = ["SHIM", "SUPPORTED"]

SHIM = Shim(
    "streamfix_openai",
    "openai",
    SUPPORTED,
    [
        Site(
            HELPER_MODULE,
            "ChatCompletionStreamState",
            "streamfix_openai._state:StreamFixChatCompletionStreamState",
            everywhere=True,
        )
    ],
    trigger="openai",
)
