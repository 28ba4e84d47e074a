"""``live_check``: each framework's live driver, stock and patched, against the replay
server (the model is the scenario), over real HTTP.

The reference (the framework's own request sent again non-streamed, read with httpx) must
be the scenario's non-streamed answer; the patched cell must pass; the stock cell must fail
exactly where the doctor's matrix (the same framework code fed the scenario's chunks in
process) says stock fails, and there the stock outcome must differ from the patched one.
"""

from __future__ import annotations

import pytest
from conftest import SCENARIOS, case_for, expected, expected_finish, target

from streamfix.testing import DRIVERS, LiveResult, ReplayServer, judge, live_applies, live_check

# Where the stock framework loses: the scenarios where stock fails for most frameworks
# (same-index parallel calls, repeated names, a cut-off call) and where it does not.
OPENAI_SCENARIOS = ["b3-same-index", "c1-repeated-names", "e4-truncated", "text", "a1-one-chunk"]
OLLAMA_SCENARIOS = ["ollama-call-per-line", "ollama-calls-one-message", "ollama-text"]
# shell_gpt is one command-line process per run (two per check): fewer scenarios.
SGPT_SCENARIOS = ["b3-same-index", "e4-truncated", "text"]
IN_PROCESS = ["openai", "litellm", "smolagents", "smolagents-litellm", "adk"]


def doctor_says_stock_ok(framework: str, name: str) -> bool:
    """The doctor's stock verdict for the same framework code on the scenario's chunks
    (litellm's OpenAI-compatible path is its ``litellm-openai`` column)."""
    scenario = SCENARIOS[name]
    column = (
        "litellm-openai" if framework == "litellm" and scenario.dialect == "openai" else framework
    )
    return judge(scenario, DRIVERS[column].drive(scenario))[0]


def stock_ok_expected(framework: str, name: str) -> bool:
    if framework == "adk" and SCENARIOS[name].dialect == "ollama":
        # litellm's ollama_chat hands ADK one call per index, each with an id: stock ADK
        # is right on these (tests/e2e_frameworks/test_adk.py pins the same).
        return True
    if framework == "smolagents-litellm" and SCENARIOS[name].dialect == "ollama":
        # litellm's ollama_chat numbers one call per line 0 and 0 (the doctor's litellm
        # column); stock smolagents then glues the two calls into one.
        return name != "ollama-call-per-line"
    return doctor_says_stock_ok(framework, name)


def check(server: ReplayServer, framework: str, name: str) -> LiveResult:
    scenario = SCENARIOS[name]
    before = len(server.requests)
    result = live_check(framework, target(server, name), case_for(scenario))
    # The server saw the stock run's request, the patched run's, then the reference: a
    # request after a run's first (a tool result sent back) is the proxy's to answer.
    seen = server.requests[before:]
    assert [r.get("stream", scenario.dialect == "ollama") for r in seen] == [True, True, False]
    assert seen[0] == seen[1]  # stock and patched send the same request
    assert result.framework == framework and result.case == case_for(scenario).name
    assert result.usable
    assert result.reference == expected(scenario)
    assert result.reference_finish == expected_finish(scenario)
    assert result.request is not None and result.request["stream"] is True  # really streamed
    assert result.patched_ok, result.patched_why
    stock = stock_ok_expected(framework, name)
    assert result.stock_ok is stock, (result.stock_why, result.stock)
    if not stock:
        assert result.stock_why and result.stock != result.patched
    elif not scenario.truncated:  # where stock is right, patched gives the same
        assert result.stock == result.patched
    return result


@pytest.mark.parametrize("name", OPENAI_SCENARIOS)
@pytest.mark.parametrize("framework", IN_PROCESS)
def test_openai_compatible(streamfix_server: ReplayServer, framework: str, name: str) -> None:
    check(streamfix_server, framework, name)


@pytest.mark.parametrize("name", SGPT_SCENARIOS)
def test_sgpt_command_line(streamfix_server: ReplayServer, name: str) -> None:
    result = check(streamfix_server, "sgpt", name)
    # shell_gpt sends no seed or other options itself: the proxy added the case's.
    assert result.request is not None and result.request["seed"] == 0
    assert result.request["temperature"] == 0


@pytest.mark.parametrize("name", OLLAMA_SCENARIOS)
@pytest.mark.parametrize("framework", ["litellm", "adk", "smolagents-litellm"])
def test_ollama(streamfix_server: ReplayServer, framework: str, name: str) -> None:
    result = check(streamfix_server, framework, name)
    assert streamfix_server.requests[-1]["path"] == "/api/chat"
    assert result.request is not None and result.request["model"] == name


@pytest.mark.parametrize("framework", ["openai", "smolagents", "sgpt"])
def test_ollama_is_not_applicable_to_openai_only_clients(
    streamfix_server: ReplayServer, framework: str
) -> None:
    ollama = target(streamfix_server, "ollama-text")
    assert not live_applies(framework, ollama)
    with pytest.raises(ValueError, match="no live check for ollama"):
        live_check(framework, ollama, case_for(SCENARIOS["ollama-text"]))


def test_every_live_column_is_checked_here() -> None:
    """Every doctor column with a live driver is one these tests run."""
    live = {name for name in DRIVERS if DRIVERS[name].live is not None}
    assert live == {*IN_PROCESS, "sgpt"}
