"""pydantic-ai's ``Agent.run_stream`` on ``OpenAIChatModel`` (tools ``get_weather`` and
``get_time``) through the replay server's scripted five-round loop ``rounds-staggered``
over real HTTP: four rounds of two calls, each round in another wire shape (B1, G3, B2,
C1), then the final text. Round ``N + 1`` answers only when the request carries round
``N``'s calls back right, else HTTP 400.

Stock pydantic-ai runs round 1 and stops in round 2 (G3: both calls share one id): the
first response's parts are right (the doctor's ``pydantic-ai`` column, which reads that
response only, counts G3 right), but the run refuses to run them: ``UnexpectedModelBehavior``
(duplicate ``tool_call_id``), no request for round 3. The wire makes the second id
unique; patched, all five rounds complete.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import openai
import pytest
from conftest import ROUNDS_QUESTION, rounds_ran, rounds_tool
from support import report_stock_loss

from streamfix import testing
from streamfix.testing import ReplayServer

pydantic_ai = pytest.importorskip("pydantic_ai")

SCRIPT = "rounds-staggered"


@dataclass
class Loop:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    steps: list[list[tuple[str, Any]]] = field(default_factory=list)  # each response's calls
    final: str = ""
    error: BaseException | None = None
    requests: int = 0


def run_loop(server: ReplayServer) -> Loop:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    loop = Loop()

    def get_weather(city: str) -> str:
        """The weather in a city."""
        loop.ran.append(("get_weather", {"city": city}))
        return rounds_tool("get_weather", {"city": city})

    def get_time(zone: str) -> str:
        """The time in a time zone."""
        loop.ran.append(("get_time", {"zone": zone}))
        return rounds_tool("get_time", {"zone": zone})

    client = openai.AsyncOpenAI(
        api_key="sk-streamfix-test", base_url=server.openai_base_url, max_retries=0
    )
    model = OpenAIChatModel(SCRIPT, provider=OpenAIProvider(openai_client=client))
    agent = pydantic_ai.Agent(model, tools=[get_weather, get_time])

    async def go() -> str:
        async with agent.run_stream(ROUNDS_QUESTION) as result:
            return await result.get_output()

    before = len(server.requests)
    with pydantic_ai.capture_run_messages() as messages:
        try:
            loop.final = asyncio.run(go())
        except Exception as error:
            loop.error = error
    loop.steps = [
        [
            (p.tool_name, testing.parse_arguments(p.args))
            for p in m.parts
            if p.part_kind == "tool-call"
        ]
        for m in messages
        if m.kind == "response"
    ]
    loop.requests = len(server.requests) - before
    return loop


def _expected_steps() -> list[list[tuple[str, Any]]]:
    return [[(c["name"], c["arguments"]) for c in s.calls] for s in testing.ROUNDS[SCRIPT].rounds]


@pytest.mark.stock_failure
def test_stock_stops_in_round_2_on_the_shared_id(streamfix_server: ReplayServer) -> None:
    loop = run_loop(streamfix_server)
    expected = _expected_steps()
    assert loop.steps == expected[:2]  # both responses assembled right
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT)[:2], key=repr)
    assert loop.requests == 2
    assert isinstance(loop.error, pydantic_ai.exceptions.UnexpectedModelBehavior)
    known = (
        "Function tool calls must have unique `tool_call_id` values;"
        " duplicate `tool_call_id`s: ['call_2a']"
    )
    report_stock_loss("pydantic-ai rounds round 2", str(loop.error), known)


def test_patched_completes_five_rounds(streamfix_server: ReplayServer, patched: None) -> None:
    loop = run_loop(streamfix_server)
    assert loop.error is None, loop.error
    assert loop.steps == _expected_steps()
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT), key=repr)
    assert loop.final == testing.ROUNDS[SCRIPT].final
    assert loop.requests == 5
