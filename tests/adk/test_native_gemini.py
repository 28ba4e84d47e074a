"""google-adk's native Gemini path (``google.adk.models.Gemini``, ``stream=True``), its real
google-genai client reading the replay server over real HTTP, on every Gemini scenario of
the J-M corpus and the cut-off and malformed shapes of ``gemini_shapes``: what stock's
final response loses, patched right, and stock's responses kept wherever stock loses
nothing (wire-shapes L1-L4)."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Iterator
from typing import Any

import pytest
from gemini_shapes import CUT, EXTRA, MALFORMED, served
from google.adk.agents import Agent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

import streamfix
from streamfix._shimkit import release
from streamfix.testing import ReplayServer, Scenario, dialect_scenarios

CORPUS = dialect_scenarios("gemini")
SCENARIOS: dict[str, Scenario] = {**CORPUS, **EXTRA}

#: Before 2.13 ADK's aggregator glues the calls of a turn streamed by JSON path into one
#: call under the last one's name and id, every call's arguments merged (and before 2.10
#: an array index becomes a key: ``{"lang[0]": "en"}``), adk-python#4311.
GLUED = release("google-adk") < (2, 13)
#: Before 2.10 an array index in a JSON path becomes a key even for one call.
INDEX_AS_KEY = release("google-adk") < (2, 10)
#: Where the installed ADK's final response is wrong, stock: the cut-off calls always.
#: Two calls of one tool streamed by path with no terminator between them: one call, the
#: arguments glued (``{"city": "ParisRome"}``), on every release.
LOSSES = sorted(
    [*CUT, "l3-gemini-unended-same-name"]
    + (["l3-gemini-partial-args", "l3-gemini-unended-two-names"] if GLUED else [])
    + (["l3-gemini-no-terminator"] if INDEX_AS_KEY else [])
)
#: Where stock loses nothing: patched gives stock's responses.
RIGHT = sorted(n for n in SCENARIOS if n not in LOSSES)


@pytest.fixture
def server(
    streamfix_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ReplayServer]:
    """The replay server (the extra shapes served too); ADK's client on the Gemini API."""
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
    with served():
        yield streamfix_server


def _responses(server: ReplayServer, name: str) -> list[LlmResponse]:
    """Every response of ``Gemini.generate_content_async(stream=True)`` for a scenario."""
    llm = Gemini(model=name, base_url=server.url)
    request = LlmRequest(
        model=name,
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="go")])],
        config=types.GenerateContentConfig(),
    )

    async def collect() -> list[LlmResponse]:
        return [r async for r in llm.generate_content_async(request, stream=True)]

    return asyncio.run(collect())


def _run(server: ReplayServer, name: str, *, patched: bool) -> list[LlmResponse]:
    if patched:
        streamfix.install("adk")
    try:
        return _responses(server, name)
    finally:
        streamfix.uninstall("adk")


def _signature(text: str | None) -> bytes | None:
    return base64.b64decode(text) if text else None


def problems(scenario: Scenario, responses: list[LlmResponse]) -> list[str]:
    """What ADK's final response gets wrong against the scenario (empty: right)."""
    finals = [r for r in responses if not r.partial]
    if len(finals) != 1:
        return [f"{len(finals)} final responses"]
    final = finals[0]
    parts = (final.content.parts if final.content else None) or []
    calls = [p.function_call for p in parts if p.function_call]
    text = "".join(p.text for p in parts if p.text and not p.thought)
    found: list[str] = []
    if text != scenario.text:
        found.append(f"text {text!r}")
    if scenario.truncated:  # no call run, ADK's error response
        if calls:
            found.append(f"calls run: {[(c.name, c.args) for c in calls]}")
        if final.error_code not in ("MAX_TOKENS", "MALFORMED_FUNCTION_CALL"):
            found.append(f"error_code {final.error_code}")
        return found
    want = [(c["name"], c["arguments"]) for c in scenario.calls]
    if [(c.name, c.args) for c in calls] != want:
        found.append(f"calls {[(c.name, c.args) for c in calls]}")
        return found
    ids = [c["id"] for c in scenario.calls]
    if any(i is not None and i != c.id for i, c in zip(ids, calls, strict=True)):
        found.append(f"ids {[c.id for c in calls]}")
    signed = [p.thought_signature for p in parts if p.function_call]
    if scenario.signatures and signed != [_signature(s) for s in scenario.signatures]:
        found.append(f"signatures {signed}")
    if scenario.error is not None and final.error_code != scenario.error.split(":", 1)[0]:
        found.append(f"error_code {final.error_code}")
    return found


