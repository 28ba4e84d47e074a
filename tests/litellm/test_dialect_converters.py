"""litellm's converters of the other dialects (wire-shapes J-M, part 4): Anthropic
Messages, Gemini ``streamGenerateContent`` and the Responses bridge through
``litellm.completion(stream=True)`` (and ``acompletion``) over real HTTP against the
replay server, Bedrock ConverseStream through ``litellm.completion`` on the real bytes
of AWS's event stream (the replay server does not serve it); then
``litellm.stream_chunk_builder``, judged as the doctor judges. Stock loses arguments (K2:
an Anthropic input given whole in ``content_block_start``; J2: the Responses arguments
only in a done event), crashes (J3: an empty Responses argument delta; L3: Gemini 3's
``partialArgs``), hands on a cut call (K4, J6) and drops the provider's error code;
patched, every scenario is right, and where stock is right the message is stock's."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import litellm
import pytest
from litellm.llms.custom_httpx.http_handler import HTTPHandler
from support import report_stock_loss

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer, Scenario, bedrock_stream, judge

pytestmark = pytest.mark.shim_only

SCENARIOS = streamfix.testing.dialect_scenarios()
USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
HTTP = sorted(n for n, s in SCENARIOS.items() if s.dialect != "bedrock")
#: what stock litellm loses over its real HTTP path, by what: the dialect's parser
#: (arguments lost, a crash), or the chat stream (a cut call handed on, the provider's
#: error code dropped), which the wire repairs
LOST_IN_PARSER = {
    "j2-responses-done-only",
    "j2-responses-item-done-only",
    "j3-responses-empty-and-stray",
    "k2-anthropic-input-whole",
    "l3-gemini-no-terminator",
    "l3-gemini-partial-args",
}
LOST_IN_STREAM = {
    "j6-responses-failed",
    "j6-responses-incomplete",
    "k4-anthropic-error",
    "k4-anthropic-max-tokens",
}
RIGHT = sorted(set(HTTP) - LOST_IN_PARSER - LOST_IN_STREAM)
#: where litellm's Responses API iterator raises before the bridge's parser sees the
#: event (its own mapping of ``response.failed``: the provider's message, not its code)
RAISED_UPSTREAM = "j6-responses-failed"
BEDROCK_MODEL = "bedrock/converse/anthropic.claude-sonnet-4-20250514-v1:0"


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    """The replay server, and the Responses scenarios known to litellm as models that
    stream (else litellm fakes the stream: one non-streamed request)."""
    known = {
        f"openai/{name}": {
            "litellm_provider": "openai",
            "mode": "chat",
            "max_tokens": 4096,
            "input_cost_per_token": 0.0,
            "output_cost_per_token": 0.0,
            "supports_native_streaming": True,
        }
        for name in HTTP
        if SCENARIOS[name].dialect == "responses"
    }
    litellm.register_model(known)
    try:
        with ReplayServer() as replay:
            yield replay
    finally:
        for key in known:
            litellm.model_cost.pop(key, None)


def _request(server: ReplayServer, name: str) -> dict[str, Any]:
    dialect = SCENARIOS[name].dialect
    if dialect == "responses":  # litellm's Responses bridge: chat completions in, Responses out
        return {"model": f"openai/responses/{name}", "api_base": server.openai_base_url}
    if dialect == "anthropic":
        return {"model": f"anthropic/{name}", "api_base": server.url}
    return {"model": f"gemini/{name}", "api_base": f"{server.url}/v1beta"}


def _completion(request: dict[str, Any], mode: str) -> tuple[list[Any], BaseException | None]:
    """Every chunk ``completion(stream=True)`` (``mode`` sync) or ``acompletion`` (async)
    yields, and what the iteration raised."""
    kwargs = {"messages": USER, "api_key": "sk-test", "stream": True, "max_retries": 0}
    kwargs.update(request)

    if mode == "sync":
        return streamfix.testing.drain(lambda: litellm.completion(**kwargs))
    return asyncio.run(streamfix.testing.adrain(lambda: litellm.acompletion(**kwargs)))


def _outcome(chunks: list[Any], error: BaseException | None) -> streamfix.testing.Outcome:
    from streamfix_litellm._doctor_dialects import read_response

    if error is not None:
        return streamfix.testing.failure(error)
    return streamfix.testing.run_case(lambda: litellm.stream_chunk_builder(chunks), read_response)


def _judged(name: str, request: dict[str, Any], mode: str = "sync") -> tuple[bool, str]:
    return judge(SCENARIOS[name], _outcome(*_completion(request, mode)))


@pytest.mark.parametrize("name", HTTP)
def test_stock(server: ReplayServer, name: str) -> None:
    ok, why = _judged(name, _request(server, name))
    assert ok == (name not in LOST_IN_PARSER | LOST_IN_STREAM), why


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("name", sorted(set(HTTP) - {RAISED_UPSTREAM}))
def test_patched(server: ReplayServer, patched: None, name: str, mode: str) -> None:
    ok, why = _judged(name, _request(server, name), mode)
    assert ok, why


def test_stock_loses_the_arguments_sent_whole(server: ReplayServer) -> None:
    """K2 (as earendil-works/pi PR#2593 found in its own converter): stock's calls are
    ``{}``; patched, the inputs sent in ``content_block_start``."""
    chunks, _ = _completion(_request(server, "k2-anthropic-input-whole"), "sync")
    calls = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert [c.function.arguments for c in calls] == ["{}", "{}"]


def test_patched_keeps_the_arguments_sent_whole(server: ReplayServer, patched: None) -> None:
    chunks, _ = _completion(_request(server, "k2-anthropic-input-whole"), "sync")
    calls = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        (c["id"], c["name"], c["arguments"]) for c in SCENARIOS["k2-anthropic-input-whole"].calls
    ]


def test_a_provider_error_keeps_its_code(server: ReplayServer, patched: None) -> None:
    """Anthropic's ``overloaded_error`` event: litellm's exception for a 5xx (through
    its mid-stream fallback, as stock), with the provider's own words, after the complete
    call."""
    chunks, error = _completion(_request(server, "k4-anthropic-error"), "sync")
    raised = getattr(error, "original_exception", None) or error  # through the fallback
    assert isinstance(raised, litellm.InternalServerError)
    assert "overloaded_error: Overloaded" in str(raised)
    assert _names(chunks) == ["get_weather"]


def _names(chunks: list[Any]) -> list[str]:
    """The names of the calls the chunks open."""
    entries = [e for c in chunks for e in c.choices[0].delta.tool_calls or []]
    return [e.function.name for e in entries if e.function.name]


def test_a_failed_response_raised_upstream_is_stock(server: ReplayServer) -> None:
    """``response.failed``: litellm's Responses API iterator raises its own exception
    (the provider's message, not its code) before the bridge's parser sees the event;
    patched, the same exception after the same complete call."""
    request = _request(server, RAISED_UPSTREAM)
    stock_chunks, stock = _completion(request, "sync")
    streamfix.install("litellm")
    try:
        chunks, fixed = _completion(request, "sync")
    finally:
        streamfix.uninstall("litellm")
    assert type(fixed) is type(stock) and str(fixed) == str(stock)
    assert "The model crashed." in str(fixed)
    assert _names(chunks) == _names(stock_chunks) == ["get_weather"]


def _message(chunks: list[Any]) -> dict[str, Any]:
    """The builder's message and finish reason, litellm's random call ids (Gemini sends
    none) written as ``call_*`` (a ``__thought__`` signature after one kept)."""
    response = litellm.stream_chunk_builder(chunks)
    dumped = response.choices[0].model_dump()
    text = re.sub(r"call_[0-9a-f]{28}", "call_*", json.dumps(dumped, sort_keys=True))
    return {"choice": json.loads(text), "usage": response.usage.model_dump()}


@pytest.mark.parametrize("name", RIGHT)
def test_same_as_stock_where_stock_is_right(server: ReplayServer, name: str) -> None:
    """Where stock loses nothing, the message litellm builds (calls, their ids and
    provider fields, text, reasoning, thinking blocks, finish reason, usage) is stock's
    (a Gemini signature also in ``extra_content``: the wire's, R7)."""
    request = _request(server, name)
    stock = _message(_completion(request, "sync")[0])
    streamfix.install("litellm")
    try:
        fixed = _message(_completion(request, "sync")[0])
    finally:
        streamfix.uninstall("litellm")
    for call in fixed["choice"]["message"]["tool_calls"] or ():
        # the wire's R7 (on main before these parsers): a signature litellm keeps in the
        # call's provider fields also in ``extra_content``, where OpenAI-form readers look
        signed = (call.get("provider_specific_fields") or {}).get("thought_signature")
        if signed and call.get("extra_content") == {"google": {"thought_signature": signed}}:
            del call["extra_content"]
    assert fixed == stock


# --- Bedrock: litellm.completion on the real bytes of AWS's event stream ----------------


def _bedrock(events: list[dict[str, Any]]) -> tuple[list[Any], BaseException | None]:
    """``litellm.completion(stream=True)`` on Bedrock's Converse API, its HTTP client
    answering with ``events`` as AWS's event stream."""
    body = b"".join(streamfix.testing.bedrock_message(event) for event in events)

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(body))

    client = HTTPHandler(client=httpx.Client(transport=httpx.MockTransport(answer)))
    credentials = {"aws_access_key_id": "x", "aws_secret_access_key": "y"}
    request = {"model": BEDROCK_MODEL, "client": client, "aws_region_name": "us-east-1"}
    return streamfix.testing.drain(
        lambda: litellm.completion(messages=USER, stream=True, **request, **credentials)
    )


BEDROCK = sorted(n for n, s in SCENARIOS.items() if s.dialect == "bedrock" and s.error is None)
#: What stock loses of the corpus's Bedrock streams over litellm's HTTP path.
BEDROCK_STOCK_LOSES = {"m1-bedrock-max-tokens": "incomplete call handed on: get_humidity"}


def _bedrock_both(scenario: Scenario) -> tuple[Any, Any]:
    stock = _bedrock(streamfix.testing.fresh_chunks(scenario))
    streamfix.install("litellm")
    try:
        fixed = _bedrock(streamfix.testing.fresh_chunks(scenario))
    finally:
        streamfix.uninstall("litellm")
    return stock, fixed


@pytest.mark.parametrize("name", BEDROCK)
def test_bedrock_stock_and_patched(name: str) -> None:
    """Stock is right on the corpus's Bedrock streams but a call cut by max_tokens
    (handed on as if complete); patched, right, and the same message where stock is."""
    scenario = SCENARIOS[name]
    stock, fixed = _bedrock_both(scenario)
    lost = BEDROCK_STOCK_LOSES.get(name)
    ok, why = judge(scenario, _outcome(*stock))
    if lost is None:
        assert (ok, why) == (True, "")
    else:
        assert not ok
        report_stock_loss(f"litellm bedrock {name}", why, lost)
    assert judge(scenario, _outcome(*fixed)) == (True, "")
    if lost is None:
        assert _message(fixed[0]) == _message(stock[0])


def test_bedrock_exception_raised_as_stock() -> None:
    """A ConverseStream exception mid-stream: litellm's event-stream decoder raises it
    before any parser (its code and the provider's words), patched as stock."""
    scenario = SCENARIOS["m1-bedrock-exception"]
    stock, fixed = _bedrock_both(scenario)
    for _, error in (stock, fixed):
        assert error is not None
        assert "modelStreamErrorException" in str(error)
        assert "The model stream failed." in str(error)
    assert (type(fixed[1]), str(fixed[1])) == (type(stock[1]), str(stock[1]))


def _interleaved() -> tuple[Scenario, list[dict[str, Any]]]:
    """M1's parallel calls with their blocks' deltas interleaved (both blocks open, then
    their pieces alternate), each piece keyed by its ``contentBlockIndex``."""
    scenario = SCENARIOS["m1-bedrock-parallel"]
    events = bedrock_stream(list(scenario.calls), scenario.text)
    starts = [e for e in events if "contentBlockStart" in e]
    calls = {e["contentBlockStart"]["contentBlockIndex"] for e in starts}
    assert len(calls) == 2

    def of(e: dict[str, Any], kind: str) -> bool:
        return kind in e and e[kind]["contentBlockIndex"] in calls

    deltas = [e for e in events if of(e, "contentBlockDelta")]
    stops = [e for e in events if of(e, "contentBlockStop")]
    by_block: dict[int, list[dict[str, Any]]] = {}
    for e in deltas:
        by_block.setdefault(e["contentBlockDelta"]["contentBlockIndex"], []).append(e)
    mixed = [e for pieces in zip(*by_block.values(), strict=True) for e in pieces]
    first, last = events.index(starts[0]), events.index(stops[-1])
    return scenario, [*events[:first], *starts, *mixed, *stops, *events[last + 1 :]]


def test_bedrock_interleaved_blocks_stock() -> None:
    """Stock gives every ``toolUse`` delta to the latest block opened, whatever its
    ``contentBlockIndex`` (run-llama/llama_index#18760's glue, in litellm's parser): the
    first call keeps no arguments, the second gets both calls' pieces."""
    scenario, events = _interleaved()
    chunks, error = _bedrock(events)
    assert error is None
    calls = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert calls[0].function.arguments in ("", "{}")
    assert judge(scenario, _outcome(chunks, error))[0] is False


def test_bedrock_interleaved_blocks_patched(patched: None) -> None:
    scenario, events = _interleaved()
    assert judge(scenario, _outcome(*_bedrock(events))) == (True, "")
