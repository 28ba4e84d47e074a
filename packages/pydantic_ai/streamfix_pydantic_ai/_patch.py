"""``streamfix.install("pydantic_ai")``: pydantic-ai's ``GoogleModel`` reads Gemini 3's
streamed function-call arguments (wire-shapes L3) as whole calls.

Replaces ``GoogleModel._process_streamed_response`` in ``pydantic_ai.models.google`` (a
class attribute: every instance and subclass resolves it there) with one that hands the
model :func:`~streamfix_pydantic_ai._gemini.whole_calls` of the response's chunks. Its
doctor columns: ``pydantic_ai`` (``GoogleModel``), ``pydantic-ai-anthropic`` and
``pydantic-ai-responses`` (``_doctor``).
"""

from __future__ import annotations

from typing import Any

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The pydantic-ai versions this shim was tested on.
SUPPORTED = ">=2.60,<3"


def _gemini_reader(original: Any) -> Any:
    from ._gemini import process_streamed_response

    return process_streamed_response(original)


SHIM = Shim(
    "streamfix_pydantic_ai",
    "pydantic-ai-slim",
    SUPPORTED,
    [
        Site(
            "pydantic_ai.models.google",
            "GoogleModel._process_streamed_response",
            _gemini_reader,
        ),
    ],
    trigger="pydantic_ai.models.google",
    requires=("pydantic_ai", "google.genai"),
    more_drivers={
        "pydantic-ai-anthropic": "PYDANTIC_AI_ANTHROPIC_DRIVER",
        "pydantic-ai-responses": "PYDANTIC_AI_RESPONSES_DRIVER",
    },
)
