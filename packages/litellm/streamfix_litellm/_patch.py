"""``streamfix.install("litellm")``: patch litellm's stream parsers.

Replaces ``OllamaChatCompletionResponseIterator.chunk_parser`` (Ollama ``/api/chat``: call
indices and error lines; the iterator looks the method up on its class) and
``CustomStreamWrapper.chunk_creator`` (OpenAI-compatible streams: signature-only tool-call
entries kept); :func:`uninstall` puts each original attribute back exactly.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = [
    "DOCTOR",
    "SHIM",
    "SUPPORTED",
    "TRIGGER",
    "available",
    "install",
    "installed",
    "uninstall",
]

#: The litellm versions this shim was tested on.
SUPPORTED = ">=1.80,<2"

SHIM = Shim(
    name="litellm",
    distribution="litellm",
    supported=SUPPORTED,
    trigger="litellm",
    sites=[
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
)

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = SHIM.trigger
#: The doctor's driver for this framework ("module:attribute", imported when run).
DOCTOR = "streamfix_litellm._doctor:DRIVER"

available = SHIM.available
install = SHIM.install
uninstall = SHIM.uninstall
installed = SHIM.installed
