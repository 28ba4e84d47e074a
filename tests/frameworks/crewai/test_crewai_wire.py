"""crewai's ``LLM(stream=True)`` on the litellm path (``is_litellm=True``,
``openai/<scenario>``) over real HTTP (the replay server): ``LLM.call(prompt, tools=...)``
as crewai's agents call it (no ``available_functions``: they run the calls themselves),
the calls it returns (name, arguments, id) or its text, and the events it emits; stock, on
the repaired litellm wire alone, and with the wire and the ``crewai`` shim.

``_handle_streaming_response`` accumulates tool-call deltas by ``index`` (the last name an
index got, the arguments joined) and returns the calls as ``ChatCompletionDeltaToolCall``
built from name and arguments alone: every id dropped, where crewai's non-streamed path
returns the provider's calls with theirs (a crew then answers each call with a tool
message whose ``tool_call_id`` is ``None``). A stream that fails after some text returns
that text as the answer, where the non-streamed path raises. Both happen on OpenAI's own
form: the wire is not enough, the shim keeps both as the non-streamed path does. The text
beside calls is returned by neither path (upstream's
``test_non_streaming_returns_tool_calls_when_text_also_present``): left as it is.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from conftest import (
    NAMES,
    OPENAI,
    PASSED_THROUGH,
    Got,
    assert_lost,
    assert_right,
    capture,
    expected_ids,
)
from support import assert_doctor_column, shim_fixture

import streamfix
import streamfix_crewai
import streamfix_litellm
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_crewai import _doctor as driver

crewai_llm = pytest.importorskip("crewai.llm")
event_bus = pytest.importorskip("crewai.events.event_bus")

_stock_both = shim_fixture("litellm", "crewai", autouse=True, name="_stock_both")
both = shim_fixture("litellm", "crewai", install=True, name="both")

#: What stock crewai loses on the corpus (the doctor's ``crewai`` column).
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index: one call, the last name, the arguments glued",
    "b3-same-index": "two calls at one index: one call, the last name, the arguments glued",
    "b6-no-index": "calls without an index: one call, the last name, the arguments glued",
    "h1-legacy-function-call": "a legacy function_call: 'No content received' Exception",
    "i1-double-encoded": "arguments a JSON string, not the object",
    "i3-restarted": "restarted arguments glued: invalid JSON handed on",
    "e4-truncated": "the cut arguments handed on as a call",
    "e5-error": "the provider's error swallowed: the text before it returned as the answer",
}
#: What crewai still loses on the repaired wire alone (OpenAI's own form), as the doctor
#: judges it; and on every scenario with calls, the calls' ids (the doctor does not judge
#: ids: :func:`test_the_wire_alone_drops_every_id`).
WIRE_ALONE_LOSSES = {
    "e5-error": "the wire's error (litellm's) swallowed: 'Let me check' returned",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]
WITH_CALLS = [name for name in NAMES if OPENAI[name].calls and not OPENAI[name].truncated]
WITH_CALLS = [name for name in WITH_CALLS if OPENAI[name].shape not in testing.UNREPAIRABLE]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """crewai's console listener (its streaming panels, written past pytest's capture)
    out of the way for every test, as the doctor's driver has it."""
    with driver.quiet():
        yield


@pytest.fixture
def events() -> Iterator[list[Any]]:
    """Every event crewai emits during the test, in order (``crewai_event_bus.emit``
    recorded, no handler run, as upstream's tests do)."""
    seen: list[Any] = []
    with mock.patch.object(event_bus.crewai_event_bus, "emit", lambda _, event: seen.append(event)):
        yield seen


def _got(result: Any) -> Got:
    if isinstance(result, str):
        return Got(text=result)
    calls = [
        (entry.function.name, testing.parse_arguments(entry.function.arguments), entry.id)
        for entry in result
    ]
    return Got(calls)


def _call(server: ReplayServer, name: str, *, stream: bool = True) -> Got:
    scenario = OPENAI[name]
    llm = driver.llm(scenario, stream=stream, api_base=server.openai_base_url)
    return capture(scenario, lambda: driver.call(llm, scenario), _got, driver.read)


