"""agno's ``Agent(..., stream=True)`` over real HTTP (the replay server), on both of its
paths: ``OpenAIChat`` (the openai SDK's stream: the openai wire and the ``agno`` shim)
and ``LiteLLM`` (``openai/<scenario>`` through litellm's ``CustomStreamWrapper``: the
litellm wire).
``Agent.run(stream=True, stream_events=True)`` read to its end: the first assistant
message's calls (name, arguments, id) and text, the run's events (``RunContent`` text
deltas, ``ToolCallStarted`` / ``ToolCallCompleted`` with the tool's name, arguments, id
and result), the tools run and the follow-up text as the run's content; stock and on the
repaired wire.

agno gathers every tool-call entry of the stream and builds the calls at its end, one
per ``index``: a later ``name`` replaces the earlier one (so two calls at one index
become the last one's name with both arguments glued: "the last name wins"), the
arguments are appended. ``OpenAIChat`` hands the glued text on (agno's tool runner then
reports invalid arguments); ``LiteLLM`` wraps arguments that are not one JSON object as
``{"text": ...}`` (``{"value": ...}`` for another JSON value) and runs the tool with
that. agno never raises from a run: a failure is a ``RunErrorEvent`` (its text, its
type), the wire's error text in it once patched.

``OpenAIChat``'s streamed calls keep only id, type, name and arguments, while its
non-streamed path keeps the SDK's whole call: a Gemini thought signature
(``extra_content``) survives the one and is dropped by the other, on the repaired wire
too (which carries it, R7): the ``agno`` shim keeps it (:data:`WIRE_ALONE_LOSSES`).
agno's ``LiteLLM`` drops it streamed and non-streamed alike: not judged there.

agno's own tests (its sdist ships none; upstream ``libs/agno/tests/unit/models/
openai/test_parse_tool_calls.py`` and ``test_parse_tool_calls_name.py``) pin: a name
sent once, or re-sent on every fragment, is the name once; arguments streamed in pieces
are appended; calls at different indices stay apart; an empty-string name never
overwrites a name; a first index above 0 leaves an empty entry before the call
(:data:`UPSTREAM_PINNED`, :func:`test_indices_above_zero`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
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

import streamfix
import streamfix_agno
import streamfix_litellm
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_agno import _doctor as driver
from streamfix_litellm import _doctor_agno as litellm_driver

agno = pytest.importorskip("agno")
pytest.importorskip("agno.models.litellm")

_stock_others = shim_fixture("agno", "litellm", autouse=True, name="_stock_others")

#: What stock agno loses on the corpus, by path (the doctor's ``agno`` and
#: ``agno-litellm`` columns).
STOCK_LOSSES = {
    "openai": {
        "b2-same-index": "two calls at one index: the last name wins, arguments glued",
        "b3-same-index": "two calls at one index, no ids: the last name wins, glued",
        "b6-no-index": "calls without an index: all at index 0, the last name wins",
        "h1-legacy-function-call": "a legacy function_call: no tool call",
        "i1-double-encoded": "arguments a JSON string, not the object",
        "i3-restarted": "restarted arguments glued: invalid JSON handed on",
        "e4-truncated": "the cut arguments handed on as a call",
        "a1-signature": "the thought signatures dropped (kept non-streamed)",
        "f1-signature": "the thought signatures dropped (kept non-streamed)",
        "f2-late-signature": "the thought signatures dropped (kept non-streamed)",
    },
    "litellm": {
        "b2-same-index": "the last name wins, the glued arguments run as {'text': ...}",
        "b3-same-index": "the last name wins, the glued arguments run as {'text': ...}",
        "b6-no-index": "the last name wins, the glued arguments run as {'text': ...}",
        "h1-legacy-function-call": "a legacy function_call: no tool call",
        "i1-double-encoded": "arguments a JSON string: run as {'value': ...}",
        "i3-restarted": "restarted arguments glued: run as {'text': ...}",
        "e4-truncated": "the cut arguments run as {'text': ...}, no error",
    },
}
#: Where stock gets the calls right but not their ids (the doctor does not judge ids).
STOCK_ID_LOSSES = {
    "openai": {},
    "litellm": {
        "g1-placeholders": "an empty id on a continuation fragment replaces the call's id:"
        " agno makes one up, the provider's id is lost",
    },
}
#: What ``OpenAIChat`` still loses on the repaired wire alone (OpenAI's own form).
WIRE_ALONE_LOSSES = {
    "a1-signature": "the thought signatures dropped",
    "f1-signature": "the thought signatures dropped",
    "f2-late-signature": "the thought signature dropped",
}
PATHS = sorted(STOCK_LOSSES)
COLUMNS = {"openai": "agno", "litellm": "agno-litellm"}
PATCHES = {"openai": "agno", "litellm": "litellm"}

#: Upstream agno's unit tests of ``parse_tool_calls`` and the corpus scenario that pins
#: the same behaviour here through the real stream: stock gets each right, patched the
#: same.
UPSTREAM_PINNED = {
    "text": "no call: the text alone",
    "c1-repeated-names": "test_parse_tool_calls_name: a name re-sent is the name once",
    "d3-escapes-split": "arguments streamed in pieces appended",
    "b1-interleaved": "test_parse_tool_calls_multiple_tools_independent",
    "a1-one-chunk": "two calls in one chunk, independent",
    "g1-placeholders": "test_parse_tool_calls_name: an empty name never overwrites",
}


class AgnoRunError(Exception):
    """What an agno run reported in its ``RunErrorEvent``: the error's type and text."""

    def __init__(self, error_type: str | None, content: str | None) -> None:
        super().__init__(f"{error_type}: {content}")
        self.error_type, self.content = error_type, content or ""


