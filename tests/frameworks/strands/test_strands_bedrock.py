"""strands' native Bedrock path (wire-shapes M), over real HTTP: ``Agent.stream_async`` on
``BedrockModel`` (boto3's ``bedrock-runtime`` client, placeholder credentials, its
endpoint the replay server's ``/model/{id}/converse-stream``: AWS's binary event
stream), every Bedrock scenario (the doctor's ``strands-bedrock`` column,
``streamfix_openai._doctor_native``).

Stock reads every one right: parallel calls kept apart by ``contentBlockIndex`` (M1,
never glued as in run-llama/llama_index#18760), the reasoning text with its signature,
``max_tokens`` with a call cut raised as ``MaxTokensReachedException`` (the cut call not
run), a ``modelStreamErrorException`` raised as botocore's ``EventStreamError`` with the
provider's words. Nothing to patch: the column installs the ``openai`` wire, which leaves
this path as shipped (pinned: patched gives what stock gives).
"""

from __future__ import annotations

import pytest

import streamfix_openai
from streamfix import testing
from streamfix_openai._doctor_native import STRANDS_BEDROCK_DRIVER as DRIVER

pytest.importorskip("strands")
pytest.importorskip("boto3")

BEDROCK = testing.dialect_scenarios("bedrock")


@pytest.mark.parametrize("name", sorted(BEDROCK))
def test_every_bedrock_scenario_is_right_stock_and_the_same_patched(name: str) -> None:
    scenario = BEDROCK[name]
    stock = DRIVER.drive(scenario)
    assert testing.judge(scenario, stock) == (True, "")
    streamfix_openai.install()
    try:
        patched = DRIVER.drive(scenario)
    finally:
        streamfix_openai.uninstall()
    assert patched == stock
