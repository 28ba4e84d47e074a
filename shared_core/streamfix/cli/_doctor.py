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

import json
from dataclasses import dataclass, field
from typing import Any

from .. import install, installed, uninstall
from ..testing import (
    DIALECT_SCENARIOS,
    DRIVERS,
    SCENARIOS,
    Driver,
    Drivers,
    Outcome,
    Scenario,
    judge,
    repair_check,
    stock_and_patched,
)
from ._quiet import quiet_frameworks

__all__ = [
    "DRIVERS",
    "OTHER_DIALECTS",
    "Cell",
    "Drivers",
    "Report",
    "outcome_dict",
    "run_doctor",
    "stock_and_patched",
]


#: The dialects of wire-shapes J-M: a driver speaking one runs on the dialect corpus.
OTHER_DIALECTS = frozenset({"responses", "anthropic", "gemini", "bedrock"})


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
    #: The cells of the columns that read another dialect (wire-shapes J-M) on the
    #: dialect corpus (:data:`~streamfix.testing.DIALECT_SCENARIOS`), kept apart from the
    #: chat corpus's ``cells``.
    dialect_cells: list[Cell] = field(default_factory=list)
    frameworks: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The repaired wire per scenario (``streamfix.repair``, wire-shapes R): ``None`` when
    #: the repaired stream is canonical and says what the original says, else why not.
    repairs: dict[str, str | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every patched cell and every repair passes (the exit status)."""
        return (
            all(cell.patched == "ok" for cell in [*self.cells, *self.dialect_cells])
            and not any(info["status"] == "patch failed" for info in self.frameworks.values())
            and all(why is None for why in self.repairs.values())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "frameworks": self.frameworks,
            "cells": [cell.to_dict() for cell in self.cells],
            "dialect_cells": [cell.to_dict() for cell in self.dialect_cells],
            "repairs": {
                name: {"ok": why is None, "why": why} for name, why in self.repairs.items()
            },
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


def outcome_dict(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as plain JSON data."""
    return None if outcome is None else outcome.to_dict()


def run_doctor(
    frameworks: list[str] | None = None, scenarios: dict[str, Scenario] | None = None
) -> Report:
    """Drive every scenario through every installed framework, stock and patched.

    A column whose driver reads another dialect (wire-shapes J-M) runs on that dialect's
    scenarios of :data:`~streamfix.testing.DIALECT_SCENARIOS` (those of ``scenarios``
    when given), its cells in ``dialect_cells``. Patches active before the run are put
    back afterwards. What the frameworks log about the broken streams they are fed is kept
    quiet (:func:`quiet_frameworks`).
    """
    corpus = dict(SCENARIOS) if scenarios is None else scenarios
    dialects = dict(DIALECT_SCENARIOS) if scenarios is None else scenarios
    report = Report()
    before = installed()
    try:
        with quiet_frameworks():
            for name in frameworks or list(DRIVERS):
                driver = DRIVERS[name]
                if driver.dialect in OTHER_DIALECTS:
                    report.dialect_cells.extend(_run_one(name, driver, dialects, report))
                else:
                    report.cells.extend(_run_one(name, driver, corpus, report))
    finally:
        if before:
            install(*before)
    for scenario in corpus.values():
        tools = sorted({call["name"] for call in scenario.calls})
        report.repairs[scenario.name] = repair_check(list(scenario.chunks), tools, scenario.shape)
    return report


def _run_one(name: str, driver: Driver, corpus: dict[str, Scenario], report: Report) -> list[Cell]:
    """One framework's cells (its status recorded in ``report``)."""
    info: dict[str, Any] = {
        "version": driver.version(),
        "drives": driver.what,
        "dialect": driver.dialect,
    }
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