@dataclass
class Ran:
    run: Any
    events: list[Any]


def _got(ran: Ran) -> Got:
    error = driver.error_event(ran.events)
    if error is not None:
        return Got(error=AgnoRunError(error.error_type, error.content))
    message = driver.first_message(ran.run)
    if message is None:
        return Got(error=AgnoRunError(None, "no model response"))
    return Got(driver.message_calls(message), message.content or "")


def _agent(server: ReplayServer, path: str, scenario: testing.Scenario) -> Any:
    if path == "openai":
        return driver.agent(scenario, server.openai_base_url)
    return litellm_driver.agent(scenario, api_base=server.openai_base_url)


def _run(server: ReplayServer, path: str, name: str) -> tuple[Got, Ran | None]:
    scenario = OPENAI[name]
    ran: list[Ran] = []

    def go() -> Ran:
        ran.append(Ran(*driver.run_agent(_agent(server, path, scenario))))
        return ran[-1]

    def read(result: Ran) -> testing.Outcome:
        return driver.read(scenario, (result.run, result.events))

    return capture(scenario, go, _got, read), (ran[0] if ran else None)


def _install(path: str) -> None:
    """What a user installs for the path: the openai wire and the agno shim, or the
    litellm wire."""
    if path == "openai":
        streamfix_openai.install()
        streamfix_agno.install()
    else:
        streamfix_litellm.install()


def _wire_error_text(scenario: testing.Scenario) -> str:
    try:
        for _ in streamfix.repair(testing.fresh_chunks(scenario)):
            pass
    except streamfix.StreamFixError as error:
        return str(error)
    raise AssertionError(f"the wire ends {scenario.name} well")  # pragma: no cover


def _tools_ran(ran: Ran) -> list[tuple[str, Any, Any]]:
    return [
        (e.tool.tool_name, e.tool.tool_args, e.tool.tool_call_id)
        for e in ran.events
        if type(e).__name__ == "ToolCallCompletedEvent"
    ]


def _assert_right(scenario: testing.Scenario, got: Got, ran: Ran | None) -> None:
    """:func:`assert_right`, where agno reports the wire's ending errors as a
    ``RunErrorEvent``: the provider's text (E5), the wire's truncation (E4) or its
    malformed-call error (I3, the doctor counting its right assembly), no tool run."""
    ends_in_error = scenario.error is not None or scenario.truncated
    if not ends_in_error and scenario.shape not in testing.UNREPAIRABLE:
        assert_right(scenario, got)
        assert ran is not None
        assert _tools_ran(ran) == got.calls  # each call ran once, its arguments, its id
        if scenario.calls:  # the follow-up answer is the run's content
            assert ran.run.content == scenario.follow_up
        return
    assert isinstance(got.error, AgnoRunError), got
    want = scenario.error if scenario.error is not None else _wire_error_text(scenario)
    assert want in got.error.content
    assert ran is not None and not _tools_ran(ran)
    assert got.outcome is not None and testing.judge(scenario, got.outcome)[0]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, path: str, name: str) -> None:
    _install(path)
    got, ran = _run(streamfix_server, path, name)
    _assert_right(OPENAI[name], got, ran)


