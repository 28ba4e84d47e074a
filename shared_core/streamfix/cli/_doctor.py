"""``streamfix doctor``: the public shape corpus through every installed framework's real
streaming code, stock and patched.

The frameworks are the patches registered under the ``streamfix.patches`` entry-point
group. A patch's entry-point object names its framework's driver in ``DOCTOR``, a
``"module:attribute"`` string (``"streamfix_adk._doctor:DRIVER"``) whose attribute is a
:class:`streamfix.testing.Driver`; finding the drivers imports no framework, and a driver
is imported only when its framework is run. :func:`run_doctor` drives every scenario
through every installed framework twice: with the framework as shipped (*stock*) and with
its streamfix patch installed (*patched*); :mod:`streamfix.testing` judges each outcome.

A framework that is not installed is reported as such, never an error. No network, no keys.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from .. import install, installed, uninstall
from .._registry import GROUP
from ..testing import SCENARIOS, Driver, Outcome, Scenario, judge

__all__ = [
    "DRIVERS",
    "Cell",
    "Drivers",
    "Report",
    "outcome_dict",
    "run_doctor",
    "stock_and_patched",
]

logger = logging.getLogger("streamfix")

# The table's columns in the order the doctor always printed them (entry points come
# sorted by name); a patch not listed here follows, in entry-point order.
_COLUMNS = ("adk", "smolagents", "sgpt", "litellm", "litellm-openai", "openai")


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


@dataclass(frozen=True)
class Cell:
    """One scenario through one framework: ``"ok"`` or ``"lost"`` stock and patched."""

    framework: str
    scenario: str
    shape: str
    stock: str
    stock_detail: str
    patched: str
    patched_detail: str

    def to_dict(self) -> dict[str, str]:
        return {
            "framework": self.framework,
            "scenario": self.scenario,
            "shape": self.shape,
            "stock": self.stock,
            "stock_detail": self.stock_detail,
            "patched": self.patched,
            "patched_detail": self.patched_detail,
        }


@dataclass
class Report:
    """Every cell of the matrix, and each framework's status."""

    cells: list[Cell] = field(default_factory=list)
    frameworks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every patched cell passes (the doctor's exit status)."""
        return all(cell.patched == "ok" for cell in self.cells) and not any(
            info["status"] == "patch failed" for info in self.frameworks.values()
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "frameworks": self.frameworks,
            "cells": [cell.to_dict() for cell in self.cells],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _cell(
    column: str,
    scenario: Scenario,
    stock: Outcome,
    patched: Outcome | None,
    patch_error: str | None,
) -> Cell:
    stock_ok, stock_why = judge(scenario, stock)
    if patched is None:
        patched_state, patched_why = "lost", f"patch failed: {patch_error}"
    else:
        ok, patched_why = judge(scenario, patched)
        patched_state = "ok" if ok else "lost"
    return Cell(
        column,
        scenario.name,
        scenario.shape,
        "ok" if stock_ok else "lost",
        stock_why,
        patched_state,
        patched_why,
    )


def stock_and_patched(name: str, scenario: Scenario) -> tuple[Outcome, Outcome | None]:
    """One scenario through one framework, stock then patched (``None`` when the patch
    could not be installed). Patches active before are put back afterwards."""
    driver = DRIVERS[name]
    patch = driver.name  # a column's driver names the patch it installs
    before = installed()
    uninstall(patch)
    try:
        stock = driver.drive(scenario)
        if patch not in install(patch):
            return stock, None
        return stock, driver.drive(scenario)
    finally:
        uninstall(patch)
        if patch in before:
            install(patch)


def outcome_dict(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as plain JSON data."""
    return None if outcome is None else outcome.to_dict()


def run_doctor(
    frameworks: list[str] | None = None, scenarios: dict[str, Scenario] | None = None
) -> Report:
    """Drive every scenario through every installed framework, stock and patched.

    Patches active before the run are put back afterwards.
    """
    corpus = dict(SCENARIOS) if scenarios is None else scenarios
    report = Report()
    before = installed()
    try:
        for name in frameworks or list(DRIVERS):
            report.cells.extend(_run_one(name, DRIVERS[name], corpus, report))
    finally:
        if before:
            install(*before)
    return report


def _run_one(name: str, driver: Driver, corpus: dict[str, Scenario], report: Report) -> list[Cell]:
    """One framework's cells (its status recorded in ``report``)."""
    info: dict[str, Any] = {"version": driver.version(), "drives": driver.what}
    report.frameworks[name] = info
    if not driver.available():
        info["status"] = "not installed"
        return []
    cases = [s for s in corpus.values() if s.dialect == driver.dialect]
    patch = driver.name  # a column's driver names the patch it installs
    uninstall(patch)
    stock = [driver.drive(scenario) for scenario in cases]
    patch_error = None
    if patch in install(patch):
        try:
            patched: list[Outcome | None] = [driver.drive(s) for s in cases]
        finally:
            uninstall(patch)
        info["status"] = "patched"
    else:
        patch_error = f"streamfix.install({patch!r}) failed (see the log)"
        patched = [None] * len(cases)
        info["status"] = "patch failed"
    return [
        _cell(name, scenario, s, p, patch_error)
        for scenario, s, p in zip(cases, stock, patched, strict=True)
    ]
