"""The patch registry: find shims through entry points, install and uninstall them.

A shim registers an object (usually its module) under the entry-point group
``streamfix.patches`` with the name users pass to :func:`install`. The object has
``available() -> bool`` (is its framework installed?), ``install()`` (checks the
framework's version, then patches; idempotent) and ``uninstall()`` (restores exactly what
it replaced). A shim that fails is logged and reported, never raised into the host
program, as OpenTelemetry instrumentors do.

A shim may also name ``TRIGGER``, the module its patch changes: :func:`install` then
patches the framework at once if the program has imported that module already, else when
the program imports it, so a program pays for importing only the frameworks it uses (and
``install()`` takes milliseconds, not the seconds importing every installed framework
takes). A shim may name ``check()``, which refuses (raises) without importing the
framework: it is asked before the registry waits, so that what :func:`install` returns
is what will be patched.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # entry points are read only when a patch is asked for
    import importlib.machinery
    from importlib.metadata import EntryPoint

__all__ = ["GROUP", "Patch", "install", "install_on_import", "installed", "uninstall"]

GROUP = "streamfix.patches"


class _Log:
    """``logging.getLogger("streamfix")``, imported on first use (logging loads
    threading, which ``import streamfix`` must not)."""

    def __getattr__(self, name: str) -> Any:
        import logging  # noqa: PLC0415

        return getattr(logging.getLogger("streamfix"), name)


logger: Any = _Log()

_active: dict[str, Patch] = {}
# Patches waiting for their framework's import: name -> (patch, trigger, the hook).
_waiting: dict[str, tuple[Patch, tuple[str, ...], Callable[[ModuleType], object]]] = {}


@runtime_checkable
class Patch(Protocol):
    """What an entry point in ``streamfix.patches`` must load."""

    def available(self) -> bool: ...

    def install(self) -> None: ...

    def uninstall(self) -> None: ...


def _entry_points(names: tuple[str, ...]) -> list[EntryPoint]:
    from importlib.metadata import entry_points  # noqa: PLC0415 (not at import streamfix)

    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    for name in names:
        if name not in found:
            logger.warning("streamfix: no patch named %r (known: %s)", name, sorted(found))
    return [found[name] for name in (names or tuple(sorted(found))) if name in found]


def _load(ep: EntryPoint) -> Patch | None:
    """The patch behind ``ep`` if its framework is installed (failures logged)."""
    try:
        patch = ep.load()
        if not isinstance(patch, Patch):
            raise TypeError(f"{ep.value} has no available/install/uninstall")
        if not patch.available():
            logger.debug("streamfix: %s is not installed; not patched", ep.name)
            return None
    except Exception as error:
        _failed(ep.name, error)
        return None
    return patch


def _failed(name: str, error: Exception) -> None:
    """A patch that could not be installed, logged: one line when the shim says why
    (``ShimSkipped``: the framework's own configuration is missing), else with the
    traceback."""
    if type(error).__name__ == "ShimSkipped":  # _shimkit's; not imported at import streamfix
        logger.warning("%s skipped: %s", name, error)
    else:
        logger.warning("streamfix: could not patch %s", name, exc_info=error)


def _activate(name: str, patch: Patch) -> bool:
    if name in _active:
        return True
    try:
        patch.install()
    except Exception as error:
        _failed(name, error)
        return False
    _active[name] = patch
    return True


def install(*names: str) -> list[str]:
    """Patch the named frameworks (all installed ones if none named); what is patched
    or waiting to be.

    A framework whose patched module (the shim's ``TRIGGER``) the program has imported
    is patched at once; any other is patched when the program imports that module, right
    after the module has run, before the program can use it (a shim without
    ``TRIGGER``: at once). So ``install()`` imports no framework. What the shim can check
    without the import (its ``check()``: the framework's version, its configuration) is
    checked first.

    Idempotent: a patch already active or waiting is kept and listed. A framework that
    is not installed is skipped; a patch that fails to load, check or install is logged
    as a warning and left out of the result (a patch that fails when its framework is
    imported later is logged then, and no longer listed by :func:`installed`).
    """
    done: list[str] = []
    for ep in _entry_points(names):
        if ep.name in _active or ep.name in _waiting:
            done.append(ep.name)
            continue
        patch = _load(ep)
        if patch is None:
            continue
        trigger = getattr(patch, "TRIGGER", None)
        triggers = (trigger,) if isinstance(trigger, str) else tuple(trigger or ())
        if not triggers or any(module in sys.modules for module in triggers):
            if _activate(ep.name, patch):
                done.append(ep.name)
        elif _checked(ep.name, patch):
            hook = functools.partial(_activate_hook, ep.name, patch)
            _waiting[ep.name] = (patch, triggers, hook)
            for module in triggers:  # the first of them imported applies the patch
                _finder().when_imported(module, hook)
            done.append(ep.name)
    return done


def install_on_import(*names: str) -> list[str]:
    """The same as :func:`install` (which waits for each framework's import too): the
    name ``STREAMFIX_AUTO`` and ``streamfix run`` have always used."""
    return install(*names)


def _checked(name: str, patch: Patch) -> bool:
    """Whether ``patch`` passes its own ``check()`` (if it has one; failures logged)."""
    check = getattr(patch, "check", None)
    if not callable(check):
        return True
    try:
        check()
    except Exception as error:
        _failed(name, error)
        return False
    return True


def _activate_hook(name: str, patch: Patch, _module: ModuleType) -> None:
    waiting = _waiting.get(name)
    if waiting is not None and waiting[0] is patch:
        del _waiting[name]
        _, triggers, hook = waiting
        for module in triggers:  # the other triggers no longer wait
            _finder().forget(module, hook)
        _activate(name, patch)


class _PostImportFinder:
    """Runs callbacks right after a module has been imported (first on ``sys.meta_path``;
    it finds nothing itself: it wraps the loader the other finders return). A spec asked
    for without an import (``importlib.util.find_spec``) runs nothing. (A meta path
    finder by protocol: subclassing ``importlib.abc`` would load it at import streamfix.)"""

    def __init__(self) -> None:
        import threading  # noqa: PLC0415 (only once install_on_import is called)

        self._hooks: dict[str, list[Callable[[ModuleType], object]]] = {}
        self._lock = threading.Lock()

    def when_imported(self, module: str, hook: Callable[[ModuleType], object]) -> None:
        with self._lock:
            self._hooks.setdefault(module, []).append(hook)

    def forget(self, module: str, hook: Callable[[ModuleType], object]) -> None:
        """``hook`` no longer waits for ``module``."""
        with self._lock:
            hooks = self._hooks.get(module, [])
            if hook in hooks:
                hooks.remove(hook)
            if not hooks:
                self._hooks.pop(module, None)

    def take(self, module: str) -> list[Callable[[ModuleType], object]]:
        """The hooks waiting for ``module``, now removed (each runs once)."""
        with self._lock:
            return self._hooks.pop(module, [])

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self._hooks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _HookedLoader(spec.loader, self)  # type: ignore[assignment]
                return spec
        return None


class _HookedLoader:
    """A loader that runs the finder's hooks once the module it loads has executed."""

    def __init__(self, loader: Any, finder: _PostImportFinder) -> None:
        self._loader = loader
        self._finder = finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:  # as the import system does next: hooks may use it
            setattr(sys.modules[parent], child, module)
        for hook in self._finder.take(module.__name__):
            try:
                hook(module)
            except Exception:  # a hook never breaks the program's import
                logger.warning("streamfix: post-import hook failed", exc_info=True)

    def __getattr__(self, name: str) -> Any:  # get_code, is_package, resource readers...
        return getattr(self._loader, name)


def _finder() -> _PostImportFinder:
    for finder in sys.meta_path:
        if isinstance(finder, _PostImportFinder):
            return finder
    finder = _PostImportFinder()
    sys.meta_path.insert(0, finder)
    return finder


def uninstall(*names: str) -> list[str]:
    """Undo the named patches (all active or waiting ones if none named); what was
    undone. A patch waiting for its framework's import stops waiting (the framework is
    then never patched by it)."""
    undone: list[str] = []
    for name in names or (*_active, *_waiting):
        waiting = _waiting.pop(name, None)
        if waiting is not None:
            _, triggers, hook = waiting
            for module in triggers:
                _finder().forget(module, hook)
            undone.append(name)
            continue
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
    """The names of the patches in effect: those active now, and those waiting for their
    framework's import (:func:`install` patches such a framework the moment its module
    has run, before the program can use it, so nothing of it ever runs unpatched). What
    :func:`install` returned, less what was uninstalled or failed since. Whether a
    framework's code is replaced at this moment is the shim's own ``installed()``
    (``streamfix_openai.installed()``...): ``False`` while its patch waits."""
    return sorted({*_active, *_waiting})
