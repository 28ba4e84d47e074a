"""``streamfix.install("litellm")``: patch litellm's stream parsers.

Replaces ``OllamaChatCompletionResponseIterator.chunk_parser`` (Ollama ``/api/chat``: call
indices and error lines; the iterator looks the method up on its class) and
``CustomStreamWrapper.chunk_creator`` (OpenAI-compatible streams: signature-only tool-call
entries kept); :func:`uninstall` puts each original attribute back exactly.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The litellm versions this shim was tested on.
SUPPORTED = ">=1.80,<2"

SHIM = Shim(
    "streamfix_litellm",
    "litellm",
    SUPPORTED,
    [
        Site(
            "litellm.llms.ollama.chat.transformation",
            "OllamaChatCompletionResponseIterator.chunk_parser",
            "streamfix_litellm._ollama:chunk_parser",
        ),
        Site(
            "litellm.litellm_core_utils.streaming_handler",
            "CustomStreamWrapper.chunk_creator",
            "streamfix_litellm._openai:chunk_creator",
        ),
    ],
    trigger="litellm",
)
