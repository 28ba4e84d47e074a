"""litellm shim: streams that keep every tool call, their signatures and Ollama's errors.

``streamfix.install("litellm")`` (or :func:`install`) replaces
``OllamaChatCompletionResponseIterator.chunk_parser``, litellm's parser of Ollama's
``/api/chat`` NDJSON lines, ``CustomStreamWrapper.chunk_creator``, ``__next__`` and
``__anext__``:

- every stream litellm yields (``completion(stream=True)``, ``acompletion``, every
  provider) is the repaired stream of wire-shapes R, in OpenAI's own form, so a consumer
  that joins fragments by ``index`` builds the calls right; a cut-off call raises
  ``litellm.APIError`` and a provider's error litellm's exception for it, once everything
  complete was yielded (``_wire``);

- every tool call of the stream gets its own ``index`` (stock litellm gives each call
  index 0, so two calls sent on two lines are glued together by consumers): installed,
  the repaired stream numbers them; the fixed parser used on its own does;
- an ``{"error": "..."}`` line (no ``message`` key, e.g. Ollama running out of memory)
  raises a 5xx litellm error carrying Ollama's own text (stock: ``KeyError: 'message'``
  reported as a 400);
- ``stream_chunk_builder`` (at every binding site: ``litellm``, ``litellm.main``...)
  assembles through streamfix's core and returns the ``ModelResponse`` litellm's
  non-streamed path returns for the same response; provider errors and truncated calls
  raise litellm's own exceptions (see ``_builder``);
- a tool-call entry carrying only a thought signature (no ``function``) survives litellm's
  validation in OpenAI-compatible streams instead of emptying its chunk (stock: the
  signature is lost and Gemini rejects the next request).

Without patching, a subclass can use the fixed parser directly::

    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator
    import streamfix_litellm

    class MyIterator(OllamaChatCompletionResponseIterator):
        chunk_parser = streamfix_litellm.chunk_parser
"""

from __future__ import annotations

from ._builder import stream_chunk_builder
from ._ollama import chunk_parser
from ._openai import chunk_creator
from ._patch import SHIM, SUPPORTED
from ._wire import rebuild, repaired

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall"]
__all__ += ["chunk_creator", "chunk_parser", "rebuild", "repaired", "stream_chunk_builder"]
