"""Patch smolagents: ``install()`` / ``uninstall()`` (entry point ``smolagents``).

Binding sites of ``agglomerate_stream_deltas``:

* ``smolagents.models`` defines it: it gets the drop-in
  :func:`~streamfix_smolagents.agglomerate_stream_deltas`;
* ``smolagents.agents`` (the streamed step) and ``smolagents.gradio_ui`` (the live chat)
  imported the name at import time and call it on a growing list at every live update:
  they get :func:`~streamfix_smolagents.agglomerate_growing_deltas` (linear time, same
  final message).

Whatever each site held before is saved and put back by :func:`uninstall`.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

SUPPORTED = ">=1.24,<2"
"""The smolagents versions this patch supports (tested: 1.24 and the newest)."""

NAME = "agglomerate_stream_deltas"
_GROWING = "streamfix_smolagents._incremental:agglomerate_growing_deltas"

SHIM = Shim(
    "streamfix_smolagents",
    "smolagents",
    SUPPORTED,
    [
        Site("smolagents.models", NAME, "streamfix_smolagents._agglomerate:" + NAME),
        Site("smolagents.agents", NAME, _GROWING, optional=True),
        # An optional UI whose own dependencies may be missing.
        Site("smolagents.gradio_ui", NAME, _GROWING, optional=True),
    ],
    trigger="smolagents",
)
