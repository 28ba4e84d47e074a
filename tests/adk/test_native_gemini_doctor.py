"""The doctor's ``adk-gemini`` driver (ADK's native ``Gemini`` path): each Gemini scenario
of the J-M corpus, and the cut-off and malformed shapes, driven stock and patched."""

from __future__ import annotations

import pytest
from gemini_shapes import CUT, EXTRA

import streamfix
from streamfix.testing import Outcome, Scenario, dialect_scenarios
from streamfix_adk._doctor import GEMINI_DRIVER
from streamfix_adk._patch import SHIM

SCENARIOS: dict[str, Scenario] = {**dialect_scenarios("gemini"), **EXTRA}


def _both(scenario: Scenario) -> tuple[Outcome, Outcome]:
    stock = GEMINI_DRIVER.drive(scenario)
    streamfix.install("adk")
    try:
        return stock, GEMINI_DRIVER.drive(scenario)
    finally:
        streamfix.uninstall("adk")


def _right(scenario: Scenario, outcome: Outcome) -> bool:
    if scenario.truncated:
        return outcome.calls == () and outcome.error is not None
    calls = tuple((c["name"], c["arguments"]) for c in scenario.calls)
    return (
        outcome.calls == calls
        and all(outcome.signatures)
        and outcome.text == scenario.text
        and (scenario.error is None) == (outcome.error is None)
    )


def test_the_driver_is_a_doctor_column_of_the_adk_patch() -> None:
    assert SHIM.DOCTORS["adk-gemini"] == "streamfix_adk._doctor:GEMINI_DRIVER"
    assert GEMINI_DRIVER.dialect == "gemini" and GEMINI_DRIVER.name == "adk"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_patched_is_right(name: str) -> None:
    scenario = SCENARIOS[name]
    stock, patched = _both(scenario)
    assert _right(scenario, patched), patched
    if name in CUT:  # stock hands the cut call on as a complete one
        assert not _right(scenario, stock)
        assert any(n == "get_weather" and a.get("city") == "P" for n, a in stock.calls)
    elif _right(scenario, stock):  # stock loses nothing: the same outcome
        assert patched == stock
