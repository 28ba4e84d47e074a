"""dspy shim: ``dspy.streamify`` keeps the cause of a streamed program's error.

DSPy's streaming path (``dspy.streamify`` over ``dspy.LM(..., engine="litellm")``) reads
litellm's stream, so the litellm wire (``streamfix.install("litellm")``) repairs what it
yields and what ``litellm.stream_chunk_builder`` builds from it. Where the wire ends a
stream in its typed error (a cut-off call, restarted arguments), ``streamify`` raises
DSPy's error ``from None``, erasing that cause with everything on it (the complete
calls, the partial arguments, the assembled message). ``streamfix.install("litellm",
"dspy")`` keeps it (:func:`single_failure`).

DSPy 3.4's default engine (``"auto"``) streams an ``openai/`` model given only
``api_key``/``api_base`` through its own bundled client (lm15), not litellm: no litellm
patch reaches it; use ``engine="litellm"`` (or the streamfix proxy).
"""

from __future__ import annotations

from ._failure import single_failure
from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "single_failure", "uninstall"]