def _stream_events(events: list[Any]) -> list[tuple[Any, ...]]:
    """The stream chunk events (text or a tool-call delta) and the call's end."""
    return [
        (type(e).__name__, getattr(e, "chunk", None), getattr(e, "tool_call", None))
        for e in events
        if type(e).__name__ in ("LLMStreamChunkEvent", "LLMCallCompletedEvent")
    ]


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    assert_right(OPENAI[name], _call(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    assert_lost(OPENAI[name], _call(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", WITH_CALLS)
def test_stock_drops_every_id_the_non_streamed_path_keeps(
    streamfix_server: ReplayServer, name: str
) -> None:
    """Stock's streamed calls have no id; the same response non-streamed has the
    provider's (litellm's generated ones where the provider sent none)."""
    stock = _call(streamfix_server, name)
    whole = _call(streamfix_server, name, stream=False)
    assert whole.error is None and all(whole.ids), whole
    assert stock.ids == [None] * len(stock.calls)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", WITH_CALLS)
def test_the_wire_alone_drops_every_id(streamfix_server: ReplayServer, name: str) -> None:
    """On the repaired wire (OpenAI's own form: each call's id on its first entry)
    without the shim, crewai still returns the right calls without their ids; with the
    shim (:func:`test_patched_right`), the wire's ids."""
    streamfix_litellm.install()
    got = _call(streamfix_server, name)
    assert got.named == [(c["name"], c["arguments"]) for c in OPENAI[name].calls]
    assert got.ids == [None] * len(got.calls)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(WIRE_ALONE_LOSSES))
def test_the_wire_alone_is_not_enough(streamfix_server: ReplayServer, name: str) -> None:
    streamfix_litellm.install()
    got = _call(streamfix_server, name)
    assert got.error is None and got.text == "Let me check"
    assert_lost(OPENAI[name], got)


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, events: list[Any], name: str
) -> None:
    """The same calls and text, each call given the id the non-streamed path gives it
    (the wire's: a shared id made unique, G3); and where the wire passes every chunk on as
    it came (R1), the same stream events in the same order."""
    scenario = OPENAI[name]
    stock = _call(streamfix_server, name)
    stock_events = _stream_events(events)
    events.clear()
    streamfix_litellm.install()
    streamfix_crewai.install()
    patched = _call(streamfix_server, name)
    patched_events = _stream_events(events)
    assert patched.named == stock.named
    assert patched.text == stock.text
    assert (stock.error is None) == (patched.error is None)
    if scenario.calls:
        whole = _call(streamfix_server, name, stream=False)
        want = expected_ids(scenario)
        assert patched.ids == [w or got for w, got in zip(want, whole.ids, strict=True)]
        assert all(patched.ids) and len(set(patched.ids)) == len(patched.ids)
    if name in PASSED_THROUGH:
        assert patched_events == stock_events


# -- crewai's own behaviours, as its tests pin them ------------------------------------


def test_tool_call_deltas_emitted_and_no_completed_event(
    streamfix_server: ReplayServer, events: list[Any]
) -> None:
    """Upstream's ``test_handle_streaming_tool_calls_no_available_functions``: the calls
    returned as a list, a ``LLMStreamChunkEvent`` per tool-call delta (its arguments the
    chunk), no ``LLMCallCompletedEvent``; stock and patched alike."""
    stock = _call(streamfix_server, "b1-interleaved")
    stock_events = _stream_events(events)
    events.clear()
    streamfix.install("litellm", "crewai")
    patched = _call(streamfix_server, "b1-interleaved")
    assert patched.named == stock.named
    assert _stream_events(events) == stock_events
    assert all(kind == "LLMStreamChunkEvent" for kind, _, _ in stock_events)
    deltas = [(call.index, chunk) for _, chunk, call in stock_events if call is not None]
    sent = [
        entry
        for chunk in OPENAI["b1-interleaved"].chunks
        for entry in chunk["choices"][0]["delta"].get("tool_calls") or ()
    ]
    assert len(deltas) == len(sent)
    joined = ["".join(piece for index, piece in deltas if index == i) for i in (0, 1)]
    assert [json.loads(text) for text in joined] == [arguments for _, arguments in stock.named]


def test_available_functions_run_the_first_call_stock_and_patched(
    streamfix_server: ReplayServer,
) -> None:
    """Upstream's ``test_handle_streaming_tool_calls``: given ``available_functions``, the
    streamed path runs the first call whose arguments parse and returns its result."""
    scenario = OPENAI["e1-stop"]

    def run() -> Any:
        llm = driver.llm(scenario, api_base=streamfix_server.openai_base_url)
        functions = {"get_weather": lambda city: f"sunny in {city}"}
        return driver.call(llm, scenario, available_functions=functions)

    stock = run()
    streamfix.install("litellm", "crewai")
    assert run() == stock == "sunny in Paris"


_TEXT_AND_CALLS = testing.Scenario(
    "a2-text-beside-calls",
    "A2",
    "text, then a call (OpenAI's own form)",
    "openai",
    (
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "content": "Let me check."},
                    "finish_reason": None,
                }
            ],
        },
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_a",
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": '{"city": "Paris"}',
                                },
                            }
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        },
    ),
    calls=({"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},),
    text="Let me check.",
)


@pytest.fixture(scope="module")
def text_server() -> Iterator[ReplayServer]:
    with ReplayServer(scenarios={_TEXT_AND_CALLS.name: _TEXT_AND_CALLS}) as server:
        yield server


def test_text_beside_calls_returned_by_neither_path(
    text_server: ReplayServer, events: list[Any]
) -> None:
    """crewai's ``call`` returns the calls alone when text comes beside them, streamed or
    not (upstream: ``test_non_streaming_returns_tool_calls_when_text_also_present``); the
    streamed path emits the text as a ``LLMStreamChunkEvent``. Not a streaming loss: the
    shim leaves it, stock and patched give the same."""
    scenario = _TEXT_AND_CALLS

    def call(stream: bool) -> Any:
        llm = driver.llm(scenario, stream=stream, api_base=text_server.openai_base_url)
        return driver.call(llm, scenario)

    whole, stock = call(False), call(True)
    assert [c.id for c in whole] == ["call_a"] and [c.id for c in stock] == [None]
    assert "Let me check." in [e.chunk for e in events if type(e).__name__ == "LLMStreamChunkEvent"]
    streamfix.install("litellm", "crewai")
    patched = call(True)
    assert [(c.function.name, c.function.arguments, c.id) for c in patched] == [
        (c.function.name, c.function.arguments, c.id) for c in whole
    ]


class _Tool:
    """A crewai tool of a given name taking any object (built when crewai is there)."""

    @staticmethod
    def make(name: str) -> Any:
        from crewai.tools import BaseTool
        from pydantic import BaseModel, ConfigDict

        class Anything(BaseModel):
            model_config = ConfigDict(extra="allow")

        class Answer(BaseTool):
            args_schema: type[BaseModel] = Anything

            def _run(self, **_: Any) -> str:
                return "ok"

        return Answer(name=name, description=name)


@pytest.fixture(scope="module")
def crew_server() -> Iterator[ReplayServer]:
    """A1 answered under a model litellm knows to call functions (``gpt-4o``), so that a
    crew's agent calls its tools natively."""
    with ReplayServer(scenarios={"gpt-4o": OPENAI["a1-one-chunk"]}) as server:
        yield server


@pytest.mark.stock_failure
def test_a_crew_answers_its_calls_by_id_only_patched(crew_server: ReplayServer) -> None:
    """A ``Crew`` with one agent on ``LLM(stream=True)``: stock sends the next request an
    assistant message whose ``tool_calls`` have ``id: null`` and tool messages whose
    ``tool_call_id`` is ``null`` (a provider rejects them); patched, the provider's ids."""
    from crewai import Agent, Crew, Task

    def kickoff() -> list[Any]:
        crew_server.requests.clear()
        llm = crewai_llm.LLM(
            model="openai/gpt-4o",
            is_litellm=True,
            stream=True,
            api_base=crew_server.openai_base_url,
            api_key="sk-streamfix-test",
        )
        tools = [_Tool.make("get_weather"), _Tool.make("get_time")]
        agent = Agent(role="r", goal="g", backstory="b", llm=llm, tools=tools, verbose=False)
        task = Task(description=driver.PROMPT, expected_output="the answer", agent=agent)
        assert Crew(agents=[agent], tasks=[task]).kickoff().raw == "done"
        messages = crew_server.requests[-1]["messages"]
        sent = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
        answered = [m.get("tool_call_id") for m in messages if m["role"] == "tool"]
        return [sent, answered]

    assert kickoff() == [[None, None], [None, None]]
    streamfix.install("litellm", "crewai")
    assert kickoff() == [["call_a", "call_b"], ["call_a", "call_b"]]


def test_install_replaces_the_methods_and_uninstall_restores_them() -> None:
    llm_class = crewai_llm.LLM
    names = [
        "_handle_streaming_response",
        "_ahandle_streaming_response",
        "_extract_finish_reason_and_response_id",
        "_handle_emit_call_events",
    ]
    originals = [llm_class.__dict__[name] for name in names]
    streamfix_crewai.install()
    assert [llm_class.__dict__[name] for name in names] == [
        streamfix_crewai.handle_streaming_response,
        streamfix_crewai.ahandle_streaming_response,
        streamfix_crewai.extract_finish_reason_and_response_id,
        streamfix_crewai.handle_emit_call_events,
    ]
    assert isinstance(llm_class.__dict__[names[2]], staticmethod)
    streamfix_crewai.uninstall()
    assert [llm_class.__dict__[name] for name in names] == originals


# -- acall: the async streamed path (``_ahandle_streaming_response``) -------------------


def _acall(server: ReplayServer, name: str) -> Got:
    scenario = OPENAI[name]
    llm = driver.llm(scenario, api_base=server.openai_base_url)

    def run() -> Any:
        coroutine = llm.acall(driver.PROMPT, tools=driver.declared_tools(scenario))
        return contextvars.Context().run(asyncio.run, coroutine)

    return capture(scenario, run, _got, driver.read)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", ["a1-one-chunk", "b1-interleaved", "g3-shared-id", "e5-error"])
def test_acall_stock_loses_what_patched_keeps(streamfix_server: ReplayServer, name: str) -> None:
    """``acall`` streams through ``_ahandle_streaming_response``, which drops the ids and
    returns the text streamed before an error as the sync path does; patched, as
    :func:`test_patched_right` (the wire's ids; E5 the provider's error)."""
    scenario = OPENAI[name]
    stock = _acall(streamfix_server, name)
    if scenario.calls:
        assert stock.named == [(c["name"], c["arguments"]) for c in scenario.calls]
        assert stock.ids == [None] * len(scenario.calls)
    else:
        assert_lost(scenario, stock)
        assert stock.text == "Let me check"
    streamfix.install("litellm", "crewai")
    assert_right(scenario, _acall(streamfix_server, name))


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``crewai`` column: 0 failing patched cells (the wire and the
    shim), stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("crewai", "crewai", STOCK_LOSSES)
