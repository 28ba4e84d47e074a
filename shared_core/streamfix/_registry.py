"""The patch registry: find shims through entry points, install and uninstall them.

A shim registers an object (usually its module) under the entry-point group
``streamfix.patches`` with the name users pass to :func:`install`. The object has
``available() -> bool`` (is its framework installed?), ``install()`` (checks the
framework's version, then patches; idempotent) and ``uninstall()`` (restores exactly what
it replaced). A shim that fails is logged and reported, never raised into the host
program, as OpenTelemetry instrumentors do.
"""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint, entry_points
from typing import Protocol, runtime_checkable

__all__ = ["GROUP", "Patch", "install", "installed", "uninstall"]

GROUP = "streamfix.patches"
logger = logging.getLogger("streamfix")

_active: dict[str, Patch] = {}


@runtime_checkable
class Patch(Protocol):
    """What an entry point in ``streamfix.patches`` must load."""

    def available(self) -> bool: ...

    def install(self) -> None: ...

    def uninstall(self) -> None: ...


def _entry_points(names: tuple[str, ...]) -> list[EntryPoint]:
    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    for name in names:
        if name not in found:
            logger.warning("streamfix: no patch named %r (known: %s)", name, sorted(found))
    return [found[name] for name in (names or tuple(sorted(found))) if name in found]


def install(*names: str) -> list[str]:
    """Patch the named frameworks (all installed ones if none named); what is patched.

    Idempotent: a patch already active is kept and listed. A framework that is not
    installed is skipped; a patch that fails to load or install is logged as a warning
    and left out of the result.
    """
    patched: list[str] = []
    for ep in _entry_points(names):
        if ep.name in _active:
            patched.append(ep.name)
            continue
        try:
            patch = ep.load()
            if not isinstance(patch, Patch):
                raise TypeError(f"{ep.value} has no available/install/uninstall")
            if not patch.available():
                logger.debug("streamfix: %s is not installed; not patched", ep.name)
                continue
            patch.install()
        except Exception:
            logger.warning("streamfix: could not patch %s", ep.name, exc_info=True)
            continue
        _active[ep.name] = patch
        patched.append(ep.name)
    return patched


def uninstall(*names: str) -> list[str]:
    """Undo the named patches (all active ones if none named); what was undone."""
    undone: list[str] = []
    for name in names or tuple(_active):
        patch = _active.pop(name, None)
        if patch is None:
            continue
        try:
            patch.uninstall()
        except Exception:
            logger.warning("streamfix: could not uninstall %s", name, exc_info=True)
            continue
        undone.append(name)
    return undone


def installed() -> list[str]:
    """The names of the patches active now."""
    return sorted(_active)
