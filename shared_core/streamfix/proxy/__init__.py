"""streamfix.proxy: the repaired stream over HTTP, for any client in any language.

:func:`create_app` makes a plain ASGI application that forwards every request to one
upstream (an OpenAI-compatible server's root, or Ollama's) and repairs the streamed chat
answers on their way back (docs/wire-shapes.md, section R):

- ``POST .../chat/completions`` with ``"stream": true``: the upstream's SSE, repaired,
  as SSE in OpenAI's framing (``data: {...}``, ``data: [DONE]``); an error the stream ends
  with is the event ``data: {"error": {...}}`` and no ``[DONE]`` follows;
- ``POST .../api/chat`` (Ollama, streamed): NDJSON in Ollama's own form, repaired (each
  call complete, on its own line, its arguments an object; an error as Ollama's
  ``{"error": "..."}`` line);
- everything else (non-streamed requests, other paths and methods): forwarded as is.

It never changes a request and never retries; it keeps nothing between requests (run it
with ``uvicorn --factory streamfix.proxy:create_app --workers N``, the upstream in
``STREAMFIX_UPSTREAM``). ``--record DIR`` (``record=``) also saves every streamed answer
as the upstream sent it, as a capture. The command line: ``streamfix proxy --upstream
URL`` (``streamfix record`` is the same app, forwarding without repair).

httpx and uvicorn (the ``proxy`` extra) are imported when the app first forwards a
request and when a server starts; ``import streamfix`` never imports this package.
"""

from ._app import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_READ_TIMEOUT,
    ENV,
    ProxyApp,
    ProxyServer,
    create_app,
)
from ._record import Recorder
from ._wire import RepairedStream

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_READ_TIMEOUT",
    "ENV",
    "ProxyApp",
    "ProxyServer",
    "Recorder",
    "RepairedStream",
    "create_app",
]