@pytest.mark.stock_failure
@pytest.mark.parametrize(
    ("path", "name"), [(path, name) for path in PATHS for name in sorted(STOCK_LOSSES[path])]
)
def test_stock_loses(streamfix_server: ReplayServer, path: str, name: str) -> None:
    got, _ = _run(streamfix_server, path, name)
    assert_lost(OPENAI[name], got)


def _events(ran: Ran | None) -> list[tuple[Any, ...]]:
    """The run's events as what a consumer reads of them: kind, text, tool (a tool
    event's text is its timing: left out)."""
    out: list[tuple[Any, ...]] = []
    for event in ran.events if ran is not None else ():
        content = getattr(event, "content", None)
        tool = getattr(event, "tool", None)
        if tool is not None:
            seen: tuple[Any, ...] = (tool.tool_name, tool.tool_args, tool.tool_call_id, tool.result)
            content = None
        else:
            seen = ()
        out.append((type(event).__name__, content if isinstance(content, str) else None, seen))
    return out


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (path, name)
        for path in PATHS
        for name in NAMES
        if name not in STOCK_LOSSES[path] and name not in STOCK_ID_LOSSES[path]
    ],
)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, path: str, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same run events in the same order (text deltas, tool calls, results)."""
    stock, stock_ran = _run(streamfix_server, path, name)
    _install(path)
    patched, patched_ran = _run(streamfix_server, path, name)
    scenario = OPENAI[name]
    if scenario.error is not None:  # E5: the same error event, the provider's text in it
        assert isinstance(stock.error, AgnoRunError) and isinstance(patched.error, AgnoRunError)
        assert scenario.error in stock.error.content and scenario.error in patched.error.content
    else:
        assert_same(scenario, stock, patched)
    if name in PASSED_THROUGH:
        assert _events(patched_ran) == _events(stock_ran)


@pytest.mark.stock_failure
@pytest.mark.parametrize(
    ("path", "name"), [(path, name) for path in PATHS for name in sorted(STOCK_ID_LOSSES[path])]
)
def test_stock_loses_ids(streamfix_server: ReplayServer, path: str, name: str) -> None:
    """The calls right, their ids not the provider's (agno's own uuid4 in their place:
    the next turn's tool results answer ids the provider never sent); patched, the
    provider's ids (:func:`test_patched_right`)."""
    scenario = OPENAI[name]
    got, _ = _run(streamfix_server, path, name)
    assert got.outcome is not None and testing.judge(scenario, got.outcome)[0]
    sent = [call["id"] for call in scenario.calls]
    assert all(sent) and got.ids != sent
    assert not set(got.ids) & set(sent)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", sorted(UPSTREAM_PINNED))
def test_upstream_pinned_behaviours(path: str, name: str) -> None:
    """What agno's own ``parse_tool_calls`` tests pin (names and arguments) holds stock
    on the real stream: each is judged right by the doctor, and patched gives the same
    (:func:`test_where_stock_is_right_patched_is_the_same`), or, where stock loses the
    ids only, the provider's ids (:func:`test_stock_loses_ids`)."""
    assert name not in STOCK_LOSSES[path]


@pytest.mark.stock_failure
@pytest.mark.parametrize("path", PATHS)
def test_stock_last_name_wins(streamfix_server: ReplayServer, path: str) -> None:
    """B2 stock: two calls at index 0 become one, named as the second, with both
    arguments glued (``OpenAIChat``: as text; ``LiteLLM``: wrapped as ``{"text": ...}``,
    and the tool runs with it)."""
    got, ran = _run(streamfix_server, path, "b2-same-index")
    glued = '{"city": "Paris"}{"zone": "Europe/Paris"}'
    want = glued if path == "openai" else {"text": glued}
    assert got.named == [("get_time", want)]
    assert ran is not None
    assert [(n, a) for n, a, _ in _tools_ran(ran)] == (
        [] if path == "openai" else [("get_time", want)]
    )


