"""google-adk shim: ``LiteLlm`` streaming assembled by streamfix.

>>> from streamfix_adk import StreamFixLiteLlm       # doctest: +SKIP
>>> agent = Agent(model=StreamFixLiteLlm(model="ollama_chat/qwen3"), ...)  # doctest: +SKIP

or patch every ``LiteLlm``: ``streamfix.install("adk")`` (or ``streamfix_adk.install()``).

google-adk is imported only when a class is asked for or the patch is installed, so the
patch registry can ask :func:`available` on a machine without google-adk.
"""

from __future__ import annotations

from typing import Any

from ._patch import SHIM, SUPPORTED

available, install, installed, uninstall = SHIM.functions()

__all__ = ["SUPPORTED", "available", "install", "installed", "uninstall"]
__all__ += ["StreamFixLiteLlm", "fixed_generate_content_async"]

_LAZY = ("StreamFixLiteLlm", "fixed_generate_content_async")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import _model

        return getattr(_model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
