"""``install()`` / ``uninstall()`` for google-adk, registered as the ``adk`` patch.

After :func:`install`, every ``google.adk.models.lite_llm.LiteLlm`` instance streams
through streamfix, including instances (and subclasses) created before: the method is
replaced on the class itself, the one place every binding resolves it from. ADK's native
``Gemini`` streams through streamfix too: the aggregator class its module builds each
stream's responses with (``google_llm.StreamingResponseAggregator``) is replaced
(``_gemini``).
:func:`uninstall` puts ADK's own method back, and ADK's partial-arguments tracker if a
fixed stream replaced it.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

from ._versions import SUPPORTED, live_calls

__all__ = ["SHIM", "SUPPORTED"]


def _restore_tracker() -> None:
    """A fixed stream points ADK's tracker name at a dispatcher (``_tracker``)."""
    if live_calls():
        from ._tracker import restore

        restore()


SHIM = Shim(
    "streamfix_adk",
    "google-adk",
    SUPPORTED,
    [
        Site(
            "google.adk.models.lite_llm",
            "LiteLlm.generate_content_async",
            "streamfix_adk._model:fixed_generate_content_async",
        ),
        Site(
            "google.adk.models.google_llm",
            "StreamingResponseAggregator",
            "streamfix_adk._gemini:StreamFixStreamingResponseAggregator",
        ),
    ],
    trigger=("google.adk.models.lite_llm", "google.adk.models.google_llm"),
    requires=("google.adk", "litellm"),
    on_uninstall=_restore_tracker,
    more_drivers={"adk-gemini": "GEMINI_DRIVER"},
)
