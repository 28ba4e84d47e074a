"""streamfix for smolagents: ``agglomerate_stream_deltas`` that keeps parallel calls apart,
and models' ``generate_stream`` that read choice 0 alone and raise provider errors.

Use the drop-in directly, or patch smolagents so its agents and UI use it::

    import streamfix
    streamfix.install("smolagents")   # or streamfix_smolagents.install()

Assembling is done by the shared core (``import streamfix``); this package only converts
smolagents' stream deltas into chunks and the result into smolagents' ``ChatMessage``.
The names that need smolagents are imported on first use, so that the patch registry can
ask :func:`available` without smolagents installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._patch import SHIM, SUPPORTED
from ._stream import choice_zero_events, choice_zero_stream

available, install, installed, uninstall = SHIM.functions()

if TYPE_CHECKING:
    from ._agglomerate import agglomerate_stream_deltas, delta_to_chunk, to_chat_message
    from ._incremental import StreamDeltaAggregator, agglomerate_growing_deltas

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall"]
__all__ += [
    "StreamDeltaAggregator",
    "agglomerate_growing_deltas",
    "agglomerate_stream_deltas",
    "choice_zero_events",
    "choice_zero_stream",
    "delta_to_chunk",
    "to_chat_message",
]

_LAZY = {
    "agglomerate_stream_deltas": "._agglomerate",
    "delta_to_chunk": "._agglomerate",
    "to_chat_message": "._agglomerate",
    "StreamDeltaAggregator": "._incremental",
    "agglomerate_growing_deltas": "._incremental",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
