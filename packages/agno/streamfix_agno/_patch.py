"""``streamfix.install("agno")``: agno's ``OpenAIChat`` keeps a streamed call's
``extra_content`` (Gemini's thought signature) as its non-streamed path does.

Replaces ``OpenAIChat.parse_tool_calls`` in ``agno.models.openai.chat`` (a class
attribute: ``OpenAILike`` and every provider class built on ``OpenAIChat`` that does not
override it resolve it there). Meant with the openai wire
(``streamfix.install("openai", "agno")``): the wire puts every call and its signature in
OpenAI's own form, this keeps the signature on agno's call.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The agno versions this shim was tested on.
SUPPORTED = ">=3.0,<4"

_MODULE = "agno.models.openai.chat"

SHIM = Shim(
    "streamfix_agno",
    "agno",
    SUPPORTED,
    [Site(_MODULE, "OpenAIChat.parse_tool_calls", "streamfix_agno._calls:PARSE_TOOL_CALLS")],
    trigger=_MODULE,
    requires=("agno",),
)
