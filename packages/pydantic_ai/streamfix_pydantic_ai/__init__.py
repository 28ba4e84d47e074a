"""pydantic-ai shim: ``GoogleModel`` reads Gemini 3's streamed function-call arguments.

pydantic-ai's native Gemini path (``GoogleModel``, on google-genai's
``generate_content_stream``) reads a ``functionCall`` part's ``name``, ``args`` and ``id``
only: a call streamed by JSON path (``partialArgs``, wire-shapes L3) loses its arguments,
and its continuation parts crash the stream. ``streamfix.install("pydantic_ai")`` hands
the model each such call whole, its arguments rebuilt by the core
(:func:`whole_calls`). Its other native paths (``AnthropicModel``,
``OpenAIResponsesModel``) and its openai chat-completions path (the ``openai`` wire) need
no shim of their own.
"""

from __future__ import annotations

from ._gemini import whole_calls
from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall", "whole_calls"]
