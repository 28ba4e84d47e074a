"""langchain's ``create_agent`` (``ChatOpenAI``, tools ``get_weather`` and ``get_time``)
streamed (``stream_mode=["updates", "messages"]``) through the replay server's scripted
five-round loop ``rounds-staggered`` over real HTTP: four rounds of two calls, each round
in another wire shape (B1, G3, B2, C1), then the final text. Round ``N + 1`` answers only
when the request carries round ``N``'s calls back right, else HTTP 400.

Stock langchain assembles rounds 1 to 3 right (B2 too: langchain-core keeps calls at one
index apart when their ids differ) and glues round 4's names (C1: the name repeated on
every fragment): the ToolNode answers the unknown tools with errors, and round 5's request
is refused. Patched, all five rounds complete.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import openai
import pytest
from conftest import ROUNDS_QUESTION, rounds_ran, rounds_tool

from streamfix import testing
from streamfix.testing import ReplayServer

pytest.importorskip("langchain_openai")
agents = pytest.importorskip("langchain.agents")

SCRIPT = "rounds-staggered"


@dataclass
class Loop:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    steps: list[list[tuple[str, Any]]] = field(default_factory=list)  # each model step's calls
    final: str = ""
    error: BaseException | None = None
    requests: int = 0


def run_loop(server: ReplayServer) -> Loop:
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    loop, lock = Loop(), threading.Lock()

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        with lock:
            loop.ran.append(("get_weather", {"city": city}))
        return rounds_tool("get_weather", {"city": city})

    @tool
    def get_time(zone: str) -> str:
        """The time in a time zone."""
        with lock:
            loop.ran.append(("get_time", {"zone": zone}))
        return rounds_tool("get_time", {"zone": zone})

    model = ChatOpenAI(
        model=SCRIPT, api_key="sk-streamfix-test", base_url=server.openai_base_url, max_retries=0
    )
    agent = agents.create_agent(model, tools=[get_weather, get_time])
    before = len(server.requests)
    try:
        for mode, event in agent.stream(
            {"messages": [{"role": "user", "content": ROUNDS_QUESTION}]},
            stream_mode=["updates", "messages"],
        ):
            if mode != "updates" or "model" not in event:
                continue
            for message in event["model"]["messages"]:
                loop.steps.append([(c["name"], c["args"]) for c in message.tool_calls])
                loop.final = message.content if isinstance(message.content, str) else ""
    except Exception as error:
        loop.error = error
    loop.requests = len(server.requests) - before
    return loop


def _expected_steps() -> list[list[tuple[str, Any]]]:
    return [[(c["name"], c["arguments"]) for c in s.calls] for s in testing.ROUNDS[SCRIPT].rounds]


@pytest.mark.stock_failure
def test_stock_glues_round_4_and_round_5_gets_a_400(streamfix_server: ReplayServer) -> None:
    loop = run_loop(streamfix_server)
    expected = _expected_steps()
    assert loop.steps[:3] == expected[:3]
    assert loop.steps[3] == [
        ("get_weatherget_weather", {"city": "Oslo"}),
        ("get_timeget_time", {"zone": "Europe/Oslo"}),
    ]
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT)[:6], key=repr)
    assert loop.requests == 5
    assert isinstance(loop.error, openai.BadRequestError) and loop.error.status_code == 400
    assert isinstance(loop.error.body, dict)
    assert loop.error.body["message"] == (
        f"{SCRIPT}: round 4: expected the calls ['get_weather', 'get_time'],"
        " got ['get_weatherget_weather', 'get_timeget_time']"
    )


def test_patched_completes_five_rounds(streamfix_server: ReplayServer, patched: None) -> None:
    loop = run_loop(streamfix_server)
    assert loop.error is None, loop.error
    assert loop.steps == _expected_steps()
    assert sorted(loop.ran, key=repr) == sorted(rounds_ran(SCRIPT), key=repr)
    assert loop.final == testing.ROUNDS[SCRIPT].final
    assert loop.requests == 5
