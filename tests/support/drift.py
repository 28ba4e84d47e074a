"""Drift in how a stock framework loses a shape: reported, never fatal (issue 40, point 3).

A test that checks that stock loses a shape asserts the loss (the doctor's ``judge`` says
stock is wrong) and hands the reason it got to :func:`report_stock_loss`, with the reason
the pinned release gives (a folder's ``STOCK_LOSSES``). A new release that loses the same
shape in other words passes, and the change is reported:

- a :class:`StockLossDrift` warning (pytest's warnings summary: "stock loses <name>
  differently: known '<known>', now '<now>'"), issued as a warning whatever the warning
  filters say (``-W error`` and ``filterwarnings = error`` included);
- if ``STREAMFIX_DRIFT_REPORT`` names a file, one JSON line appended to it:
  ``{"test": <pytest node id>, "name": <name>, "known": <known>, "now": <now>}`` (the drift
  session reads it).
"""

from __future__ import annotations

import json
import os
import warnings

__all__ = ["DRIFT_REPORT", "StockLossDrift", "report_stock_loss"]

#: The environment variable naming the file drift lines are appended to.
DRIFT_REPORT = "STREAMFIX_DRIFT_REPORT"


class StockLossDrift(UserWarning):
    """Stock still loses a shape, but not in the words its tests know."""


def _current_test(name: str) -> str:
    """The running test's node id (pytest's ``PYTEST_CURRENT_TEST`` without its phase),
    or ``name`` outside a test."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    return current.rsplit(" (", 1)[0] if current else name


def report_stock_loss(name: str, why: str, known: str) -> None:
    """Report ``why`` (the reason stock was judged wrong on ``name``) if it does not start
    with ``known`` (the reason the pinned release gives); silent when it does. Never
    raises: the loss itself is the caller's to assert."""
    if why.startswith(known):
        return
    with warnings.catch_warnings():  # a drift is never an error, whatever the filters
        warnings.simplefilter("always", StockLossDrift)
        warnings.warn(
            f"stock loses {name} differently: known {known!r}, now {why!r}",
            StockLossDrift,
            stacklevel=2,
        )
    path = os.environ.get(DRIFT_REPORT)
    if path:
        line = {"test": _current_test(name), "name": name, "known": known, "now": why}
        with open(path, "a", encoding="utf-8") as report:
            report.write(json.dumps(line) + "\n")
