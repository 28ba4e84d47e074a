"""agno shim: ``OpenAIChat``'s streamed calls keep their thought signatures.

agno's ``Agent(..., stream=True)`` on ``OpenAIChat`` (and ``OpenAILike`` and the provider
classes built on it) builds each streamed call from its id, type, name and arguments
alone, while its non-streamed path keeps the SDK's whole call: a Gemini thought signature
(``extra_content``) survives the non-streamed path and is dropped by the streamed one,
and Gemini rejects the next request. ``streamfix.install("openai", "agno")`` repairs the
stream (every call apart, named once, its arguments whole: what the wire alone fixes)
and puts each entry's ``extra_content`` back on its call (:func:`parse_tool_calls`).
Without patching, a subclass of ``OpenAIChat`` can take it as its own
``parse_tool_calls = staticmethod(streamfix_agno.parse_tool_calls)`` (it calls agno's,
found on ``OpenAIChat``).
"""

from __future__ import annotations

from ._calls import parse_tool_calls
from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "parse_tool_calls", "uninstall"]
