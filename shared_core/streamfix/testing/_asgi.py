"""The ASGI helpers the replay server runs on, from :mod:`streamfix._asgi` (shared with
the proxy, which never imports the test kit)."""

from __future__ import annotations

from .._asgi import (
    BackgroundServer,
    Message,
    Receive,
    Send,
    lifespan,
    read_body,
    read_json,
    send_json,
)

__all__ = [
    "BackgroundServer",
    "Message",
    "Receive",
    "Send",
    "lifespan",
    "read_body",
    "read_json",
    "send_json",
]
