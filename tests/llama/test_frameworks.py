"""Every framework against llama-server: its streamed answer equals the same request
answered non-streamed, stock and patched (issue 17 part 1).

Each cell is one ``streamfix.testing.live_check`` (the doctor's ``--live`` check): the
framework's real client over real HTTP, through the check's recording proxy, streamed,
stock and then with its shim installed; the reference is the request the framework sent,
answered non-streamed by llama-server and read from its JSON. Temperature 0 and seed 0.

Patched must be right everywhere. Stock is asserted as it is (:data:`STOCK`: the reason
the check gives, empty where stock is right), so that a change in either shows.
"""

from __future__ import annotations

import pytest

from streamfix.testing import LIVE_CASES, LiveTarget, live_check

CASES = {case.name: case for case in LIVE_CASES}
FRAMEWORKS = ("adk", "smolagents", "smolagents-litellm", "sgpt", "litellm", "openai")

#: (framework, case) -> the start of the reason stock is judged wrong ("" where it is right).
STOCK: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_streamed_equals_non_streamed(llama_target: LiveTarget, framework: str, case: str) -> None:
    result = live_check(framework, llama_target, CASES[case])
    assert result.usable, result.reference
    assert result.patched_ok, (result.patched_why, result.patched, result.reference)
    expected = STOCK.get((framework, case), "")
    assert result.stock_ok == (not expected), (result.stock_why, result.stock)
    assert result.stock_why.startswith(expected), (result.stock_why, result.stock)
