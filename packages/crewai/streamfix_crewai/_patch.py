"""``streamfix.install("crewai")``: crewai's streamed litellm path keeps the calls' ids
and its stream's error, as its non-streamed path does.

Replaces ``LLM._handle_streaming_response``, ``LLM._ahandle_streaming_response``,
``LLM._extract_finish_reason_and_response_id`` and ``LLM._handle_emit_call_events`` on
``crewai.llm.LLM`` (class attributes: every instance
and subclass reads them there). Meant with the litellm wire
(``streamfix.install("litellm", "crewai")``): the wire puts every call in OpenAI's own form,
this makes crewai keep what that form carries.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The crewai versions this shim was tested on.
SUPPORTED = ">=1.15,<2"

_FIX = "streamfix_crewai._streaming"

SHIM = Shim(
    "streamfix_crewai",
    "crewai",
    SUPPORTED,
    [
        Site("crewai.llm", "LLM._handle_streaming_response", f"{_FIX}:handle_streaming_response"),
        Site(
            "crewai.llm",
            "LLM._ahandle_streaming_response",
            f"{_FIX}:ahandle_streaming_response",
        ),
        Site(
            "crewai.llm",
            "LLM._extract_finish_reason_and_response_id",
            f"{_FIX}:extract_finish_reason_and_response_id",
        ),
        Site("crewai.llm", "LLM._handle_emit_call_events", f"{_FIX}:handle_emit_call_events"),
    ],
    trigger="crewai.llm",
    requires=("crewai", "litellm"),  # top-level: finding them imports neither
)