_ADK_ID = re.compile(r"adk-[0-9a-f-]{36}")


def _dumped(responses: list[LlmResponse]) -> list[str]:
    """The responses as JSON, ADK's random client ids numbered in order of appearance."""
    seen: dict[str, str] = {}
    out = []
    for response in responses:
        text = response.model_dump_json(exclude_none=True)
        out.append(_ADK_ID.sub(lambda m: seen.setdefault(m.group(), f"adk-{len(seen)}"), text))
    return out


@pytest.mark.parametrize("name", LOSSES)
def test_stock_loses_patched_right(server: ReplayServer, name: str) -> None:
    scenario = SCENARIOS[name]
    stock = _run(server, name, patched=False)
    assert problems(scenario, stock) != []  # the loss, stock
    patched = _run(server, name, patched=True)
    assert problems(scenario, patched) == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_partial_responses_as_stock(server: ReplayServer, name: str) -> None:
    """ADK's partial responses are stock's, response for response, on every shape."""
    stock = _dumped([r for r in _run(server, name, patched=False) if r.partial])
    patched = _dumped([r for r in _run(server, name, patched=True) if r.partial])
    assert patched == stock
    assert stock  # ADK streamed partial responses


@pytest.mark.parametrize("name", RIGHT)
def test_same_as_stock_where_stock_is_right(server: ReplayServer, name: str) -> None:
    stock = _run(server, name, patched=False)
    assert problems(SCENARIOS[name], stock) == []
    assert _dumped(_run(server, name, patched=True)) == _dumped(stock)


def test_glued_calls_keep_adk_ids_and_order(server: ReplayServer) -> None:
    """The fixed final response: ADK's own ids where the provider sent one (fc_1, fc_2),
    the signature only on the call that carried it (L2), text parts in place."""
    final = _run(server, "l3-gemini-partial-args", patched=True)[-1]
    assert final.content is not None
    parts = final.content.parts or []
    assert [(p.function_call.id, p.thought_signature) for p in parts if p.function_call] == [
        ("fc_1", b"sig-1"),
        ("fc_2", None),
    ]


@pytest.mark.parametrize("name", sorted(CUT))
def test_cut_off_call_is_an_error_response_with_what_was_assembled(
    server: ReplayServer, name: str
) -> None:
    final = _run(server, name, patched=True)[-1]
    scenario = SCENARIOS[name]
    code = "MAX_TOKENS" if scenario.finish_reason == "length" else "MALFORMED_FUNCTION_CALL"
    assert final.error_code == code
    assert "get_weather" in (final.error_message or "")
    assert "None of the 2 calls of this turn were run" in (final.error_message or "")
    assembled = (final.custom_metadata or {})["streamfix"]
    assert assembled["calls"] == [dict(c) for c in scenario.calls]
    assert assembled["partial_arguments"] == {"1": scenario.partial_calls[0]["arguments"]}
    if scenario.finish_reason == "length":  # usage as stock reports it
        assert final.usage_metadata is not None
        assert final.usage_metadata.total_token_count == 42


def test_malformed_function_call_is_adks_own_error_response(server: ReplayServer) -> None:
    final = _run(server, MALFORMED.name, patched=True)[-1]
    assert final.error_code == "MALFORMED_FUNCTION_CALL"
    assert final.content is not None and final.content.parts
    assert final.content.parts[0].text == "Let me check."


