"""``streamfix.install("sgpt")``: route shell_gpt's streamed completions through streamfix.

Patches ``sgpt.handlers.handler.Handler.get_completion``, the one place every handler
(default, chat, REPL) streams through; subclasses inherit it. The original attribute is
kept and put back exactly by :func:`uninstall`.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version
from typing import Any

__all__ = ["SUPPORTED", "TRIGGER", "available", "install", "uninstall"]

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = "sgpt.handlers.handler"

#: ``streamfix doctor``'s driver, as "module:attribute" (imported only when the doctor runs it).
DOCTOR = "streamfix_sgpt._doctor:DRIVER"

SUPPORTED = ("1.5",)  # shell-gpt minor versions this shim was written and tested for

_original: Any = None


def available() -> bool:
    """Is shell_gpt installed?"""
    return importlib.util.find_spec("sgpt") is not None


def _check_version() -> None:
    try:
        installed = version("shell-gpt")
    except PackageNotFoundError as error:  # pragma: no cover - available() said yes
        raise RuntimeError("shell-gpt is not installed") from error
    if not installed.startswith(tuple(f"{minor}." for minor in SUPPORTED)):
        raise RuntimeError(
            f"shell-gpt {installed} is not supported by streamfix_sgpt (supported: "
            f"{', '.join(v + '.x' for v in SUPPORTED)}); not patched"
        )


def install() -> None:
    """Patch ``Handler.get_completion`` (idempotent)."""
    global _original
    if _original is not None:
        return
    _check_version()
    from sgpt.handlers.handler import Handler

    from ._handler import get_completion

    _original = Handler.__dict__["get_completion"]
    Handler.get_completion = Handler.cache(get_completion)  # type: ignore[method-assign]
    Handler.get_completion.__streamfix__ = True  # type: ignore[attr-defined]


def uninstall() -> None:
    """Put the original ``Handler.get_completion`` back (idempotent)."""
    global _original
    if _original is None:
        return
    from sgpt.handlers.handler import Handler

    Handler.get_completion = _original  # type: ignore[method-assign]
    _original = None
