"""``streamfix.install("openai")``: the openai SDK's chat-completions stream helper
assembles tool calls through the core, and its raw chat-completion streams are repaired.

Replaces ``ChatCompletionStreamState`` in ``openai.lib.streaming.chat._completions`` (the
name ``ChatCompletionStream`` and ``AsyncChatCompletionStream`` build their state from, and
so the stream managers of ``client.chat.completions.stream``) and wherever else it was
imported by name (``openai.lib.streaming.chat``); and ``__stream__`` of ``Stream`` and
``AsyncStream`` in ``openai._streaming`` (what every stream's ``__init__`` builds its
iterator with: class attributes, so every name those classes are imported under sees the
replacement; ``_wire``). :func:`uninstall` puts the SDK's own objects back at each place.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

from ._versions import HELPER_MODULE, STREAMING, SUPPORTED

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
        ),
        Site(STREAMING, "Stream.__stream__", "streamfix_openai._wire:stream"),
        Site(STREAMING, "AsyncStream.__stream__", "streamfix_openai._wire:astream"),
    ],
    trigger="openai",
    # frameworks that read the repaired wire: a doctor column each (``_doctor``)
    more_drivers={
        "langchain": "LANGCHAIN_DRIVER",
        "pydantic-ai": "PYDANTIC_AI_DRIVER",
        "openai-agents": "OPENAI_AGENTS_DRIVER",
        "strands": "STRANDS_DRIVER",
        # two of them on their native paths for the other dialects (wire-shapes J-M),
        # which the wire leaves as shipped (``_doctor_native``; pydantic-ai's: its shim)
        "openai-agents-responses": "OPENAI_AGENTS_RESPONSES_DRIVER",
        "strands-bedrock": "STRANDS_BEDROCK_DRIVER",
    },
)
