"""``streamfix.install("autogen")``: autogen-ext's OpenAI client keeps tool calls that
arrive beside text.

Replaces ``_create_stream_chunks`` and ``_create_stream_chunks_beta_client`` of
``BaseOpenAIChatCompletionClient`` in ``autogen_ext.models.openai._openai_client`` (class
attributes: ``OpenAIChatCompletionClient`` and ``AzureOpenAIChatCompletionClient`` inherit
them), the chunk sources ``create_stream`` reads. Meant with the openai wire
(``streamfix.install("openai", "autogen")``): the wire puts every call in OpenAI's own
form, this makes autogen read a chunk with text and calls in it.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The autogen-ext versions this shim was tested on.
SUPPORTED = ">=0.7,<0.8"

_MODULE = "autogen_ext.models.openai._openai_client"

SHIM = Shim(
    "streamfix_autogen",
    "autogen-ext",
    SUPPORTED,
    [
        Site(
            _MODULE,
            "BaseOpenAIChatCompletionClient._create_stream_chunks",
            "streamfix_autogen._chunks:create_stream_chunks",
        ),
        Site(
            _MODULE,
            "BaseOpenAIChatCompletionClient._create_stream_chunks_beta_client",
            "streamfix_autogen._chunks:create_stream_chunks_beta_client",
        ),
    ],
    trigger="autogen_ext.models.openai",
    requires=("autogen_ext.models.openai",),
)
