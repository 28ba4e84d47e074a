"""google-adk's Runner in SSE mode (``StreamingMode.SSE``), an ``Agent`` on ``LiteLlm``
over the OpenAI dialect (``openai/rounds-signatures``), five rounds of two calls with
Gemini thought signatures that the server requires back on every call: F1, B1, F2 and A1
shapes in rounds 1 to 4, then the final text. On the newest google-adk (2.13+, which
reads ``extra_content.google.thought_signature`` in its stream loop)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import litellm
import pytest
from conftest import API_KEY, QUESTION, ROUNDS, expected_ran, tool_result
from support.adk_runner import final_text, run_runner

import streamfix
from streamfix.testing import ReplayServer

SCRIPT = "rounds-signatures"


@dataclass
class Run:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    text: str = ""
    raised: BaseException | None = None
    requests: int = 0


def run_agent(server: ReplayServer) -> Run:
    from google.adk.models.lite_llm import LiteLlm

    out = Run()

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        out.ran.append(("get_weather", {"city": city}))
        return {"weather": tool_result("get_weather", {"city": city})}

    def get_time(zone: str) -> dict[str, str]:
        """The time in a time zone."""
        out.ran.append(("get_time", {"zone": zone}))
        return {"time": tool_result("get_time", {"zone": zone})}

    model = LiteLlm(model=f"openai/{SCRIPT}", api_base=server.openai_base_url, api_key=API_KEY)
    before = len(server.requests)

    def on_event(event: Any) -> None:
        out.text += final_text(event)

    try:
        run_runner(model, [get_weather, get_time], QUESTION, on_event, instruction="Use the tools.")
    except Exception as error:
        out.raised = error
    out.requests = len(server.requests) - before
    return out


def assert_lost_in_round_3(run: Run) -> None:
    """Rounds 1 (F1), 2 (B1) come back signed; round 3's F2 signature-only delta never
    reaches ADK (litellm's openai/ stream drops it), so the round-4 request sends
    get_weather unsigned and the server answers 400, which ADK raises."""
    assert run.ran == expected_ran(SCRIPT)[:6]  # rounds 1 to 3 ran, each call once
    assert run.requests == 4 and run.text == ""
    assert isinstance(run.raised, litellm.BadRequestError)
    assert run.raised.status_code == 400
    assert str(run.raised) == (
        "litellm.BadRequestError: OpenAIException - rounds-signatures: round 3: Function"
        " call is missing a thought_signature in functionCall parts (call 'get_weather' at"
        " position 0)"
    )


def test_stock_loses_round_3_s_signature(streamfix_server: ReplayServer) -> None:
    adk = tuple(int(part) for part in version("google-adk").split(".")[:2])
    assert adk >= (2, 13), "before 2.13 stock ADK drops every streamed signature (round 1)"
    assert_lost_in_round_3(run_agent(streamfix_server))


def test_the_adk_shim_alone_does_not_bring_it_back(streamfix_server: ReplayServer) -> None:
    """The F2 signature is lost in litellm's stream, before ADK (or its shim) sees it."""
    assert streamfix.install("adk") == ["adk"]
    assert_lost_in_round_3(run_agent(streamfix_server))


@pytest.mark.parametrize("patches", [("litellm",), ("adk", "litellm")])
def test_patched_completes_five_rounds(
    streamfix_server: ReplayServer, patches: tuple[str, ...]
) -> None:
    assert streamfix.install(*patches) == list(patches)
    run = run_agent(streamfix_server)
    assert run.raised is None
    assert run.ran == expected_ran(SCRIPT)  # every call of rounds 1 to 4, in order, once
    assert run.requests == 5  # rounds 2 to 5 each validated the signed calls before
    assert run.text == ROUNDS[SCRIPT].final
