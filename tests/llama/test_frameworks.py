"""Every framework against llama-server: its streamed answer equals the same request
answered non-streamed, stock and patched (issue 17 part 1).

Each cell is one ``streamfix.testing.live_check`` (the doctor's ``--live`` check): the
framework's real client over real HTTP, through the check's recording proxy, streamed,
stock and then with its shim installed; the reference is the request the framework sent,
answered non-streamed by llama-server and read from its JSON. Temperature 0 and seed 0.

Patched must be right everywhere. Stock is asserted as it is (:data:`STOCK`: right or
wrong), so that a change in either shows; where it is wrong in other words than the check
gave, the new words are reported (``support.report_stock_loss``), not failed.
"""

from __future__ import annotations

import pytest
from support import report_stock_loss

from streamfix.testing import DRIVERS, LIVE_CASES, LiveTarget, live_applies, live_check

CASES = {case.name: case for case in LIVE_CASES}
FRAMEWORKS = ("adk", "smolagents", "smolagents-litellm", "sgpt", "litellm", "openai")

#: (framework, case) -> the start of the reason stock is judged wrong (not listed: stock is
#: right). What stock does with llama-server's streams:
#: - a call cut off by ``max_tokens`` (``{"name": "get_weather", "arguments": "{"}``,
#:   finish reason ``length``): smolagents (OpenAIModel and LiteLLMModel) and litellm's
#:   ``stream_chunk_builder`` hand it on as a call with the raw ``{`` for arguments, the
#:   sgpt command line drops it without a word; ADK and the openai SDK's helper report it;
#: - two calls (indices 0 and 1, each opened by a fragment with its id, its name and
#:   ``{``): the sgpt command line glues the second call's arguments to the first's and
#:   crashes (``JSONDecodeError: Extra data``) before running either.
STOCK: dict[tuple[str, str], str] = {
    ("smolagents", "truncated-call"): "incomplete call handed on: get_weather",
    ("smolagents-litellm", "truncated-call"): "incomplete call handed on: get_weather",
    ("litellm", "truncated-call"): "incomplete call handed on: get_weather",
    ("sgpt", "truncated-call"): "truncated call dropped silently",
    ("sgpt", "parallel-calls"): "crash: JSONDecodeError: Extra data",
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_streamed_equals_non_streamed(llama_target: LiveTarget, framework: str, case: str) -> None:
    result = live_check(framework, llama_target, CASES[case])
    assert result.usable, result.reference
    assert result.patched_ok, (result.patched_why, result.patched, result.reference)
    expected = STOCK.get((framework, case), "")
    assert result.stock_ok == (not expected), (result.stock_why, result.stock)
    if expected:
        report_stock_loss(f"{framework} {case}", result.stock_why, expected)
        return
    # Where stock is right, patched gives what stock gives (google-adk 2.13's own
    # MAX_TOKENS response for the call cut off included: it loses nothing).
    assert result.patched == result.stock


def test_every_live_column_is_here(llama_target: LiveTarget) -> None:
    """Every doctor column with a live check for OpenAI-compatible servers is in the matrix
    (a new one fails here until it is added, with its stock outcomes)."""
    assert [n for n in DRIVERS if live_applies(n, llama_target)] == list(FRAMEWORKS)
