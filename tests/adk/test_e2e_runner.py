"""End to end: an ADK ``Agent`` with two tools run by ADK's ``Runner`` in SSE streaming
mode. The model sends both calls in ONE chunk with the finish reason and a Gemini thought
signature on the first call; its second response is the final text. Both tools must run
with their arguments, and the follow-up request (what ADK hands litellm) must carry the
signature on the first call and only there: Gemini rejects the turn otherwise."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from adk_fakes import ADK_FIXED_UPSTREAM, FIXED, MODEL, FakeClient, chunk, sig, tc, usage_chunk
from google.adk.agents import Agent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.lite_llm import LiteLlm
from google.adk.runners import InMemoryRunner
from google.genai import types

SIGNATURE = sig("gemini-thought-signature-for-call-one")

# Where the signature sits on the streamed call, and whether stock ADK of this version
# keeps it: google-adk 2.13+ reads extra_content.google on its stream loop (and finalizes
# the one chunk once, adk-python#7004); no version reads extra_content.vertex there.
PLACEMENTS = {
    "extra-content-google": (
        {"extra_content": {"google": {"thought_signature": SIGNATURE}}},
        ADK_FIXED_UPSTREAM,
    ),
    "extra-content-vertex": (
        {"extra_content": {"vertex": {"thought_signature": SIGNATURE}}},
        False,
    ),
}


def _script(placement: dict[str, Any]) -> FakeClient:
    first = [
        chunk(
            tc(0, "call-1", "get_weather", '{"city":"Paris"}', **placement),
            tc(1, "call-2", "get_time", '{"tz":"CET"}'),
            finish="tool_calls",
        ),
        usage_chunk(),
    ]
    second = [chunk(content="Sunny, "), chunk(content="14:00."), chunk(finish="stop")]
    return FakeClient(first, second)


def _run(cls: type[LiteLlm], client: FakeClient) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    ran: list[tuple[str, dict[str, Any]]] = []

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        ran.append(("get_weather", {"city": city}))
        return {"weather": "sunny"}

    def get_time(tz: str) -> dict[str, str]:
        """The time in a time zone."""
        ran.append(("get_time", {"tz": tz}))
        return {"time": "14:00"}

    agent = Agent(
        name="assistant",
        model=cls(model=MODEL, llm_client=client),
        instruction="Answer with the tools.",
        tools=[get_weather, get_time],
    )
    runner = InMemoryRunner(agent=agent, app_name="streamfix")

    async def go() -> str:
        session = await runner.session_service.create_session(app_name="streamfix", user_id="u")
        text = []
        message = types.Content(role="user", parts=[types.Part.from_text(text="Weather+time?")])
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=message,
            run_config=RunConfig(streaming_mode=StreamingMode.SSE),
        ):
            if not event.partial and event.content and event.content.parts:
                text.extend(p.text for p in event.content.parts if p.text)
        return "".join(text)

    return ran, asyncio.run(go())


def _follow_up_calls(client: FakeClient) -> list[dict[str, Any]]:
    """The assistant tool calls of the request ADK sent after running the tools."""
    assert len(client.calls) == 2
    for message in client.calls[1]["messages"]:
        get = message.get if isinstance(message, dict) else lambda k, m=message: getattr(m, k, None)
        if get("role") == "assistant" and get("tool_calls"):
            return [dict(call) for call in get("tool_calls")]
    return []


def _signatures(calls: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for call in calls:
        name = call["function"]["name"]
        google = (call.get("extra_content") or {}).get("google") or {}
        out[name] = google.get("thought_signature")
    return out


EXPECTED_RAN = [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]
EXPECTED_SIGNATURES = {"get_weather": SIGNATURE, "get_time": None}


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_runner_sse_two_calls_one_chunk_patched(placement: str) -> None:
    client = _script(PLACEMENTS[placement][0])
    ran, text = _run(FIXED, client)
    assert sorted(ran) == sorted(EXPECTED_RAN)
    assert _signatures(_follow_up_calls(client)) == EXPECTED_SIGNATURES
    assert text == "Sunny, 14:00."


@pytest.mark.stock_failure
@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_runner_sse_two_calls_one_chunk_stock(placement: str) -> None:
    """Stock: on google-adk < 2.13 only the last call of the chunk runs and the signature
    is lost; a vertex-placed signature is lost on every version. Where stock keeps both
    (2.13+, google placement) this asserts it does."""
    body, stock_right = PLACEMENTS[placement]
    client = _script(body)
    ran, _ = _run(LiteLlm, client)
    right = sorted(ran) == sorted(EXPECTED_RAN) and (
        _signatures(_follow_up_calls(client)) == EXPECTED_SIGNATURES
    )
    assert right is stock_right


@pytest.mark.shim_only
def test_runner_sse_installed_patch() -> None:
    """After install(), a plain LiteLlm agent gets the same result."""
    import streamfix_adk

    streamfix_adk.install()
    client = _script(PLACEMENTS["extra-content-google"][0])
    ran, _ = _run(LiteLlm, client)
    assert sorted(ran) == sorted(EXPECTED_RAN)
    assert _signatures(_follow_up_calls(client)) == EXPECTED_SIGNATURES