@pytest.mark.stock_failure
def test_stock_litellm_runs_a_cut_call(streamfix_server: ReplayServer) -> None:
    """E4 stock on ``LiteLLM``: the cut arguments, wrapped as ``{"text": ...}``, run as
    a call and the run ends well (silent corruption)."""
    got, ran = _run(streamfix_server, "litellm", "e4-truncated")
    assert got.error is None and ran is not None
    cut = OPENAI["e4-truncated"].partial_calls[0]
    assert ("get_time", {"text": cut["arguments"]}) in [(n, a) for n, a, _ in _tools_ran(ran)]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-b7",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "b7-index-above-zero",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


#: B7 (outside the corpus): a call whose index starts above 0, as upstream's
#: ``test_parse_tool_calls_non_zero_index_creates_independent_dicts`` feeds it.
B7 = testing.Scenario(
    "b7-index-above-zero",
    "B7",
    "one call at index 1",
    "openai",
    (
        _chunk({"role": "assistant", "content": None}),
        _chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"city": "Paris"}'}}]}),
        _chunk({}, "tool_calls"),
    ),
    calls=({"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},),
)


@pytest.fixture(scope="module")
def b7_server() -> Iterator[ReplayServer]:
    with ReplayServer(scenarios={B7.name: B7}) as server:
        yield server


@pytest.mark.parametrize("path", PATHS)
def test_indices_above_zero(b7_server: ReplayServer, path: str) -> None:
    """B7: ``OpenAIChat`` stock keeps an empty entry before the call (upstream pins that
    entry in ``parse_tool_calls``; the run then fails on it), ``LiteLLM`` keys by index
    and is right; patched, the wire numbers the call 0 and both are right."""
    scenario = B7

    def run() -> Got:
        ran = Ran(*driver.run_agent(_agent(b7_server, path, scenario)))
        got = _got(ran)
        got.outcome = driver.read(scenario, (ran.run, ran.events))
        return got

    stock = run()
    ok, _ = testing.judge(scenario, stock.outcome or testing.Outcome())
    assert ok == (path == "litellm"), stock
    _install(path)
    patched = run()
    assert patched.named == [("get_weather", {"city": "Paris"})]
    assert patched.ids == ["call_a"]


@pytest.mark.parametrize("path", PATHS)
def test_patched_arun(streamfix_server: ReplayServer, path: str) -> None:
    """``Agent.arun(stream=True)`` (the async stream: ``AsyncStream`` / litellm's
    ``__anext__``) on B2, patched: both calls, each run once."""
    _install(path)
    scenario = OPENAI["b2-same-index"]
    agent = _agent(streamfix_server, path, scenario)

    async def go() -> list[Any]:
        stream = agent.arun(driver.PROMPT, stream=True, stream_events=True)
        return [event async for event in stream]

    events = asyncio.run(go())
    started = [e.tool for e in events if type(e).__name__ == "ToolCallStartedEvent"]
    assert [(t.tool_name, t.tool_args) for t in started] == [
        (c["name"], c["arguments"]) for c in scenario.calls
    ]


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(WIRE_ALONE_LOSSES))
def test_the_wire_alone_is_not_enough(streamfix_server: ReplayServer, name: str) -> None:
    """On the repaired wire without the shim, ``OpenAIChat``'s calls are right but lose
    their thought signatures; with the shim (:func:`test_patched_right`) they keep them."""
    streamfix_openai.install()
    got, _ = _run(streamfix_server, "openai", name)
    assert got.named == [(c["name"], c["arguments"]) for c in OPENAI[name].calls]
    assert got.outcome is not None and not any(got.outcome.signatures or ())
    assert_lost(OPENAI[name], got)


def _sent_back(server: ReplayServer, scenario: testing.Scenario) -> list[Any]:
    """The assistant calls the follow-up request sent back for the scenario."""
    requests = [r for r in server.requests if r.get("model") == scenario.name]
    for message in requests[-1].get("messages") or []:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            return list(message["tool_calls"])
    return []


