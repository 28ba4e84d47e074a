"""``streamfix.install("llama_index")``: llama-index's OpenAI LLM keeps streamed tool calls
apart by index.

Replaces ``update_tool_calls`` in ``llama_index.llms.openai.utils`` and wherever it was
imported by name (``llama_index.llms.openai.base``, whose ``OpenAI._stream_chat`` and
``_astream_chat`` call it; ``OpenAILike`` inherits them). Meant with the openai wire
(``streamfix.install("openai", "llama_index")``): the wire puts every call in OpenAI's own
form, this makes llama-index read that form right.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The llama-index-llms-openai versions this shim was tested on.
SUPPORTED = ">=0.6,<0.9"

SHIM = Shim(
    "streamfix_llama_index",
    "llama-index-llms-openai",
    SUPPORTED,
    [
        Site(
            "llama_index.llms.openai.utils",
            "update_tool_calls",
            "streamfix_llama_index._tool_calls:update_tool_calls",
            everywhere=True,
        ),
    ],
    trigger="llama_index.llms.openai",
    requires=("llama_index.llms.openai",),
)
