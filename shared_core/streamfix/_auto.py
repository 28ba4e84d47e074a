"""Activate every installed patch from interpreter start: each applies when the program
imports its framework (interpreter start imports no framework).

Imported by ``streamfix run``'s ``sitecustomize`` and, when ``STREAMFIX_AUTO`` is set to
anything but ``""``/``"0"``, by the ``adk_streamfix_auto.pth`` file the wheel installs (its
one line checks the variable before importing anything, so it costs nothing otherwise).
Never raises: a failing patch is logged by :func:`streamfix.install`.
"""

from __future__ import annotations

import logging
import os

__all__ = ["ENV", "activate", "enabled"]

ENV = "STREAMFIX_AUTO"


def enabled() -> bool:
    """Whether ``STREAMFIX_AUTO`` asks for the patches."""
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def activate() -> list[str]:
    """``streamfix.install_on_import()``: each installed framework is patched when the
    program imports it; the names patched or waiting (never raises)."""
    try:
        from ._registry import install_on_import  # noqa: PLC0415 (kept out of start-up)

        return install_on_import()
    except Exception:
        logging.getLogger("streamfix").warning("streamfix: auto-activation failed", exc_info=True)
        return []


if enabled():  # imported by the .pth file only when asked; by sitecustomize always
    activate()
