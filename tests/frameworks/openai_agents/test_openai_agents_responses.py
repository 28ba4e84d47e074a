"""The OpenAI Agents SDK's native Responses path (wire-shapes J), over real HTTP:
``Runner.run_streamed`` on ``OpenAIResponsesModel`` (a real ``AsyncOpenAI``) against the
replay server's ``/v1/responses``, every Responses scenario (the doctor's
``openai-agents-responses`` column, ``streamfix_openai._doctor_native``).

Stock reads every one right: the calls by item (J1, J4), the arguments from the done
events when no delta came (J2), empty and stray deltas ignored (J3), the reasoning item
with its ``encrypted_content`` kept (J5), ``response.incomplete`` and ``response.failed``
raised as ``ModelBehaviorError`` with the provider's code and words (J6). Nothing to
patch: the column installs the ``openai`` wire, which leaves this path as shipped (pinned:
patched gives what stock gives).
"""

from __future__ import annotations

import pytest

import streamfix_openai
from streamfix import testing
from streamfix_openai._doctor_native import OPENAI_AGENTS_RESPONSES_DRIVER as DRIVER

pytest.importorskip("agents")

RESPONSES = testing.dialect_scenarios("responses")


@pytest.mark.parametrize("name", sorted(RESPONSES))
def test_every_responses_scenario_is_right_stock_and_the_same_patched(name: str) -> None:
    scenario = RESPONSES[name]
    stock = DRIVER.drive(scenario)
    assert testing.judge(scenario, stock) == (True, "")
    streamfix_openai.install()
    try:
        patched = DRIVER.drive(scenario)
    finally:
        streamfix_openai.uninstall()
    assert patched == stock
