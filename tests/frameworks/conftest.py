"""Frameworks reached through the openai wire (langchain-openai, pydantic-ai, openai-agents),
each driven through its own streaming code with its real openai client pointed at the
replay server (``streamfix_server``, real HTTP on 127.0.0.1), stock and with the wire
installed (``streamfix.install("openai")``).

Every test starts and ends with the openai shim uninstalled (``patched`` installs it for
the test). A framework's tests read what its user reads (:class:`Got`: the calls with
their ids, the text, the error) and compare it with the scenario:

- patched, every scenario of the openai dialect is right (:func:`assert_right`);
- stock, each loss a framework's ``STOCK_LOSSES`` names is a loss (``judge`` says so: the
  test fails once stock gets it right), and everywhere else patched gives what stock gives
  (calls, ids, text).

The wire is the shim's alone (no upstream patch): direct mode runs none of this.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest
from support import deselect_in_direct_mode, shim_fixture

import streamfix
from streamfix import testing
from streamfix.testing import wire_error

pytestmark = pytest.mark.shim_only

OPENAI = testing.scenarios("openai")
NAMES = sorted(OPENAI)


def _passes_through(scenario: testing.Scenario) -> bool:
    """Whether the wire passes every chunk of the scenario on as it came (R1: already in
    OpenAI's own form): there a framework's events are stock's, event for event."""
    bodies = list(scenario.chunks)
    try:
        out = list(streamfix.repair(bodies))
    except streamfix.StreamFixError:
        return False
    return len(out) == len(bodies) and all(a is b for a, b in zip(out, bodies, strict=True))


#: The scenarios whose chunks the wire passes on untouched (R1).
PASSED_THROUGH = sorted(name for name in NAMES if _passes_through(OPENAI[name]))

_stock = shim_fixture("openai", autouse=True, name="_stock")
patched = shim_fixture("openai", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.shim_only)
    deselect_in_direct_mode(config, items)


@dataclass
class Got:
    """What a framework's user got from one streamed response: the calls (name, parsed
    arguments or the raw text, id), the text, and the error it raised (``None`` when it
    ended normally)."""

    calls: list[tuple[str, Any, Any]] = field(default_factory=list)
    text: str = ""
    error: BaseException | None = None
    outcome: testing.Outcome | None = None

    @property
    def named(self) -> list[tuple[str, Any]]:
        return [(name, arguments) for name, arguments, _ in self.calls]

    @property
    def ids(self) -> list[Any]:
        return [call_id for _, _, call_id in self.calls]


def capture(
    scenario: testing.Scenario,
    run: Callable[[], Any],
    got: Callable[[Any], Got],
    read: Callable[[Any], testing.Outcome],
) -> Got:
    """One run of a framework: what ``got`` reads from its result, with the doctor's
    outcome (``read``, the driver's); or the error it raised, with the outcome the doctor
    gives it. A coroutine is run on a loop of its own."""
    try:
        result = run()
        if isinstance(result, Coroutine):
            result = asyncio.run(result)
    except Exception as error:
        return Got(error=error, outcome=testing.raised(scenario, error))
    out = got(result)
    out.outcome = read(result)
    return out


def expected_ids(scenario: testing.Scenario) -> list[Any]:
    """The ids the wire hands on: the provider's, a shared one made unique (G3), ``None``
    where the provider sent none (the wire generates one)."""
    try:
        message = streamfix.assemble(scenario.chunks)
    except streamfix.StreamFixError as error:
        message = error.message
    sent = [call["id"] for call in scenario.calls]
    unique = [call.id for call in message.with_unique_ids().tool_calls]
    return [u if s is not None else None for s, u in zip(sent, unique, strict=False)]


def assert_right(scenario: testing.Scenario, got: Got) -> None:
    """What the patched framework must give for the scenario."""
    if scenario.error is not None:  # E5: the SDK's APIError, the provider's text in it
        assert got.error is not None and wire_error(got.error) is None
        assert got.outcome is not None and scenario.error in (got.outcome.error or "")
        return
    if scenario.truncated:  # E4: the wire's truncation error, no cut call handed on
        error = wire_error(got.error)
        assert isinstance(error, streamfix.TruncatedToolCallError), got.error
        assert error.partial_arguments
        return
    if scenario.shape in testing.UNREPAIRABLE:  # I3: the wire's documented end
        error = wire_error(got.error)
        assert isinstance(error, streamfix.MalformedToolCallError), got.error
        assert error.message == streamfix.assemble(scenario.chunks)
        return
    assert got.error is None, got.error
    assert got.named == [(call["name"], call["arguments"]) for call in scenario.calls]
    ids = got.ids
    assert all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids), ids
    for mine, want in zip(ids, expected_ids(scenario), strict=True):
        assert want is None or mine == want
    assert got.text == scenario.text


def assert_lost(scenario: testing.Scenario, got: Got) -> None:
    """Stock gets the scenario wrong (the doctor's judgement of what the user got)."""
    assert got.outcome is not None
    ok, _ = testing.judge(scenario, got.outcome)
    assert not ok, f"stock now gets {scenario.name} right: {got}"


def assert_same(scenario: testing.Scenario, stock: Got, patched: Got) -> None:
    """Where stock is right, patched gives the same calls, ids and text (a shared id made
    unique, G3: the wire's one deliberate change, R3)."""
    assert patched.named == stock.named
    if scenario.shape == "G3":
        assert stock.ids == [call["id"] for call in scenario.calls]
        assert patched.ids == expected_ids(scenario)
    else:
        assert patched.ids == stock.ids
    assert patched.text == stock.text
    assert (stock.error is None) == (patched.error is None)


#: The question the five-round loops ask (tests/frameworks/<name>/test_<name>_rounds.py).
ROUNDS_QUESTION = "Five rounds: the weather and the time in each city, please."


def rounds_ran(script: str) -> list[tuple[str, Any]]:
    """(name, parsed arguments) of every tool call of a scripted loop, round by round."""
    return [
        (call["name"], call["arguments"])
        for scenario in testing.ROUNDS[script].rounds
        for call in scenario.calls
    ]


def rounds_tool(name: str, arguments: dict[str, Any]) -> str:
    """What the loops' get_weather / get_time tools answer."""
    if name == "get_weather":
        return f"sunny in {arguments['city']}"
    return f"14:00 in {arguments['zone']}"
