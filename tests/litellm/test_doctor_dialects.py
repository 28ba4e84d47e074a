"""The doctor's drivers of litellm's other dialects (``_doctor_dialects``: Anthropic,
Gemini, the Responses bridge, Bedrock ConverseStream): every J-M corpus scenario through
litellm's own parser of its dialect, then ``litellm.stream_chunk_builder``, judged as the
doctor judges, stock and patched."""

from __future__ import annotations

import pytest

import streamfix.testing
from streamfix.testing import Driver, judge

pytestmark = pytest.mark.shim_only

SCENARIOS = streamfix.testing.dialect_scenarios()
#: what stock litellm's parsers and builder lose of the corpus
STOCK_LOSES = {
    "j2-responses-done-only": "get_weather arguments {}",
    "j2-responses-item-done-only": "get_weather arguments {}",
    "j3-responses-empty-and-stray": "crash: ValueError",
    "j6-responses-failed": "provider error swallowed",
    "j6-responses-incomplete": "incomplete call handed on: get_weather",
    "k2-anthropic-input-whole": "get_weather arguments {}",
    "k4-anthropic-error": "provider's error text lost",
    "k4-anthropic-max-tokens": "incomplete call handed on: get_time",
    "l3-gemini-no-terminator": "crash: KeyError: 'args'",
    "l3-gemini-partial-args": "crash: KeyError: 'args'",
}


def _driver(dialect: str) -> Driver:
    from streamfix_litellm import _doctor

    drivers = {
        "anthropic": _doctor.ANTHROPIC_DRIVER,
        "gemini": _doctor.GEMINI_DRIVER,
        "responses": _doctor.RESPONSES_DRIVER,
        "bedrock": _doctor.BEDROCK_DRIVER,
    }
    driver = drivers[dialect]
    assert driver.dialect == dialect and driver.name == "litellm"
    return driver


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_stock(name: str) -> None:
    scenario = SCENARIOS[name]
    ok, why = judge(scenario, _driver(scenario.dialect).drive(scenario))
    assert ok == (name not in STOCK_LOSES), why
    assert why.startswith(STOCK_LOSES.get(name, ""))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_patched(patched: None, name: str) -> None:
    scenario = SCENARIOS[name]
    ok, why = judge(scenario, _driver(scenario.dialect).drive(scenario))
    assert ok, why


def test_the_columns_are_the_litellm_patch() -> None:
    from streamfix_litellm._patch import SHIM

    columns = SHIM.more_drivers
    for dialect in ("anthropic", "gemini", "responses", "bedrock"):
        assert columns[f"litellm-{dialect}"] == f"{dialect.upper()}_DRIVER"
