"""autogen shim: ``autogen_ext``'s ``OpenAIChatCompletionClient.create_stream`` keeps
tool calls that arrive beside text.

``create_stream`` yields a delta's text and skips the rest of that delta, so a tool-call
entry in the same delta as text is lost: its id and name (the call reaches the
``CreateResult`` nameless), or the whole call. That happens on OpenAI's own form too
(text and a call in one delta are legal, and the repaired wire keeps a chunk's other
fields on its first entry), so the repaired openai wire alone is not enough:
``streamfix.install("openai", "autogen")`` repairs the stream and hands such a chunk to
autogen as two, the text then the calls (:func:`split`).
"""

from __future__ import annotations

from ._chunks import split
from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "split", "uninstall"]