@pytest.mark.parametrize("name", ["a1-signature", "f1-signature", "f2-late-signature"])
def test_signatures_kept_and_sent_back(streamfix_server: ReplayServer, name: str) -> None:
    """Patched, each call's thought signature in its ``extra_content`` (where agno's
    non-streamed path keeps it), and sent back on the next request, as non-streamed."""
    scenario = OPENAI[name]
    _install("openai")
    _, ran = _run(streamfix_server, "openai", name)
    assert ran is not None
    message = driver.first_message(ran.run)
    assert tuple(driver.signature(call) for call in message.tool_calls) == scenario.signatures
    streamed_back = _sent_back(streamfix_server, scenario)
    assert [driver.signature(call) for call in streamed_back] == list(scenario.signatures)
    plain = driver.agent(scenario, streamfix_server.openai_base_url)
    plain.run(driver.PROMPT, stream=False)
    assert streamed_back == _sent_back(streamfix_server, scenario)  # the non-streamed one


def _sdk_entries(name: str) -> list[Any]:
    """The scenario's repaired stream's tool-call entries as the SDK's objects, in
    order (what agno gathers)."""
    from openai.types.chat import ChatCompletionChunk

    bodies = [ChatCompletionChunk.construct(**c) for c in testing.fresh_chunks(OPENAI[name])]
    try:
        repaired = list(streamfix.repair(bodies))
    except streamfix.StreamFixError:
        return []
    chunks = [ChatCompletionChunk.model_validate(c.model_dump()) for c in repaired]
    return [e for c in chunks if c.choices for e in c.choices[0].delta.tool_calls or ()]


@pytest.mark.parametrize(
    "name",
    [n for n in NAMES if not OPENAI[n].signatures or not any(OPENAI[n].signatures)],
)
def test_fixed_parse_tool_calls_is_agnos_without_signatures(name: str) -> None:
    """Where no entry carries ``extra_content``: agno's own calls, key for key."""
    from agno.models.openai.chat import OpenAIChat

    entries = _sdk_entries(name)
    assert streamfix_agno.parse_tool_calls(entries) == OpenAIChat.parse_tool_calls(entries)


def test_install_replaces_parse_tool_calls_and_uninstall_restores_it() -> None:
    from agno.models.openai import OpenAILike
    from agno.models.openai.chat import OpenAIChat

    original = OpenAIChat.__dict__["parse_tool_calls"]
    streamfix_agno.install()
    assert OpenAIChat.parse_tool_calls is streamfix_agno.parse_tool_calls
    assert OpenAILike.parse_tool_calls is streamfix_agno.parse_tool_calls
    streamfix_agno.uninstall()
    assert OpenAIChat.__dict__["parse_tool_calls"] is original


@pytest.mark.parametrize("path", PATHS)
def test_doctor_column(path: str) -> None:
    """``streamfix doctor``'s ``agno`` (the openai wire and the agno shim) and
    ``agno-litellm`` (the litellm wire) columns: 0 failing patched cells, stock losing
    exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column(COLUMNS[path], PATCHES[path], STOCK_LOSSES[path])


@pytest.mark.parametrize("column", sorted(COLUMNS.values()))
def test_replay_cli(column: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``streamfix replay FILE --framework agno`` (and ``agno-litellm``) on a capture of
    B2: stock the last name wins, patched both calls."""
    import json

    from support.cli import cli

    scenario = OPENAI["b2-same-index"]
    path = tmp_path / "b2.jsonl"
    path.write_text("".join(json.dumps(chunk) + "\n" for chunk in scenario.chunks))
    code, out, _ = cli(capsys, "replay", str(path), "--json", "--framework", column)
    info = json.loads(out)["frameworks"][column]
    assert code == 0
    patched = [(c["name"], c["arguments"]) for c in info["patched"]["calls"]]
    assert patched == [(c["name"], c["arguments"]) for c in scenario.calls]
    assert [c["name"] for c in info["stock"]["calls"]] == ["get_time"]
    assert "openai" not in streamfix.installed() and "litellm" not in streamfix.installed()
