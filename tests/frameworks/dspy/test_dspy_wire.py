"""DSPy's streaming path over real HTTP (the replay server), stock, on the repaired
litellm wire alone (``streamfix.install("litellm")``), and with the wire and the ``dspy``
shim (``streamfix.install("litellm", "dspy")``).

A dspy program streamed with ``dspy.streamify``: its LM, ``dspy.LM("openai/<model>",
engine="litellm")``, called with tools (native function calling), streams
``litellm.acompletion(stream=True)``: each ``ModelResponseStream`` chunk goes to the
program's stream (what ``streamify`` yields), then ``litellm.stream_chunk_builder(chunks)``
builds the response (``dspy.clients.lm._get_stream_completion_fn``): checked here, it is
the builder that assembles the calls. The calls are read as DSPy's adapter hands them to
a ``dspy.ToolCalls`` output field (arguments parsed leniently with ``json_repair``); and
through ``dspy.Predict`` with ``ChatAdapter(use_native_function_calling=True)`` and a
``dspy.ToolCalls`` output, the ``Prediction``'s calls.

The litellm patch repairs both what ``streamify`` yields (the wire: ``CustomStreamWrapper``)
and the builder. Where the wire ends a stream in its typed error (a cut-off call, E4;
restarted arguments, I3), ``streamify`` raises DSPy's error ``from None``, erasing its
cause: the wire alone is not enough there, the shim keeps the cause. DSPy 3.4's default
engine (``"auto"``) does not use litellm for an ``openai/`` model with only
``api_key``/``api_base``: it streams through its own bundled client (lm15), which no
litellm patch reaches (pinned below).

The sdist (dspy-3.4.1) ships two tests only (``tests/test_lm15_subtree_updater.py``,
``tests/test_vendored_lm15.py``), none of streaming. Upstream's (github stanfordnlp/dspy)
pin: ``streamify`` yields chunks and ends with the ``Prediction``
(``tests/streaming/test_streaming.py::test_streamify_yields_expected_response_chunks``);
the streamed completion is ``litellm.acompletion(stream=True)`` then
``litellm.stream_chunk_builder`` (``tests/clients/test_lm.py::
test_streaming_passes_headers_correctly``); ``ReActV2`` streamed with native tool calls
finishes like the plain run (``tests/streaming/test_react_v2_native_tool_stream.py``, on a
scripted engine). None streams tool-call fragments; the same behaviours are pinned here
over real HTTP, on the corpus.
"""

from __future__ import annotations

import asyncio
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
    expected_ids,
    wire_error,
)
from support import assert_doctor_column, shim_fixture

import streamfix
import streamfix_dspy
import streamfix_litellm
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_dspy import _doctor as driver

dspy = pytest.importorskip("dspy")
litellm = pytest.importorskip("litellm")

_stock_both = shim_fixture("litellm", "dspy", autouse=True, name="_stock_both")
both = shim_fixture("litellm", "dspy", install=True, name="both")
wire = shim_fixture("litellm", install=True, name="wire")
shim_alone = shim_fixture("dspy", install=True, name="shim_alone")

#: What stock DSPy loses on the corpus (the doctor's ``dspy`` column): litellm's
#: ``stream_chunk_builder`` joins calls by index.
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index: one call (the last id), its arguments a list",
    "b3-same-index": "two calls at one index, no ids: no call at all",
    "b6-no-index": "calls without an index: one call, its arguments a list",
    "h1-legacy-function-call": "a legacy function_call: no call",
    "i3-restarted": "restarted arguments repaired by json_repair into a wrong call",
    "e4-truncated": "cut arguments repaired by json_repair into a call: {'zone': 'Eur'}",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]
#: What DSPy's default engine (lm15, no litellm) loses on the same streams, patched or
#: not: the litellm wire does not reach it.
NATIVE_LOSSES = {
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "h1-legacy-function-call",
    "i1-double-encoded",
    "i3-restarted",
    "e4-truncated",
}


def _got(items: list[Any]) -> Got:
    output = items[-1].outputs[0]
    output = output if isinstance(output, dict) else {"text": output}
    adapters = pytest.importorskip("dspy.adapters.base")
    entries = output.get("tool_calls") or []
    dicts = [adapters._provider_tool_call_to_tool_call_dict(entry) for entry in entries]
    calls = dspy.ToolCalls.from_dict_list(dicts).tool_calls if dicts else []
    return Got([(c.name, c.args, c.id) for c in calls], output.get("text") or "")


