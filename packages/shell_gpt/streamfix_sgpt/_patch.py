"""``streamfix.install("sgpt")``: route shell_gpt's streamed completions through streamfix.

Patches ``sgpt.handlers.handler.Handler.get_completion``, the one place every handler
(default, chat, REPL) streams through; subclasses inherit it. The original attribute is
kept and put back exactly by :func:`uninstall`.
"""

from __future__ import annotations

from typing import Any

from streamfix._shimkit import Shim, Site

__all__ = [
    "DOCTOR",
    "SHIM",
    "SUPPORTED",
    "TRIGGER",
    "available",
    "install",
    "installed",
    "uninstall",
]

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
    name="sgpt",
    distribution="shell-gpt",
    supported=SUPPORTED,
    trigger="sgpt.handlers.handler",
    requires=("sgpt",),
    sites=[Site("sgpt.handlers.handler", "Handler.get_completion", _cached_get_completion)],
)

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = SHIM.trigger
#: The doctor's driver for this framework ("module:attribute", imported when run).
DOCTOR = "streamfix_sgpt._doctor:DRIVER"

available = SHIM.available
install = SHIM.install
uninstall = SHIM.uninstall
installed = SHIM.installed
