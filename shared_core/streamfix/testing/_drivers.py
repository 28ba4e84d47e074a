"""The doctor's drivers by column, found through the ``streamfix.patches`` entry points,
and one run of a driver stock then patched (:func:`stock_and_patched`, :func:`stock_then_patched`).

A patch's entry-point object names its framework's driver in ``DOCTOR`` (or several, by
column, in ``DOCTORS``), a ``"module:attribute"`` string (``"streamfix_adk._doctor:DRIVER"``)
whose attribute is a :class:`~streamfix.testing.Driver`; finding the drivers imports no
framework, and a driver is imported only when its framework is run. ``streamfix doctor``
(the corpus) and :func:`~streamfix.testing.live_check` (a live server) both use them.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator, Mapping, MutableMapping

from .._registry import GROUP, install, installed, uninstall
from ._corpus import Scenario
from ._doctor import Driver, Outcome

__all__ = ["DRIVERS", "Drivers", "stock_and_patched", "stock_then_patched"]

logger = logging.getLogger("streamfix")

# The table's columns in the order the doctor always printed them (entry points come
# sorted by name); a patch not listed here follows, in entry-point order.
_COLUMNS = (
    "adk",
    "smolagents",
    "smolagents-litellm",
    "sgpt",
    "litellm",
    "litellm-openai",
    "openai",
)


class Drivers(MutableMapping[str, Driver]):
    """The doctor's drivers by patch name, each imported on first use.

    The names are read once from the entry points' ``DOCTOR`` attributes (a patch without
    one has no driver). Setting an item replaces a driver (a test's stand-in); deleting it
    forgets the replacement (the entry point's driver is imported again when asked for).
    """

    def __init__(self) -> None:
        self._specs: dict[str, str] | None = None
        self._loaded: dict[str, Driver] = {}

    def _names(self) -> dict[str, str]:
        if self._specs is None:
            self._specs = _driver_specs()
        return self._specs

    def __getitem__(self, name: str) -> Driver:
        if name not in self._loaded:
            self._loaded[name] = _load_driver(name, self._names()[name])
        return self._loaded[name]

    def __setitem__(self, name: str, driver: Driver) -> None:
        self._names().setdefault(name, "")
        self._loaded[name] = driver

    def __delitem__(self, name: str) -> None:
        if self._loaded.pop(name, None) is None:
            raise KeyError(name)
        if not self._names()[name]:  # a name only a replacement had
            del self._names()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names()))

    def __len__(self) -> int:
        return len(self._names())


def _driver_specs() -> dict[str, str]:
    """``{patch name: "module:attribute"}`` of every entry point that names a driver."""
    from importlib.metadata import entry_points  # noqa: PLC0415 (only the doctor needs it)

    found = list(entry_points(group=GROUP))
    rank = {name: place for place, name in enumerate(_COLUMNS)}
    found.sort(key=lambda ep: rank.get(ep.name, len(rank)))  # stable: the rest keep their order
    specs: dict[str, str] = {}
    for ep in found:
        if ep.name in specs:
            continue
        try:
            patch = ep.load()
        except Exception:  # a broken shim is reported, never crashes the doctor
            logger.warning("streamfix doctor: could not load patch %s", ep.name, exc_info=True)
            continue
        columns = getattr(patch, "DOCTORS", None)  # a shim kit patch: maybe several
        if not isinstance(columns, Mapping):
            columns = {ep.name: getattr(patch, "DOCTOR", None)}
        for column, spec in columns.items():
            if isinstance(spec, str) and spec:
                specs.setdefault(str(column), spec)
    return specs


def _load_driver(name: str, spec: str) -> Driver:
    module, _, attribute = spec.partition(":")
    driver = getattr(importlib.import_module(module), attribute)
    if not isinstance(driver, Driver):
        raise TypeError(f"{name}: DOCTOR {spec!r} is not a streamfix.testing.Driver")
    return driver


DRIVERS = Drivers()
"""The frameworks the doctor drives, by patch name (``streamfix.install`` names)."""


def stock_then_patched(
    name: str, run: Callable[[Driver], Outcome]
) -> tuple[Outcome, Outcome | None]:
    """``run(driver)`` for one column's driver, stock then with its patch installed
    (``None`` when the patch could not be installed). Patches active before are put back
    afterwards."""
    driver = DRIVERS[name]
    patch = driver.name  # a column's driver names the patch it installs
    before = installed()
    uninstall(patch)
    try:
        stock = run(driver)
        if patch not in install(patch):
            return stock, None
        return stock, run(driver)
    finally:
        uninstall(patch)
        if patch in before:
            install(patch)


def stock_and_patched(name: str, scenario: Scenario) -> tuple[Outcome, Outcome | None]:
    """One scenario through one framework, stock then patched (``None`` when the patch
    could not be installed). Patches active before are put back afterwards."""
    return stock_then_patched(name, lambda driver: driver.drive(scenario))
