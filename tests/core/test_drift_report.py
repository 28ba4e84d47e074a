"""``support.report_stock_loss``: a stock loss in other words than the known ones is
reported (a :class:`StockLossDrift` warning, a JSON line of ``STREAMFIX_DRIFT_REPORT``),
never raised; the known words (or words they start) stay silent (issue 40, point 3)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from support import StockLossDrift, report_stock_loss
from support.drift import DRIFT_REPORT

KNOWN = "crash: IndexError"
NOW = "search arguments null"


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "drift.jsonl"
    monkeypatch.setenv(DRIFT_REPORT, str(path))
    return path


def test_other_words_warn_and_write_a_line(report: Path) -> None:
    with pytest.warns(StockLossDrift) as caught:
        report_stock_loss("l3-gemini-partial-args", NOW, KNOWN)
    assert [str(w.message) for w in caught] == [
        "stock loses l3-gemini-partial-args differently:"
        " known 'crash: IndexError', now 'search arguments null'"
    ]
    assert caught[0].filename == __file__  # the caller's line, not the helper's
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines == [
        {
            "test": f"tests/core/{Path(__file__).name}::test_other_words_warn_and_write_a_line",
            "name": "l3-gemini-partial-args",
            "known": KNOWN,
            "now": NOW,
        }
    ]
    with pytest.warns(StockLossDrift):
        report_stock_loss("k4", "other", "known")
    assert len(report.read_text().splitlines()) == 2  # appended


@pytest.mark.parametrize("why", [KNOWN, KNOWN + ": list index out of range"])
def test_the_known_words_are_silent(report: Path, why: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        report_stock_loss("l3-gemini-partial-args", why, KNOWN)
    assert not report.exists()


def test_a_drift_is_never_an_error(report: Path) -> None:
    """``-W error`` or a ``filterwarnings = error`` config leaves it a warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        report_stock_loss("l3-gemini-partial-args", NOW, KNOWN)
    assert [w.category for w in caught] == [StockLossDrift]
    assert report.exists()


def test_without_a_report_file_it_only_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DRIFT_REPORT, raising=False)
    with pytest.warns(StockLossDrift):
        report_stock_loss("l3-gemini-partial-args", NOW, KNOWN)