def _run(server: ReplayServer, name: str, **options: Any) -> tuple[Got, list[Any]]:
    """One streamified run of the scenario: what its user got, and every item yielded."""
    scenario = OPENAI[name]
    items: list[Any] = []

    async def go() -> list[Any]:
        lm = driver.language_model(scenario, api_base=server.openai_base_url, **options)
        items.extend(await driver.streamed(lm, driver.tools(scenario)))
        return items

    return capture(scenario, go, _got, driver.read), items


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    assert_right(OPENAI[name], _run(streamfix_server, name)[0])


#: Where the wire alone is not enough: its typed error reaches the user as DSPy's error
#: with no cause (``streamify``'s ``raise ... from None``).
WIRE_ALONE_LOSSES = {
    "e4-truncated": "the wire's TruncatedToolCallError erased: no complete call, no partial",
    "i3-restarted": "the wire's MalformedToolCallError erased: the assembled message lost",
}


@pytest.mark.parametrize("name", [n for n in NAMES if n not in WIRE_ALONE_LOSSES])
def test_the_wire_alone_is_right(streamfix_server: ReplayServer, wire: None, name: str) -> None:
    assert_right(OPENAI[name], _run(streamfix_server, name)[0])


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(WIRE_ALONE_LOSSES))
def test_the_wire_alone_loses_its_error_to_streamify(
    streamfix_server: ReplayServer, wire: None, name: str
) -> None:
    """DSPy's ``LMServerError`` carries the wire's text, not the wire's error: its cause
    is gone."""
    got, _ = _run(streamfix_server, name)
    assert isinstance(got.error, dspy.LMError)
    assert got.error.__cause__ is None and wire_error(got.error) is None
    if name == "i3-restarted":
        assert got.outcome is not None and not testing.judge(OPENAI[name], got.outcome)[0]


@pytest.mark.stock_failure
def test_stock_streamify_erases_every_cause(streamfix_server: ReplayServer) -> None:
    """Stock, a provider's error inside the stream (E5): DSPy's error has no cause (the
    provider's litellm exception is gone)."""
    got, _ = _run(streamfix_server, "e5-error")
    assert isinstance(got.error, dspy.LMError) and got.error.__cause__ is None


def _causes(error: BaseException | None) -> list[BaseException]:
    chain = []
    while error is not None and len(chain) < 8:
        chain.append(error)
        error = error.__cause__
    return chain


def test_the_shim_keeps_the_cause(streamfix_server: ReplayServer, shim_alone: None) -> None:
    """The shim alone (no wire): the same DSPy error, litellm's exception among its
    causes."""
    got, _ = _run(streamfix_server, "e5-error")
    assert isinstance(got.error, dspy.LMServerError)
    assert "upstream overloaded" in str(got.error)
    assert any(type(e).__module__.startswith("litellm.") for e in _causes(got.error)[1:])


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    assert_lost(OPENAI[name], _run(streamfix_server, name)[0])


