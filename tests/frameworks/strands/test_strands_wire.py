"""The Strands Agents SDK over real HTTP (the replay server): an ``Agent`` on
``OpenAIModel`` (the openai wire) and on ``LiteLLMModel`` (``openai/<scenario>``, the
litellm wire), run with ``Agent.stream_async`` to the end: the first assistant message's
``toolUse`` blocks (name, input, ``toolUseId``) and text, the model's stream events, the
tools run and the follow-up text as the last message; stock and on the repaired wire.

Both models key tool-call deltas by ``index`` (name and id those of the index's first
delta, the arguments all its deltas joined), stop reading at the first ``finish_reason``,
and the event loop parses each call's arguments when its block ends (``{}`` when they are
not JSON; a call without an id is skipped on ``OpenAIModel``, given a generated one on
``LiteLLMModel``). On OpenAI's own form both are right, so the wire is enough.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import (
    NAMES,
    OPENAI,
    PASSED_THROUGH,
    Got,
    assert_lost,
    assert_right,
    assert_same,
    capture,
)
from support import assert_doctor_column, shim_fixture

import streamfix_litellm
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_litellm import _doctor_strands as litellm_driver
from streamfix_openai import _doctor_strands as openai_driver

strands = pytest.importorskip("strands")
pytest.importorskip("strands.models.litellm")

_stock_litellm = shim_fixture("litellm", autouse=True, name="_stock_litellm")


@dataclass(frozen=True)
class Model:
    """One of strands' models: its doctor column, its driver, its wire and what it loses
    stock on the corpus."""

    column: str
    driver: Any
    wire: Any
    losses: dict[str, str] = field(hash=False)

    def agent(self, server: ReplayServer, scenario: testing.Scenario) -> Any:
        if self.wire is streamfix_openai:
            return self.driver.agent(scenario, base_url=server.openai_base_url)
        return self.driver.agent(scenario, api_base=server.openai_base_url)


OPENAI_MODEL = Model(
    "strands",
    openai_driver,
    streamfix_openai,
    {
        "b2-same-index": "two calls at one index: the second lost, the arguments glued: {}",
        "b3-same-index": "two calls at one index, no ids: the call skipped, no call at all",
        "b6-no-index": "calls without an index: the second lost, the arguments glued: {}",
        "h1-legacy-function-call": "a legacy function_call: no tool call",
        "i1-double-encoded": "arguments a JSON string, not the object",
        "i3-restarted": "restarted arguments glued: {}",
        "f2-late-signature": "a signature-only entry (no function): AttributeError",
    },
)
LITELLM_MODEL = Model(
    "strands-litellm",
    litellm_driver,
    streamfix_litellm,
    {
        "b2-same-index": "two calls at one index: the second lost, the arguments glued: {}",
        "b3-same-index": "two calls at one index, no ids: the second lost, arguments {}",
        "b6-no-index": "calls without an index: the second lost, the arguments glued: {}",
        "h1-legacy-function-call": "a legacy function_call: no tool call",
        "i1-double-encoded": "arguments a JSON string, not the object",
        "i3-restarted": "restarted arguments glued: {}",
    },
)
MODELS = [OPENAI_MODEL, LITELLM_MODEL]


def _cases(select: Any) -> list[Any]:
    return [
        pytest.param(model, name, id=f"{model.column}-{name}")
        for model in MODELS
        for name in NAMES
        if select(model, name)
    ]


def _message(agent: Any) -> dict[str, Any]:
    return next(m for m in agent.messages if m["role"] == "assistant")


def _got(ran: Any) -> Got:
    agent, _ = ran
    calls: list[tuple[str, Any, Any]] = []
    text = []
    for block in _message(agent)["content"]:
        if "toolUse" in block:
            use = block["toolUse"]
            calls.append((use["name"], use["input"], use["toolUseId"]))
        elif "text" in block:
            text.append(block["text"])
    return Got(calls, "".join(text))


def _run(model: Model, server: ReplayServer, scenario: testing.Scenario) -> tuple[Got, Any]:
    ran: list[Any] = []

    async def go() -> Any:
        ran.append(await model.driver.run_streamed(model.agent(server, scenario)))
        return ran[-1]

    return capture(scenario, go, _got, model.driver.read), (ran[0] if ran else None)


def _events(ran: Any) -> list[Any]:
    """The model's stream events, in order (``messageStart``, ``contentBlockDelta``...)."""
    _, events = ran
    return [event["event"] for event in events if "event" in event]


