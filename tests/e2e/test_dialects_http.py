"""The other wire dialects over real HTTP (wire-shapes J-M): the replay server streams each
scenario at its dialect's endpoint, the provider's own SDK client reads it (openai's
``responses.create(stream=True)``, anthropic's ``messages.stream``, google-genai's
``generate_content_stream``, boto3's ``converse_stream`` on AWS's binary event stream),
and ``streamfix.assemble`` of the SDK's event objects is the
scenario's message. Where the SDK itself raises on the provider's error (Anthropic's
``error`` event), the events before it assemble to the complete calls and the SDK's
error carries the provider's words."""

from __future__ import annotations

from typing import Any

import pytest

import streamfix
from streamfix.testing import DIALECT_SCENARIOS, ReplayServer, Scenario, dialect_problems

USER = "What is the weather in Paris, and the time?"


def _names(dialect: str) -> list[str]:
    return sorted(n for n, s in DIALECT_SCENARIOS.items() if s.dialect == dialect)


def _assert_right(scenario: Scenario, items: list[Any]) -> None:
    assert items and not isinstance(items[0], dict)  # the SDK's own objects
    assert dialect_problems(scenario, items) == []


@pytest.mark.parametrize("name", _names("responses"))
def test_openai_responses_stream(streamfix_server: ReplayServer, name: str) -> None:
    import openai

    client = openai.OpenAI(base_url=streamfix_server.openai_base_url, api_key="sk-test")
    with client.responses.create(model=name, input=USER, stream=True) as stream:
        events = list(stream)
    _assert_right(DIALECT_SCENARIOS[name], events)


@pytest.mark.parametrize("name", _names("anthropic"))
def test_anthropic_messages_stream(streamfix_server: ReplayServer, name: str) -> None:
    """``messages.stream``: its own events (text, input_json...) among the wire's."""
    import anthropic

    scenario = DIALECT_SCENARIOS[name]
    client = anthropic.Anthropic(base_url=streamfix_server.url, api_key="sk-test", max_retries=0)
    events: list[Any] = []
    request = {"model": name, "max_tokens": 1024, "messages": [{"role": "user", "content": USER}]}
    try:
        with client.messages.stream(**request) as stream:
            events.extend(stream)
            final = stream.get_final_message()
    except anthropic.APIStatusError as error:  # the SDK raises on the provider's error event
        assert scenario.error is not None
        assert scenario.error.split(": ", 1)[1] in str(error)
        message = streamfix.assemble(events)
        assert [c.name for c in message.tool_calls] == [c["name"] for c in scenario.calls]
        return
    _assert_right(scenario, events)
    if not scenario.truncated:  # the SDK's own accumulation agrees
        uses = [(b.id, b.name, b.input) for b in final.content if b.type == "tool_use"]
        assert uses == [(c["id"], c["name"], c["arguments"]) for c in scenario.calls]


@pytest.mark.parametrize("name", _names("gemini"))
def test_google_genai_generate_content_stream(streamfix_server: ReplayServer, name: str) -> None:
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=streamfix_server.url)
    client = genai.Client(api_key="test-key", http_options=options)
    chunks = list(client.models.generate_content_stream(model=name, contents=USER))
    _assert_right(DIALECT_SCENARIOS[name], chunks)


def test_an_unknown_dialect_scenario_is_a_404(streamfix_server: ReplayServer) -> None:
    import httpx

    response = httpx.post(
        f"{streamfix_server.url}/v1/messages", json={"model": "b3-same-index", "stream": True}
    )
    assert response.status_code == 404
    assert "unknown anthropic scenario" in response.json()["error"]["message"]


@pytest.mark.parametrize("name", _names("bedrock"))
def test_boto3_converse_stream(streamfix_server: ReplayServer, name: str) -> None:
    """boto3's ``converse_stream`` (SigV4-signed, placeholder credentials) reads AWS's
    binary event stream; the events it decodes assemble to the scenario. An exception
    item is botocore's ``EventStreamError`` carrying the provider's words, the events
    before it assembling to the complete calls."""
    import boto3
    from botocore.exceptions import EventStreamError

    scenario = DIALECT_SCENARIOS[name]
    client = boto3.client(
        "bedrock-runtime",
        endpoint_url=streamfix_server.url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    messages = [{"role": "user", "content": [{"text": USER}]}]
    response = client.converse_stream(modelId=name, messages=messages)
    events: list[Any] = []
    try:
        events.extend(response["stream"])
    except EventStreamError as error:
        assert scenario.error is not None
        kind, words = scenario.error.split(": ", 1)
        assert (kind, words) == (
            error.response["Error"]["Code"],
            error.response["Error"]["Message"],
        )
        assert dialect_problems(scenario, [*events, {kind: {"message": words}}]) == []
        return
    assert scenario.error is None
    assert dialect_problems(scenario, events) == []


def test_the_eventstream_frames_as_botocore_reads_it() -> None:
    """The encoder's messages through botocore's own parser: headers, payload, both CRCs."""
    from botocore.eventstream import EventStreamBuffer

    from streamfix.testing import bedrock_message

    buffer = EventStreamBuffer()
    buffer.add_data(bedrock_message({"contentBlockStop": {"contentBlockIndex": 0}}))
    buffer.add_data(bedrock_message({"throttlingException": {"message": "slow down"}}))
    first, second = list(buffer)
    assert first.headers == {
        ":event-type": "contentBlockStop",
        ":message-type": "event",
        ":content-type": "application/json",
    }
    assert first.payload == b'{"contentBlockIndex": 0}'
    assert second.headers[":exception-type"] == "throttlingException"
    assert second.headers[":message-type"] == "exception"
