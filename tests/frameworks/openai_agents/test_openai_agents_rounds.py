"""The OpenAI Agents SDK's ``Runner.run_streamed`` on ``OpenAIChatCompletionsModel``
(function tools ``get_weather`` and ``get_time``) through the replay server's scripted
five-round loop ``rounds-staggered`` over real HTTP: four rounds of two calls, each round
in another wire shape (B1, G3, B2, C1), then the final text. Round ``N + 1`` answers only
when the request carries round ``N``'s calls back right, else HTTP 400.

Stock openai-agents runs round 1 and stops in round 2 (G3: both calls share one id):
``ModelBehaviorError`` (a reused call id), no request for round 3; it would glue round 3
too (B2: the first call lost). The wire makes the second id unique; patched, all five
rounds complete.
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

agents = pytest.importorskip("agents")

SCRIPT = "rounds-staggered"


@dataclass
class Loop:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    steps: list[list[tuple[str, Any]]] = field(default_factory=list)  # each response's calls
    final: Any = None
    error: BaseException | None = None
    requests: int = 0


def run_loop(server: ReplayServer) -> Loop:
    loop = Loop()

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        loop.ran.append(("get_weather", {"city": city}))
        return rounds_tool("get_weather", {"city": city})

    @agents.function_tool
    def get_time(zone: str) -> str:
        """The time in a time zone."""
        loop.ran.append(("get_time", {"zone": zone}))
        return rounds_tool("get_time", {"zone": zone})

    client = openai.AsyncOpenAI(
        api_key="sk-streamfix-test", base_url=server.openai_base_url, max_retries=0
    )
    model = agents.OpenAIChatCompletionsModel(model=SCRIPT, openai_client=client)
    agent = agents.Agent(name="rounds", model=model, tools=[get_weather, get_time])
    config = agents.RunConfig(tracing_disabled=True)
    results: list[Any] = []

    async def go() -> None:
        result = agents.Runner.run_streamed(agent, ROUNDS_QUESTION, run_config=config, max_turns=8)
        results.append(result)
        async for _ in result.stream_events():
            pass

    before = len(server.requests)
    try:
        asyncio.run(go())
    except Exception as error:
        loop.error = error
    if results:
        result = results[0]
        loop.final = result.final_output
        loop.steps = [
            [
                (item.name, testing.parse_arguments(item.arguments))
                for item in response.output
                if item.type == "function_call"
            ]
            for response in result.raw_responses
        ]
    loop.requests = len(server.requests) - before
    return loop


def _expected_steps() -> list[list[tuple[str, Any]]]:
    return [[(c["name"], c["arguments"]) for c in s.calls] for s in testing.ROUNDS[SCRIPT].rounds]


@pytest.mark.stock_failure
def test_stock_stops_in_round_2_on_the_shared_id(streamfix_server: ReplayServer) -> None:
    loop = run_loop(streamfix_server)
    assert loop.steps == _expected_steps()[:1]  # round 2's response never completes
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT)[:2], key=repr)
    assert loop.requests == 2 and loop.final is None
    assert isinstance(loop.error, agents.exceptions.ModelBehaviorError)
    report_stock_loss(
        "openai-agents rounds round 2", str(loop.error), "Model reused a tool call ID"
    )


def test_patched_completes_five_rounds(streamfix_server: ReplayServer, patched: None) -> None:
    loop = run_loop(streamfix_server)
    assert loop.error is None, loop.error
    assert loop.steps == _expected_steps()
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT), key=repr)
    assert loop.final == testing.ROUNDS[SCRIPT].final
    assert loop.requests == 5
