"""``streamfix.testing``'s in-process answer (what the doctor's drivers of frameworks on a
wire give their framework's real client) and its reading of what a framework raised.

Driven with ``httpx`` (what the openai SDK is built on before 3.x; the drivers pass the
SDK's own library): the answer is the replay server's, request for request.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import streamfix
from streamfix import testing

OPENAI = testing.scenarios("openai")
URL = f"{testing.DOCTOR_BASE_URL}/chat/completions"


def _post(scenario: testing.Scenario, body: dict[str, Any]) -> httpx.Response:
    client = testing.served_http_client(scenario, http=httpx)
    with client:
        return client.post(URL, json={"model": scenario.name, **body})


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_a_streamed_request_gets_the_scenario_s_chunks_as_sse(name: str) -> None:
    scenario = OPENAI[name]
    response = _post(scenario, {"stream": True, "messages": [{"role": "user"}]})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.text.endswith("data: [DONE]\n\n")
    assert testing.parse_sse(response.text) == list(scenario.chunks)


@pytest.mark.parametrize("name", ["b2-same-index", "e5-error"])
def test_a_request_that_does_not_stream_gets_the_completion(name: str) -> None:
    scenario = OPENAI[name]
    response = _post(scenario, {"messages": [{"role": "user"}]})
    assert response.status_code == scenario.status
    assert response.json() == scenario.completion()


@pytest.mark.parametrize("stream", [True, False])
def test_a_request_carrying_a_tool_result_gets_the_follow_up(stream: bool) -> None:
    scenario = OPENAI["b2-same-index"]
    messages = [{"role": "user"}, {"role": "tool", "tool_call_id": "call_a", "content": "ok"}]
    response = _post(scenario, {"stream": stream, "messages": messages})
    if stream:
        text = streamfix.assemble(testing.parse_sse(response.text)).content
    else:
        text = response.json()["choices"][0]["message"]["content"]
    assert text == scenario.follow_up


def test_the_async_client_answers_the_same() -> None:
    import asyncio

    scenario = OPENAI["b6-no-index"]

    async def post() -> str:
        async with testing.served_http_client(scenario, asynchronous=True, http=httpx) as client:
            response = await client.post(URL, json={"stream": True, "messages": []})
            return response.text

    assert asyncio.run(post()) == testing.sse(scenario.chunks).decode()


def test_tool_names_and_declared_tools() -> None:
    scenario = OPENAI["e4-truncated"]  # a complete call and a cut one
    names = [call["name"] for call in (*scenario.calls, *scenario.partial_calls)]
    assert testing.tool_names(scenario) == list(dict.fromkeys(names))
    declared = testing.declared_tools(scenario, parameters={})
    assert [tool["function"]["name"] for tool in declared] == testing.tool_names(scenario)
    assert all(tool["function"]["parameters"] == {} for tool in declared)
    assert testing.declared_tools(scenario)[0]["function"]["parameters"] == {"type": "object"}


def test_tool_names_of_a_capture_are_those_the_core_assembles(tmp_path: Any) -> None:
    path = tmp_path / "capture.jsonl"
    chunks = OPENAI["b2-same-index"].chunks
    path.write_text("".join(json.dumps(chunk) + "\n" for chunk in chunks))
    capture = testing.load_capture(path)
    assert not capture.calls
    assert testing.tool_names(capture) == testing.tool_names(OPENAI["b2-same-index"])


def _wire_end(scenario: testing.Scenario) -> streamfix.StreamFixError:
    with pytest.raises(streamfix.StreamFixError) as caught:
        list(streamfix.repair(testing.fresh_chunks(scenario)))
    return caught.value


def test_the_wire_s_documented_end_of_i3_is_the_right_assembly() -> None:
    scenario = OPENAI["i3-restarted"]
    error = _wire_end(scenario)
    framework = RuntimeError("the framework's own error")
    framework.__cause__ = error
    outcome = testing.raised(scenario, framework)
    assert testing.judge(scenario, outcome) == (True, "")
    assert testing.settled_text(scenario, f"APIError: {error}") == outcome
    assert testing.settled_text(scenario, "something else") is None


def test_any_other_error_is_the_framework_s_failure() -> None:
    truncated = OPENAI["e4-truncated"]
    error = _wire_end(truncated)
    assert testing.settled(truncated, error) is None
    assert testing.raised(truncated, error) == testing.failure(error)
    assert testing.settled(OPENAI["i3-restarted"], KeyError("choices")) is None


def test_an_error_whose_text_cannot_be_read_is_still_described() -> None:
    class Broken(Exception):
        def __str__(self) -> str:
            raise ValueError("no text")

    outcome = testing.raised(OPENAI["text"], Broken())
    assert outcome.error is not None
    assert outcome.error.startswith("Broken: <str() raised ValueError: no text>")


def test_outcome_of_runs_a_coroutine_and_reads_it() -> None:
    async def run() -> str:
        return "hello"

    outcome = testing.outcome_of(OPENAI["text"], run, lambda text: testing.Outcome(text=text))
    assert outcome == testing.Outcome(text="hello")