def _chunks(items: list[Any]) -> list[Any]:
    """The litellm chunks ``streamify`` yielded, as data (what a listener reads)."""
    return [
        [choice.model_dump() for choice in item.choices]
        for item in items
        if isinstance(item, litellm.ModelResponseStream)
    ]


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same chunks in the same order."""
    stock, stock_items = _run(streamfix_server, name)
    streamfix_litellm.install()
    streamfix_dspy.install()
    patched, patched_items = _run(streamfix_server, name)
    assert_same(OPENAI[name], stock, patched)
    if name in PASSED_THROUGH:
        assert _chunks(patched_items) == _chunks(stock_items)


@pytest.mark.parametrize("name", ["b1-interleaved", "text"])
def test_streamify_yields_the_chunks_then_the_prediction(
    streamfix_server: ReplayServer, both: None, name: str
) -> None:
    """Upstream's contract: every item before the last is a litellm chunk, the last the
    ``Prediction``; the chunks are the repaired stream (one entry per chunk, R5)."""
    _, items = _run(streamfix_server, name)
    *chunks, prediction = items
    assert chunks and all(isinstance(c, litellm.ModelResponseStream) for c in chunks)
    assert isinstance(prediction, dspy.Prediction)
    assert all(len(c.choices[0].delta.tool_calls or []) <= 1 for c in chunks)


def test_the_calls_come_from_stream_chunk_builder(
    streamfix_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked: DSPy builds the streamed response with ``litellm.stream_chunk_builder``
    (looked up on ``litellm`` at call time), on the chunks it streamed."""
    built: list[Any] = []
    builder = litellm.stream_chunk_builder

    def spy(chunks: Any, *args: Any, **kwargs: Any) -> Any:
        built.append(list(chunks))
        return builder(chunks, *args, **kwargs)

    monkeypatch.setattr(litellm, "stream_chunk_builder", spy)
    got, items = _run(streamfix_server, "b1-interleaved")
    assert got.named == [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"})]
    streamed = [i for i in items if isinstance(i, litellm.ModelResponseStream)]
    assert any(chunks == streamed for chunks in built)


@pytest.mark.stock_failure
def test_stock_cut_arguments_become_a_call(streamfix_server: ReplayServer) -> None:
    """E4 stock: the builder hands on the cut text, DSPy's ``json_repair`` closes it."""
    got, _ = _run(streamfix_server, "e4-truncated")
    assert got.error is None
    assert got.calls[1] == ("get_time", {"zone": "Eur"}, "call_b")


def test_patched_cut_call_raises_an_lm_error(streamfix_server: ReplayServer, both: None) -> None:
    """E4 patched: DSPy's own ``LMServerError`` (``except dspy.LMError`` catches it), the
    wire's ``litellm.APIError`` among its causes, the complete call on the core's error."""
    got, _ = _run(streamfix_server, "e4-truncated")
    assert isinstance(got.error, dspy.LMError)
    assert any(isinstance(e, litellm.exceptions.APIError) for e in _causes(got.error))
    error = wire_error(got.error)
    assert isinstance(error, streamfix.TruncatedToolCallError)
    assert [c.name for c in error.message.tool_calls] == ["get_weather"]


def test_patched_restarted_arguments_end_in_the_wire_error(
    streamfix_server: ReplayServer, both: None
) -> None:
    """I3 patched: the wire's documented end, its assembled message on the error."""
    got, _ = _run(streamfix_server, "i3-restarted")
    error = wire_error(got.error)
    assert isinstance(error, streamfix.MalformedToolCallError)
    assert error.message == streamfix.assemble(OPENAI["i3-restarted"].chunks)


# --- dspy.Predict with a ToolCalls output: the calls a program's user reads -----------------


def _predicted(server: ReplayServer, name: str) -> Got:
    scenario = OPENAI[name]

    class Ask(dspy.Signature):  # type: ignore[misc]
        """Answer with the tools."""

        question: str = dspy.InputField()
        tools: list[dspy.Tool] = dspy.InputField()
        calls: dspy.ToolCalls = dspy.OutputField()

    def tool(tool_name: str) -> Any:
        def call(**arguments: Any) -> str:
            return "ok"

        return dspy.Tool(call, name=tool_name, desc=tool_name, args={})

    names = [t["function"]["name"] for t in driver.tools(scenario)]
    lm = driver.language_model(scenario, api_base=server.openai_base_url)
    adapter = dspy.ChatAdapter(use_native_function_calling=True)

    async def go() -> Any:
        with dspy.context(lm=lm, adapter=adapter):
            run = dspy.streamify(dspy.Predict(Ask))
            return [item async for item in run(question="weather?", tools=[tool(n) for n in names])]

    def got(items: list[Any]) -> Got:
        calls = items[-1].calls.tool_calls if items[-1].calls else []
        return Got([(c.name, c.args, c.id) for c in calls])

    def read(items: list[Any]) -> testing.Outcome:
        return testing.Outcome(tuple((n, a) for n, a, _ in got(items).calls))

    return capture(scenario, go, got, read)


WITH_CALLS = [n for n in NAMES if OPENAI[n].calls and not OPENAI[n].truncated]


@pytest.mark.parametrize("name", [n for n in WITH_CALLS if n != "i3-restarted"])
def test_predict_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    """``Predict``'s ``ToolCalls``: every call with its id, as the driver reads them."""
    got = _predicted(streamfix_server, name)
    scenario = OPENAI[name]
    assert got.error is None, got.error
    assert got.named == [(c["name"], c["arguments"]) for c in scenario.calls]
    for mine, want in zip(got.ids, expected_ids(scenario), strict=True):
        assert isinstance(mine, str) and mine and (want is None or mine == want)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(set(STOCK_LOSSES) & set(WITH_CALLS)))
def test_predict_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    """Stock ``Predict``: the same losses (a response with no call is
    ``AdapterParseError``: no field to read)."""
    got = _predicted(streamfix_server, name)
    scenario = OPENAI[name]
    assert got.error is not None or got.named != [
        (c["name"], c["arguments"]) for c in scenario.calls
    ]


# --- dspy.ReActV2: the tools a streamed agent runs ----------------------------------------


