"""haystack shim: ``OpenAIChatGenerator`` streams a delta that carries text and tool calls.

haystack's ``OpenAIChatGenerator(streaming_callback=...)`` turns each chat-completion
chunk into one ``StreamingChunk``, which may hold text or tool calls but not both: a delta
with both (legal in OpenAI's form; sent by Mistral, Groq and gateways, wire-shapes A2)
raises ``ValueError`` and the reply is lost, on the repaired wire too (which passes such
a chunk on as it came). ``streamfix.install("openai", "haystack")`` repairs the stream and
hands such a delta to haystack as two chunks, text then calls (:func:`split`); every other
chunk is haystack's as before. What the wire alone fixes (calls glued or deleted, an entry
with no ``index``, truncated arguments) needs nothing here.
"""

from __future__ import annotations

from ._patch import SHIM, SUPPORTED
from ._split import split

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "split", "uninstall"]