def test_uninstall_restores_adks_aggregator() -> None:
    from google.adk.models import google_llm
    from google.adk.utils import streaming_utils

    streamfix.install("adk")
    assert google_llm.StreamingResponseAggregator is not streaming_utils.StreamingResponseAggregator
    streamfix.uninstall("adk")
    assert google_llm.StreamingResponseAggregator is streaming_utils.StreamingResponseAggregator


# --- through ADK's Runner, SSE streaming ----------------------------------------------------


def _agent_run(server: ReplayServer, name: str) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    """An Agent on ``Gemini`` run by ``InMemoryRunner`` with SSE streaming: the tools it
    ran, and the model turn its next request carried (the model is asked once: the next
    request is answered by a callback)."""
    ran: list[tuple[str, dict[str, Any]]] = []
    sent: list[Any] = []

    def search(query: str, limit: int) -> dict[str, str]:
        """Search."""
        ran.append(("search", {"query": query, "limit": limit}))
        return {"result": "found"}

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        ran.append(("get_weather", {"city": city}))
        return {"weather": "sunny"}

    def get_time(zone: str) -> dict[str, str]:
        """The time in a zone."""
        ran.append(("get_time", {"zone": zone}))
        return {"time": "14:00"}

    def answer_follow_up(callback_context: Any, llm_request: LlmRequest) -> LlmResponse | None:
        models = [c for c in llm_request.contents if c.role == "model"]
        if not models:
            return None
        sent.append(models[-1])
        return LlmResponse(content=types.ModelContent(parts=[types.Part.from_text(text="ok")]))

    agent = Agent(
        name="assistant",
        model=Gemini(model=name, base_url=server.url),
        instruction="Answer with the tools.",
        tools=[search, get_weather, get_time],
        before_model_callback=answer_follow_up,
    )
    runner = InMemoryRunner(agent=agent, app_name="streamfix")

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="streamfix", user_id="u")
        message = types.Content(role="user", parts=[types.Part.from_text(text="go")])
        async for _ in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=message,
            run_config=RunConfig(streaming_mode=StreamingMode.SSE),
        ):
            pass

    asyncio.run(go())
    return ran, sent[0] if sent else None


def test_runner_runs_each_call_with_its_signature_sent_back(server: ReplayServer) -> None:
    """L1 through the Runner: both calls run, each signature sent back on its own call,
    stock and patched alike."""
    for patched in (False, True):
        if patched:
            streamfix.install("adk")
        try:
            ran, turn = _agent_run(server, "l1-gemini-calls")
        finally:
            streamfix.uninstall("adk")
        assert ran == [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"})]
        signed = [
            (p.function_call.name, p.thought_signature) for p in turn.parts if p.function_call
        ]
        assert signed == [("get_weather", b"sig-1"), ("get_time", b"sig-2")]


def test_runner_never_runs_a_cut_off_call(server: ReplayServer) -> None:
    name = "l4-gemini-cut-stream-end"
    ran, _ = _agent_run(server, name)
    assert ("get_weather", {"city": "P"}) in ran  # stock runs the cut call
    streamfix.install("adk")
    try:
        ran, turn = _agent_run(server, name)
    finally:
        streamfix.uninstall("adk")
    assert ran == [] and turn is None  # nothing run, the turn ends on ADK's error


if GLUED:

    def test_runner_runs_every_call_streamed_by_path(server: ReplayServer) -> None:
        """Before 2.13 the Runner runs one glued call (get_weather with search's
        arguments merged in: a TypeError back to the model); patched each call."""
        name = "l3-gemini-partial-args"
        ran, _ = _agent_run(server, name)
        assert [n for n, _ in ran] != ["search", "get_weather"]
        streamfix.install("adk")
        try:
            ran, _ = _agent_run(server, name)
        finally:
            streamfix.uninstall("adk")
        assert ran == [
            ("search", {"query": "streamed arguments", "limit": 3}),
            ("get_weather", {"city": "Paris"}),
        ]
