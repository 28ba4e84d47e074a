"""smolagents' ``ToolCallingAgent`` with ``stream_outputs=True`` over ``OpenAIServerModel``
(the openai SDK) against ``rounds-same-index``: four rounds of two calls at index 0 with
different ids (B2), then a ``final_answer`` call. smolagents sends its history as text
(``Calling tools:`` and the calls' repr, then an ``Observation:`` message), which the
server reads and checks like structured calls."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import openai
from conftest import API_KEY, QUESTION, ROUNDS, expected_ran, tool_result
from support import report_stock_loss

import streamfix
from streamfix.testing import ReplayServer

SCRIPT = "rounds-same-index"
GLUED = '{"city": "Paris"}{"zone": "Europe/Paris"}'


@dataclass
class Run:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    steps: list[list[tuple[str, Any]]] = field(default_factory=list)  # each step's calls
    final: Any = None
    raised: BaseException | None = None
    requests: int = 0


def run_agent(server: ReplayServer) -> Run:
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    out = Run()
    lock = threading.Lock()  # smolagents runs parallel calls in threads

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city's name.
        """
        with lock:
            out.ran.append(("get_weather", {"city": city}))
        return tool_result("get_weather", {"city": city})

    @tool
    def get_time(zone: str) -> str:
        """The time in a time zone.

        Args:
            zone: the time zone.
        """
        with lock:
            out.ran.append(("get_time", {"zone": zone}))
        return tool_result("get_time", {"zone": zone})

    model = OpenAIServerModel(model_id=SCRIPT, api_base=server.openai_base_url, api_key=API_KEY)
    agent = ToolCallingAgent(
        tools=[get_weather, get_time],
        model=model,
        stream_outputs=True,
        max_steps=6,
        verbosity_level=0,
    )
    before = len(server.requests)
    try:
        out.final = agent.run(QUESTION)
    except Exception as error:
        out.raised = error
    out.requests = len(server.requests) - before
    out.steps = [
        [(c.name, c.arguments) for c in getattr(step, "tool_calls", None) or []]
        for step in agent.memory.steps[1:]
    ]
    return out


def test_stock_glues_round_1_and_round_2_gets_a_400(streamfix_server: ReplayServer) -> None:
    """Stock ``agglomerate_stream_deltas`` keys fragments by index: round 1's two calls
    become one get_time call with both JSON values glued, the tool runs once with that
    text, and round 2's request (carrying it back) is refused; smolagents raises."""
    from smolagents.utils import AgentGenerationError

    run = run_agent(streamfix_server)
    assert run.steps[0] == [("get_time", GLUED)]
    assert run.ran == [("get_time", {"zone": GLUED})]
    assert run.requests == 2 and run.final is None
    assert isinstance(run.raised, AgentGenerationError)
    cause = run.raised.__cause__
    assert isinstance(cause, openai.BadRequestError) and cause.status_code == 400
    report_stock_loss("smolagents rounds round 2", str(cause), "Error code: 400")
    assert isinstance(cause.body, dict)
    assert cause.body["message"] == (
        "rounds-same-index: round 1: call 'get_time' has arguments that are not one JSON"
        ' value: \'{"city": "Paris"}{"zone": "Europe/Paris"}\' (Extra data: line 1 column 18'
        " (char 17))"
    )


def test_patched_completes_five_rounds(streamfix_server: ReplayServer) -> None:
    assert streamfix.install("smolagents") == ["smolagents"]
    run = run_agent(streamfix_server)
    assert run.raised is None
    assert run.final == ROUNDS[SCRIPT].final
    assert sorted(run.ran, key=repr) == sorted(expected_ran(SCRIPT), key=repr)
    expected = [[(c["name"], c["arguments"]) for c in s.calls] for s in ROUNDS[SCRIPT].rounds]
    assert run.steps == expected  # each round's two calls, then final_answer
    assert run.requests == 5
