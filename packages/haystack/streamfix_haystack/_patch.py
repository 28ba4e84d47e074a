"""``streamfix.install("haystack")``: haystack's ``OpenAIChatGenerator`` takes a delta that
carries text and tool calls.

Replaces ``OpenAIChatGenerator._handle_stream_response`` and
``_handle_async_stream_response`` in ``haystack.components.generators.chat.openai`` (class
attributes: every subclass that does not override them, ``AzureOpenAIChatGenerator``
included, resolves them there). Meant with the openai wire
(``streamfix.install("openai", "haystack")``): the wire puts every call in OpenAI's own
form, this makes haystack read that form whole.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The haystack-ai versions this shim was tested on.
SUPPORTED = ">=3.0,<4"

_MODULE = "haystack.components.generators.chat.openai"

SHIM = Shim(
    "streamfix_haystack",
    "haystack-ai",
    SUPPORTED,
    [
        Site(
            _MODULE,
            "OpenAIChatGenerator._handle_stream_response",
            "streamfix_haystack._stream:handle_stream_response",
        ),
        Site(
            _MODULE,
            "OpenAIChatGenerator._handle_async_stream_response",
            "streamfix_haystack._stream:handle_async_stream_response",
        ),
    ],
    trigger=_MODULE,
    requires=("haystack",),
)
