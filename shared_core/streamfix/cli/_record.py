"""``streamfix record``: the proxy (:mod:`streamfix.proxy`) forwarding without repair,
saving every streamed response as a capture.

Put it in front of an OpenAI-compatible or Ollama endpoint and point the client at it.
Every request is forwarded to ``upstream`` (same method, path, query, headers, body) and
the response is passed back unchanged, byte for byte, as it arrives. A streamed response
(``text/event-stream`` or ``application/x-ndjson``) is also saved, once complete, as a
JSONL capture (one chunk per line) in ``out_dir``, named ``NNNN-<model>.jsonl``, for
``streamfix replay`` and ``streamfix serve --replay`` (the proxy's ``--record``).

``streamfix proxy --record DIR`` is the same app repairing the streams it passes on (the
captures are the upstream's streams, as sent).
"""

from __future__ import annotations

from pathlib import Path

from ..proxy import ProxyApp
from ..testing import BackgroundServer

__all__ = ["RecordApp", "RecordServer"]


class RecordApp(ProxyApp):
    """The proxy, forwarding as is and recording into ``out_dir``. ``captures`` lists the
    files written."""

    def __init__(self, upstream: str, out_dir: str | Path) -> None:
        super().__init__(upstream, record=out_dir, repair=False, label="streamfix record")


class RecordServer(BackgroundServer):
    """:class:`RecordApp` on uvicorn in a background thread (``port=0``: a free port)."""

    name = "streamfix-record"
    app: RecordApp

    def __init__(
        self, upstream: str, out_dir: str | Path, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        super().__init__(RecordApp(upstream, out_dir), host, port)

    @property
    def captures(self) -> list[Path]:
        return self.app.captures
