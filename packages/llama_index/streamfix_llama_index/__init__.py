"""llama-index shim: ``llama_index.llms.openai``'s streamed tool calls kept apart by index.

``OpenAI.stream_chat`` / ``astream_chat`` (and so ``stream_chat_with_tools`` and the
agents built on them) accumulate tool-call deltas with ``update_tool_calls``, which
compares a delta's ``index`` with the *last* call only and reads only the first entry of a
chunk: calls whose fragments interleave (B1), or an entry for an earlier call after a later
one began (a late thought signature, F2, as the repaired wire sends it), become extra,
nameless calls. That is wrong on OpenAI's own form, so the repaired openai wire alone is
not enough: ``streamfix.install("openai", "llama_index")`` repairs the stream and replaces
``update_tool_calls`` with :func:`update_tool_calls`, which merges each entry into the call
of its index. Without patching, pass the function where llama-index's is used.
"""

from __future__ import annotations

from ._patch import SHIM, SUPPORTED
from ._tool_calls import update_tool_calls

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall", "update_tool_calls"]
