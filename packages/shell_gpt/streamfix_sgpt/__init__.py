"""shell_gpt shim: run every streamed tool call, each with its own arguments.

``streamfix.install("sgpt")`` (or :func:`install`) patches ``Handler.get_completion``, which
every shell_gpt handler (default, chat, REPL) streams through. Without patching, a handler
class can use the fixed body directly::

    from sgpt.handlers.default_handler import DefaultHandler
    from sgpt.handlers.handler import Handler
    import streamfix_sgpt

    class MyHandler(DefaultHandler):
        get_completion = Handler.cache(streamfix_sgpt.get_completion)
"""

from __future__ import annotations

from ._handler import get_completion, run_tool_calls
from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall"]
__all__ += ["get_completion", "run_tool_calls"]
