"""The scripted rounds themselves, over HTTP: a right transcript gets every round in turn;
a glued argument, a missing or wrong thought signature, a wrong id or a missing tool
result gets HTTP 400 naming the round and what is wrong."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest
from conftest import ROUNDS

import streamfix
from streamfix.testing import OOM_TEXT, ReplayServer, RoundMismatch, parse_lines, parse_sse


def post(server: ReplayServer, script: str, messages: list[Any]) -> httpx.Response:
    if ROUNDS[script].dialect == "ollama":
        return httpx.post(
            f"{server.ollama_base_url}/api/chat", json={"model": script, "messages": messages}
        )
    return httpx.post(
        f"{server.openai_base_url}/chat/completions",
        json={"model": f"openai/{script}", "messages": messages, "stream": True},
    )


def chunks(script: str, response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    if ROUNDS[script].dialect == "ollama":
        return parse_lines(response.text)
    return parse_sse(response.text)


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    return error if isinstance(error, str) else str(error["message"])


@pytest.mark.parametrize("script", sorted(ROUNDS))
def test_a_right_transcript_gets_every_round(streamfix_server: ReplayServer, script: str) -> None:
    rounds = ROUNDS[script]
    assert len(rounds.rounds) == 5
    for number, scenario in enumerate(rounds.rounds, start=1):
        history = rounds.history(number)
        assert rounds.round_of(history) == number
        assert chunks(script, post(streamfix_server, script, history)) == list(scenario.chunks)
        if scenario.error is None:  # each round's stream assembles to the calls it checks
            message = streamfix.assemble(scenario.chunks)
            assert [(c.name, c.parsed) for c in message.tool_calls] == [
                (c["name"], c["arguments"]) for c in scenario.calls
            ]
            if rounds.signed and scenario.calls:
                signatures = [c.thought_signature for c in message.tool_calls]
                assert signatures == list(scenario.signatures)
    if script != "rounds-ollama-oom":
        message = streamfix.assemble(rounds.rounds[-1].chunks)
        assert [c.name for c in message.tool_calls] == (
            ["final_answer"] if script == "rounds-same-index" else []
        )
    past = error_of(post(streamfix_server, script, rounds.history(6)))
    assert past == f"{script}: round 6: the script ends after round 5"


def test_each_round_asks_for_other_calls() -> None:
    """A client that sends round 1's calls back as round 2's fails: every round differs."""
    for rounds in ROUNDS.values():
        calls = [json.dumps(s.calls, sort_keys=True) for s in rounds.rounds if s.calls]
        assert len(set(calls)) == len(calls) >= 3, rounds.name


def test_the_oom_script_fails_in_round_4(streamfix_server: ReplayServer) -> None:
    rounds = ROUNDS["rounds-ollama-oom"]
    lines = chunks(rounds.name, post(streamfix_server, rounds.name, rounds.history(4)))
    assert lines[-1] == {"error": OOM_TEXT}
    assert "message" not in lines[-1]


def _signed(history: list[Any], round_: int) -> dict[str, Any]:
    return [m for m in history if m["role"] == "assistant"][round_ - 1]["tool_calls"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda calls: calls[0]["function"].update(
                arguments='{"city": "Tokyo"}{"zone": "Asia/Tokyo"}'
            ),
            "rounds-signatures: round 2: call 'get_weather' has arguments that are not one"
            ' JSON value: \'{"city": "Tokyo"}{"zone": "Asia/Tokyo"}\' (Extra data: line 1'
            " column 18 (char 17))",
        ),
        (
            lambda calls: calls[1].pop("extra_content"),
            "rounds-signatures: round 2: Function call is missing a thought_signature in"
            " functionCall parts (call 'get_time' at position 1)",
        ),
        (
            lambda calls: calls[0]["extra_content"]["google"].update(thought_signature="x"),
            "rounds-signatures: round 2: Function call has the wrong thought_signature in"
            " functionCall parts (call 'get_weather' at position 0)",
        ),
        (
            lambda calls: calls[1].update(id="call_other"),
            "rounds-signatures: round 2: call 'get_time' at position 1 has the id"
            " 'call_other', expected 'call_2b'",
        ),
        (
            lambda calls: calls.reverse(),
            "rounds-signatures: round 2: expected the calls ['get_weather', 'get_time'],"
            " got ['get_time', 'get_weather']",
        ),
        (
            lambda calls: calls[1]["function"].update(arguments='{"zone": "Europe/Paris"}'),
            "rounds-signatures: round 2: call 'get_time' at position 1 has the arguments"
            " {'zone': 'Europe/Paris'}, expected {'zone': 'Asia/Tokyo'}",
        ),
    ],
    ids=["glued-arguments", "missing-signature", "wrong-signature", "wrong-id", "order", "stale"],
)
def test_a_wrong_call_gets_a_400(
    streamfix_server: ReplayServer, change: Any, expected: str
) -> None:
    rounds = ROUNDS["rounds-signatures"]
    history = copy.deepcopy(rounds.history(4))
    change(_signed(history, 2))
    assert error_of(post(streamfix_server, rounds.name, history)) == expected
    with pytest.raises(RoundMismatch) as caught:
        rounds.answer(history)
    assert caught.value.round == 2 and str(caught.value) == expected


def test_a_missing_tool_result_gets_a_400(streamfix_server: ReplayServer) -> None:
    rounds = ROUNDS["rounds-signatures"]
    history = [m for m in rounds.history(3) if m.get("tool_call_id") != "call_1b"]
    assert error_of(post(streamfix_server, rounds.name, history)) == (
        "rounds-signatures: round 1: no tool result for the call ids ['call_1b']"
    )


def test_ollama_calls_without_ids_count_their_results(streamfix_server: ReplayServer) -> None:
    rounds = ROUNDS["rounds-ollama"]
    history = rounds.history(3)
    history.pop()  # round 2's second tool result
    assert error_of(post(streamfix_server, rounds.name, history)) == (
        "rounds-ollama: round 2: 2 calls but 1 tool results"
    )
    glued = rounds.history(2)  # what stock litellm builds from round 1: one glued call
    glued[1]["tool_calls"] = [
        {"function": {"name": "get_time", "arguments": '{"city": "Paris"}{"zone": "Europe/Paris"}'}}
    ]
    assert error_of(post(streamfix_server, rounds.name, glued)) == (
        "rounds-ollama: round 1: call 'get_time' has arguments that are not one JSON value:"
        ' \'{"city": "Paris"}{"zone": "Europe/Paris"}\' (Extra data: line 1 column 18 (char 17))'
    )
    glued[1]["tool_calls"][0]["function"]["arguments"] = {"zone": "Europe/Paris"}
    assert error_of(post(streamfix_server, rounds.name, glued)) == (
        "rounds-ollama: round 1: expected the calls ['get_weather', 'get_time'], got ['get_time']"
    )


def test_smolagents_text_form_is_read(streamfix_server: ReplayServer) -> None:
    """smolagents' ToolCallingAgent sends its calls as the step's text, ``Calling
    tools:`` and their repr, and the results as an ``Observation:`` user message."""
    rounds = ROUNDS["rounds-same-index"]
    right = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "\nCalling tools:\n"
                    + str(
                        [
                            {k: c[k] for k in ("id", "name")}
                            | {
                                "type": "function",
                                "function": {"name": c["name"], "arguments": c["arguments"]},
                            }
                            for c in rounds.rounds[0].calls
                        ]
                    ),
                }
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Observation:\nsunny"}]},
    ]
    assert chunks(rounds.name, post(streamfix_server, rounds.name, right)) == list(
        rounds.rounds[1].chunks
    )
    right.pop()
    assert error_of(post(streamfix_server, rounds.name, right)) == (
        "rounds-same-index: round 1: no observation after the calls"
    )


def test_the_listing_and_plain_scenarios_are_unchanged(streamfix_server: ReplayServer) -> None:
    """The scripts are reached by name; the model listing stays the corpus's."""
    models = httpx.get(f"{streamfix_server.openai_base_url}/models").json()
    assert {m["id"] for m in models["data"]} == set(streamfix.testing.SCENARIOS)
    assert not set(ROUNDS) & set(streamfix.testing.SCENARIOS)