def _react(server: ReplayServer, name: str) -> tuple[list[tuple[str, Any]], Got]:
    """``dspy.ReActV2`` (native tool calls) streamed with ``streamify(...,
    async_streaming=False)``, as upstream's ``test_react_v2_native_tool_stream`` streams
    it, one iteration: the tools it ran, and how the run ended (the replay server never
    calls ``submit``: after its iteration ReActV2 forces one and, getting none, raises
    ``ValueError``)."""
    scenario = OPENAI[name]
    ran: list[tuple[str, Any]] = []

    def get_weather(city: str = "") -> str:
        """The weather in a city."""
        ran.append(("get_weather", {"city": city}))
        return "sunny"

    def get_time(zone: str = "") -> str:
        """The time in a zone."""
        ran.append(("get_time", {"zone": zone}))
        return "noon"

    lm = driver.language_model(scenario, api_base=server.openai_base_url)
    agent = dspy.ReActV2("question -> answer", tools=[get_weather, get_time], max_iters=1)

    def go() -> list[Any]:
        with dspy.context(lm=lm):
            return list(dspy.streamify(agent, async_streaming=False)(question="weather?"))

    return ran, capture(scenario, go, lambda _: Got(), lambda _: testing.Outcome())


#: Scenarios whose calls name only ``get_weather`` and ``get_time``.
REACT = [
    "b1-interleaved",
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "h1-legacy-function-call",
]


@pytest.mark.parametrize("name", REACT)
def test_react_v2_runs_the_repaired_calls(
    streamfix_server: ReplayServer, both: None, name: str
) -> None:
    """Patched: each tool runs once with its own arguments (then ReActV2's ``ValueError``
    for want of a ``submit`` call)."""
    ran, got = _react(streamfix_server, name)
    assert ran == [(c["name"], c["arguments"]) for c in OPENAI[name].calls]
    assert isinstance(got.error, ValueError) and "submit" in str(got.error)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(set(REACT) & set(STOCK_LOSSES)))
def test_react_v2_stock_runs_wrong_calls(streamfix_server: ReplayServer, name: str) -> None:
    """Stock: the tools ReActV2 runs are not the calls the model made."""
    ran, _ = _react(streamfix_server, name)
    assert ran != [(c["name"], c["arguments"]) for c in OPENAI[name].calls]


def test_react_v2_runs_no_cut_call(streamfix_server: ReplayServer, both: None) -> None:
    """E4 patched: no tool runs; DSPy's ``LMError`` ends the run (stock runs
    ``get_time(zone='Eur')``)."""
    ran, got = _react(streamfix_server, "e4-truncated")
    assert ran == [] and isinstance(got.error, dspy.LMError)
    streamfix_litellm.uninstall()
    streamfix_dspy.uninstall()
    ran, _ = _react(streamfix_server, "e4-truncated")
    assert ("get_time", {"zone": "Eur"}) in ran


# --- DSPy's default engine: its own client, out of the litellm wire's reach -----------------


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(NATIVE_LOSSES))
def test_the_default_engine_is_out_of_the_wires_reach(
    streamfix_server: ReplayServer, both: None, name: str
) -> None:
    """``engine="auto"`` streams an ``openai/`` model through lm15 (``EngineChunk`` s, no
    litellm chunk): installed or not, the litellm patch changes nothing there, and lm15
    loses these (use ``engine="litellm"`` with the patch, or the streamfix proxy)."""
    got, items = _run(streamfix_server, name, engine="auto")
    assert not any(isinstance(item, litellm.ModelResponseStream) for item in items)
    assert_lost(OPENAI[name], got)


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``dspy`` column: its own patch (the litellm wire installed
    with it), 0 failing patched cells, and stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("dspy", "dspy", STOCK_LOSSES)


def test_the_doctor_serves_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's in-process answer restores ``litellm.aclient_session`` after a run."""
    sentinel = object()
    monkeypatch.setattr(litellm, "aclient_session", sentinel)
    outcome = driver.drive(OPENAI["b1-interleaved"])
    assert outcome.error is None and len(outcome.calls) == 2
    assert litellm.aclient_session is sentinel
    assert asyncio.iscoroutinefunction(driver.streamed)


def test_install_replaces_and_uninstall_restores() -> None:
    module = pytest.importorskip("dspy.streaming.streamify")
    before = module._single_failure
    streamfix_dspy.install()
    assert streamfix_dspy.installed() and module._single_failure is streamfix_dspy.single_failure
    streamfix_dspy.uninstall()
    assert module._single_failure is before