@pytest.mark.parametrize(("model", "name"), _cases(lambda model, name: True))
def test_patched_right(streamfix_server: ReplayServer, model: Model, name: str) -> None:
    scenario = OPENAI[name]
    model.wire.install()
    got, ran = _run(model, streamfix_server, scenario)
    assert_right(scenario, got)
    if ran is not None and scenario.calls:  # the tools ran, the follow-up is the answer
        agent, _ = ran
        results = [
            block["toolResult"]["toolUseId"]
            for message in agent.messages
            for block in message["content"]
            if "toolResult" in block
        ]
        assert results == got.ids
        assert agent.messages[-1]["content"] == [{"text": scenario.follow_up}]


@pytest.mark.stock_failure
@pytest.mark.parametrize(("model", "name"), _cases(lambda model, name: name in model.losses))
def test_stock_loses(streamfix_server: ReplayServer, model: Model, name: str) -> None:
    got, _ = _run(model, streamfix_server, OPENAI[name])
    assert_lost(OPENAI[name], got)


@pytest.mark.parametrize(("model", "name"), _cases(lambda model, name: name not in model.losses))
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, model: Model, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same stream events in the same order."""
    scenario = OPENAI[name]
    stock, stock_ran = _run(model, streamfix_server, scenario)
    model.wire.install()
    patched, patched_ran = _run(model, streamfix_server, scenario)
    assert_same(scenario, stock, patched)
    if name in PASSED_THROUGH:
        assert _events(patched_ran) == _events(stock_ran)


# -- shapes the corpus does not have: a finish_reason mid-stream, text beside calls ------

_WEATHER, _TIME = json.dumps({"city": "Paris"}), json.dumps({"zone": "Europe/Paris"})


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-strands",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "strands",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _call(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    entry = {"index": index, "id": call_id, "type": "function", "function": function}
    return {"tool_calls": [entry]}


_BOTH = (
    {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},
    {"id": "call_b", "name": "get_time", "arguments": {"zone": "Europe/Paris"}},
)
E2 = testing.Scenario(
    "e2-finish-mid-stream",
    "E2",
    "a finish_reason on an intermediate chunk, one more call after it (LiteLLM 1.81+)",
    "openai",
    (
        _chunk({"role": "assistant", "content": ""}),
        _chunk(_call(0, "call_a", "get_weather", _WEATHER), "tool_calls"),
        _chunk(_call(1, "call_b", "get_time", _TIME)),
        _chunk({}, "tool_calls"),
    ),
    calls=_BOTH,
)
TEXT_BESIDE_CALLS = testing.Scenario(
    "a2-text-beside-calls",
    "A2",
    "text, then two calls each in its own fragments (OpenAI's own form)",
    "openai",
    (
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"content": "Let me "}),
        _chunk({"content": "check."}),
        _chunk(_call(0, "call_a", "get_weather", _WEATHER[:6])),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": _WEATHER[6:]}}]}),
        _chunk(_call(1, "call_b", "get_time", _TIME)),
        _chunk({}, "tool_calls"),
    ),
    calls=_BOTH,
    text="Let me check.",
)


@pytest.fixture(scope="module")
def extra_server() -> Iterator[ReplayServer]:
    """The replay server with the two shapes above."""
    with ReplayServer(scenarios={s.name: s for s in (E2, TEXT_BESIDE_CALLS)}) as server:
        yield server


@pytest.mark.stock_failure
def test_a_finish_reason_mid_stream_stops_openai_model_not_patched(
    extra_server: ReplayServer,
) -> None:
    """``OpenAIModel`` stops reading at the first ``finish_reason`` (the issue's "strands
    stops reading at the first finish_reason"): the call after it is lost stock; the wire
    puts the finish reason on the last chunk only (R8)."""
    stock, _ = _run(OPENAI_MODEL, extra_server, E2)
    assert stock.error is None
    assert stock.named == [("get_weather", {"city": "Paris"})]
    assert_lost(E2, stock)
    streamfix_openai.install()
    assert_right(E2, _run(OPENAI_MODEL, extra_server, E2)[0])


def test_a_finish_reason_mid_stream_reaches_litellm_model_at_the_end(
    extra_server: ReplayServer,
) -> None:
    """``LiteLLMModel`` stops at the first ``finish_reason`` too, but litellm's stream
    wrapper hands on a finish reason with the last chunk only: stock is right, and patched
    the same."""
    stock, _ = _run(LITELLM_MODEL, extra_server, E2)
    assert_right(E2, stock)
    streamfix_litellm.install()
    assert_same(E2, stock, _run(LITELLM_MODEL, extra_server, E2)[0])


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.column)
def test_text_beside_calls_kept_stock_and_patched(extra_server: ReplayServer, model: Model) -> None:
    """strands keeps the text that comes beside calls (a text block, then a block per
    call, as upstream's ``test_stream`` pins: ``messageStart``, the text's block, each
    call's ``contentBlockStart`` with its id and name, its input deltas, its stop, then
    ``messageStop`` ``tool_use``): stock and patched alike, event for event."""
    stock, stock_ran = _run(model, extra_server, TEXT_BESIDE_CALLS)
    assert_right(TEXT_BESIDE_CALLS, stock)
    model.wire.install()
    patched, patched_ran = _run(model, extra_server, TEXT_BESIDE_CALLS)
    assert_same(TEXT_BESIDE_CALLS, stock, patched)
    assert _events(patched_ran) == _events(stock_ran)
    events = _events(patched_ran)  # the first model turn's (the follow-up's come next)
    events = events[: events.index({"messageStop": {"stopReason": "tool_use"}}) + 1]
    kinds = [next(iter(event)) for event in events]
    assert kinds[:5] == [
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockStop",
    ]
    starts = [e["contentBlockStart"]["start"] for e in events[5:] if "contentBlockStart" in e]
    assert [start["toolUse"] for start in starts] == [
        {"toolUseId": "call_a", "name": "get_weather"},
        {"toolUseId": "call_b", "name": "get_time"},
    ]
    assert kinds[-1] == "messageStop"


def test_litellm_model_generates_an_id_where_the_stream_has_none(
    streamfix_server: ReplayServer,
) -> None:
    """Upstream's ``test_stream_generates_tool_call_id_when_null``: a call without an id
    gets a ``call_`` one from ``LiteLLMModel`` (stock: the first call of B3); patched, the
    wire's own id for each call (R3)."""
    stock, _ = _run(LITELLM_MODEL, streamfix_server, OPENAI["b3-same-index"])
    assert [i.startswith("call_") for i in stock.ids] == [True]
    streamfix_litellm.install()
    patched, _ = _run(LITELLM_MODEL, streamfix_server, OPENAI["b3-same-index"])
    assert patched.named == [(c["name"], c["arguments"]) for c in OPENAI["b3-same-index"].calls]
    assert all(i.startswith("call_") for i in patched.ids) and len(set(patched.ids)) == 2


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.column)
def test_doctor_column(model: Model) -> None:
    """``streamfix doctor``'s column: the wire's patch, 0 failing patched cells, and stock
    losing exactly the model's losses."""
    assert testing.DRIVERS[model.column].package == "strands-agents"
    assert_doctor_column(model.column, model.wire.__name__.removeprefix("streamfix_"), model.losses)
