"""``streamfix.install("sgpt")``: route shell_gpt's streamed completions through streamfix.

Patches ``sgpt.handlers.handler.Handler.get_completion``, the one place every handler
(default, chat, REPL) streams through; subclasses inherit it. The original attribute is
kept and put back exactly by :func:`uninstall`.
"""

from __future__ import annotations

import os
import sys
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


#: shell_gpt's configuration file (``sgpt.config.SHELL_GPT_CONFIG_PATH``).
_CONFIG = "~/.config/shell_gpt/.sgptrc"


def _needs_key() -> str | None:
    """Why shell_gpt cannot be imported here: its import reads its configuration, and
    without an ``OPENAI_API_KEY`` (in the environment, or in its configuration file) it
    asks for one on the terminal, or fails without one (``getpass``'s ``EOFError``,
    ``UsageError: Missing config key``). Read without importing it; ``None`` once it
    is imported."""
    if "sgpt.config" in sys.modules or os.environ.get("OPENAI_API_KEY"):
        return None
    try:
        with open(os.path.expanduser(_CONFIG), encoding="utf-8") as config:
            lines = config.read().splitlines()
    except OSError:
        lines = []
    key, prefix = None, "OPENAI_API_KEY="
    for line in lines:
        if line.startswith(prefix):
            key = line.removeprefix(prefix).strip()
    return None if key else "shell_gpt needs OPENAI_API_KEY (any value)"


SHIM = Shim(
    "streamfix_sgpt",
    "shell-gpt",
    SUPPORTED,
    [Site("sgpt.handlers.handler", "Handler.get_completion", _cached_get_completion)],
    precondition=_needs_key,
)
