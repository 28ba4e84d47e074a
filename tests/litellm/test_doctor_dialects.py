"""The doctor's drivers of litellm's other dialects (``_doctor_dialects``: Anthropic,
Gemini, the Responses bridge, Bedrock ConverseStream): every J-M corpus scenario through
litellm's own parser of its dialect, then ``litellm.stream_chunk_builder``, judged as the
doctor judges, stock and patched."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from support import report_stock_loss

import streamfix
import streamfix.testing
from streamfix.testing import Driver, judge

pytestmark = pytest.mark.shim_only

SCENARIOS = streamfix.testing.dialect_scenarios()
#: what stock litellm's parsers and builder lose of the corpus: the doctor's reason with the
#: pinned release (a loss in other words passes, reported: ``support.report_stock_loss``)
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
    "m1-bedrock-max-tokens": "incomplete call handed on: get_humidity",
}
if tuple(int(part) for part in version("litellm").split(".")[:2]) < (1, 81):
    STOCK_LOSES |= {  # litellm 1.80: the bridge keeps one of parallel calls, Anthropic's
        "j1-responses-calls": "1 of 2 calls",  # thinking loses its signature
        "j2-responses-done-only": "1 of 2 calls",
        "j2-responses-item-done-only": "1 of 2 calls",
        "j4-responses-item-ids": "1 of 2 calls",
        "k3-anthropic-thinking": "reasoning signature dropped",
        "k5-anthropic-server-tool": "2 of 1 calls",  # a server tool block made a call
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
    if not ok:
        report_stock_loss(f"litellm {name}", why, STOCK_LOSES[name])


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


def _plain_chunks(dialect: str, events: list[dict[str, Any]]) -> list[Any]:
    """What litellm's parser of ``dialect`` makes of each event, the tool-call entries
    left out (every other field: text, reasoning, usage, provider fields)."""
    from streamfix_litellm._doctor_dialects import parse

    out = []
    for chunk in parse(dialect, events):
        body = chunk.model_dump()
        body.pop("id", None)
        body.pop("created", None)
        for choice in body["choices"]:
            choice["delta"].pop("tool_calls", None)
            if dialect == "bedrock":  # litellm before 1.81 numbered the choice by block
                choice.pop("index")
        out.append(body)
    return out


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - set(STOCK_LOSES)))
def test_the_parser_hands_on_stock_chunks(name: str) -> None:
    """Patched, the parser's chunks are stock's but for their tool-call entries, one for
    one (the stream's text, reasoning, usage and provider fields as stock makes them)."""
    scenario = SCENARIOS[name]
    if scenario.error is not None:  # the parser raises there; the events before it
        events = list(streamfix.testing.fresh_chunks(scenario))[:-1]
    else:
        events = streamfix.testing.fresh_chunks(scenario)
    stock = _plain_chunks(scenario.dialect, events)
    streamfix.install("litellm")
    try:
        fixed = _plain_chunks(scenario.dialect, [dict(e) for e in events])
    finally:
        streamfix.uninstall("litellm")
    assert fixed == stock


def _parsers() -> dict[str, object]:
    import importlib

    from streamfix_litellm._dialects import PARSERS

    found = {}
    for dialect, (module, attribute) in PARSERS.items():
        owner, name = attribute.split(".")
        found[dialect] = vars(getattr(importlib.import_module(module), owner))[name]
    return found


def test_install_replaces_each_parser_and_uninstall_restores_it() -> None:
    stock = _parsers()
    streamfix.install("litellm")
    try:
        fixed = _parsers()
    finally:
        streamfix.uninstall("litellm")
    assert all(fixed[d] is not stock[d] for d in stock)
    assert _parsers() == stock and all(_parsers()[d] is stock[d] for d in stock)
