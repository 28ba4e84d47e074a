"""``streamfix.install("sgpt")``: route shell_gpt's streamed completions through streamfix.

Patches ``sgpt.handlers.handler.Handler.get_completion``, the one place every handler
(default, chat, REPL) streams through; subclasses inherit it. The original attribute is
kept and put back exactly by :func:`uninstall`.
"""

from __future__ import annotations

from typing import Any

from streamfix._shimkit import Shim, Site

__all__ = ["SHIM", "SUPPORTED"]

#: The shell-gpt versions this shim was written and tested for.
SUPPORTED = "==1.5.*"


def _cached_get_completion(_original: Any) -> Any:
    """The fixed body behind shell_gpt's own cache decorator, as stock has it."""
    from sgpt.handlers.handler import Handler

    from ._handler import get_completion

    fixed = Handler.cache(get_completion)
    fixed.__streamfix__ = True
    return fixed


SHIM = Shim(
    "streamfix_sgpt",
    "shell-gpt",
    SUPPORTED,
    [Site("sgpt.handlers.handler", "Handler.get_completion", _cached_get_completion)],
)
