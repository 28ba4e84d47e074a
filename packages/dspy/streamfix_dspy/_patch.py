"""``streamfix.install("dspy")``: ``dspy.streamify`` keeps the cause of a program's error.

Replaces ``_single_failure`` in ``dspy.streaming.streamify`` (looked up by the streamer
when the program fails). Meant with the litellm wire (``streamfix.install("litellm",
"dspy")``): the wire ends a stream it cannot hand on whole in its typed error, this lets
that error reach the user as the cause of DSPy's own.
"""

from __future__ import annotations

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The dspy versions this shim was tested on.
SUPPORTED = ">=3.4,<3.5"

SHIM = Shim(
    "streamfix_dspy",
    "dspy",
    SUPPORTED,
    [
        Site(
            "dspy.streaming.streamify",
            "_single_failure",
            "streamfix_dspy._failure:single_failure",
        ),
    ],
    trigger="dspy.streaming.streamify",
    requires=("dspy", "litellm"),
)
