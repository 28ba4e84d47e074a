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

import importlib
import importlib.util
import re
import sys
from importlib.metadata import PackageNotFoundError, version
from types import ModuleType
from typing import Any

__all__ = ["SUPPORTED", "TRIGGER", "available", "install", "installed", "uninstall"]

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = "smolagents"

#: ``streamfix doctor``'s driver, as "module:attribute" (imported only when the doctor runs it).
DOCTOR = "streamfix_smolagents._doctor:DRIVER"

SUPPORTED = (">=1.24", "<2")
"""The smolagents versions this patch supports (tested: 1.24 and the newest)."""
_LOWEST, _BELOW = (1, 24), (2,)

NAME = "agglomerate_stream_deltas"
_saved: dict[str, Any] = {}  # module name -> what it bound to NAME before install()


def available() -> bool:
    """Whether smolagents is installed."""
    return importlib.util.find_spec("smolagents") is not None


def _check_version() -> str:
    try:
        found = version("smolagents")
    except PackageNotFoundError as exc:
        raise RuntimeError("streamfix_smolagents: smolagents is not installed") from exc
    numbers = tuple(int(part) for part in re.findall(r"\d+", found)[:3])
    if not _LOWEST <= numbers < _BELOW:
        raise RuntimeError(
            f"streamfix_smolagents supports smolagents {','.join(SUPPORTED)}; "
            f"smolagents {found} is installed: not patched"
        )
    return found


def _sites() -> list[tuple[ModuleType, Any]]:
    """(module, replacement) for every binding site that can be imported."""
    # Imported here: they import smolagents, and available() must work without it.
    from ._agglomerate import agglomerate_stream_deltas
    from ._incremental import agglomerate_growing_deltas

    sites = [(importlib.import_module("smolagents.models"), agglomerate_stream_deltas)]
    for name in ("smolagents.agents", "smolagents.gradio_ui"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional UI whose own dependencies are missing
            continue
        if hasattr(module, NAME):
            sites.append((module, agglomerate_growing_deltas))
    return sites


def install() -> None:
    """Patch every binding site. Idempotent; raises on an unsupported smolagents."""
    if _saved:
        return
    _check_version()
    sites = _sites()
    for module, _replacement in sites:
        _saved[module.__name__] = getattr(module, NAME)
    for module, replacement in sites:
        setattr(module, NAME, replacement)


def uninstall() -> None:
    """Put back exactly what each site held before :func:`install`. Idempotent."""
    while _saved:
        name, original = _saved.popitem()
        module = sys.modules.get(name)
        if module is not None:
            setattr(module, NAME, original)


def installed() -> bool:
    """Whether the patch is active."""
    return bool(_saved)
