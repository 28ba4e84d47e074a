"""Five-round agent loops over real HTTP (issue 17): the replay server's scripted rounds
(:data:`streamfix.testing.ROUNDS`, served by ``streamfix_server`` from the streamfix
pytest plugin), each framework's own loop against them, stock and patched.

Round ``N + 1`` answers only when the request carries round ``N``'s calls back right
(names, parsed arguments, ids, thought signatures, a tool result per call), else HTTP
400: a wrong call, a glued argument or a lost signature fails the next round visibly.
Every test starts and ends with every shim uninstalled.
"""

from __future__ import annotations

from typing import Any

from support import shim_fixture

import streamfix.testing

API_KEY = "sk-streamfix-test"
QUESTION = "Five rounds: the weather and the time in each city, please."
ROUNDS = streamfix.testing.ROUNDS


def expected_ran(script: str) -> list[tuple[str, Any]]:
    """(name, parsed arguments) of every tool call of the script, round by round, in order
    (the final round's ``final_answer`` call, if any, left out)."""
    return [
        (call["name"], call["arguments"])
        for scenario in ROUNDS[script].rounds
        for call in scenario.calls
        if call["name"] != "final_answer"
    ]


def tool_result(name: str, arguments: dict[str, Any]) -> str:
    """What the loops' get_weather / get_time tools answer."""
    if name == "get_weather":
        return f"sunny in {arguments['city']}"
    return f"14:00 in {arguments['zone']}"


_stock = shim_fixture("adk", "litellm", "sgpt", "smolagents", autouse=True, name="_stock")
litellm_patched = shim_fixture("litellm", install=True, name="litellm_patched")
