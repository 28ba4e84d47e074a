"""google-adk over real HTTP: an ADK ``Agent`` with two tools, on ``LiteLlm`` pointed at
the replay server (``openai/<scenario>`` on its ``/v1``, ``ollama_chat/<scenario>`` on its
root), run by ``InMemoryRunner`` streamed (``StreamingMode.SSE``) and not.

ADK sends tool results back as ``tool`` messages, so the server answers the second turn
with the text ``done``. Compared, streamed against non-streamed: the tools run and their
arguments, the final text, and the calls ADK sends back on the follow-up request with
each call's thought signature (Gemini rejects the turn when a signature is lost or moved).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import API_KEY, QUESTION, version_of
from support import report_stock_loss
from support.adk_runner import final_text, run_runner

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

#: How stock litellm words an Ollama error line mid-stream (the known wording: reported when
#: it changes, ``support.report_stock_loss``).
OLLAMA_KEYERROR = "litellm.BadRequestError: Ollama_chatException - KeyError: 'message'"

ADK = version_of("google-adk")
#: google-adk 2.13+ reads ``extra_content.google.thought_signature`` in its stream loop
#: (adk-python#7004); 1.39.x and 2.8.0 drop it from streamed calls (the non-streamed
#: response keeps it). Over real HTTP litellm's openai/ provider splits the finish reason
#: from the calls, so every stock version runs both calls of an A1 chunk: the signature is
#: what stock loses.
STOCK_KEEPS_STREAMED_SIGNATURES = ADK >= (2, 13)

SCENARIOS = streamfix.testing.scenarios()
# The scenarios whose calls are get_weather/get_time, by the provider prefix that meets
# them. Not f2: litellm's openai/ stream drops its signature-only delta before ADK (or a
# patch of ADK) sees it (tests/e2e/test_litellm.py).
OPENAI_CASES = [
    "a1-one-chunk",
    "a1-signature",
    "b1-interleaved",
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "e1-stop",
    "f1-signature",
]
OLLAMA_CASES = ["ollama-call-per-line", "ollama-calls-one-message"]
SIGNED = ["a1-signature", "f1-signature"]
OOM = SCENARIOS["ollama-oom-error"].error
assert OOM is not None


@dataclass
class Outcome:
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    text: str = ""
    # (name, parsed arguments, thought signature) of the calls on the follow-up request
    sent_back: list[tuple[str, Any, Any]] = field(default_factory=list)
    error_events: list[tuple[Any, Any]] = field(default_factory=list)
    raised: BaseException | None = None


def model_for(server: ReplayServer, name: str, cls: Any = None) -> Any:
    from google.adk.models.lite_llm import LiteLlm

    cls = cls or LiteLlm
    if SCENARIOS[name].dialect == "ollama":
        return cls(model=f"ollama_chat/{name}", api_base=server.ollama_base_url)
    return cls(model=f"openai/{name}", api_base=server.openai_base_url, api_key=API_KEY)


def run_agent(server: ReplayServer, model: Any, stream: bool) -> Outcome:
    out = Outcome()

    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        out.ran.append(("get_weather", {"city": city}))
        return {"weather": "sunny"}

    def get_time(zone: str) -> dict[str, str]:
        """The time in a time zone."""
        out.ran.append(("get_time", {"zone": zone}))
        return {"time": "14:00"}

    before = len(server.requests)

    def on_event(event: Any) -> None:
        if event.error_code or event.error_message:
            out.error_events.append((event.error_code, event.error_message))
        out.text += final_text(event)

    try:
        run_runner(model, [get_weather, get_time], QUESTION, on_event, stream=stream)
    except Exception as error:
        out.raised = error
    out.sent_back = _sent_back(server.requests[before:])
    return out


def _sent_back(requests: list[dict[str, Any]]) -> list[tuple[str, Any, Any]]:
    import json

    calls = []
    for request in requests[1:]:  # what ADK sent after running the tools
        for message in request["messages"]:
            for call in message.get("tool_calls") or []:
                arguments = call["function"]["arguments"]
                google = (call.get("extra_content") or {}).get("google") or {}
                specific = call.get("provider_specific_fields") or {}
                calls.append(
                    (
                        call["function"]["name"],
                        json.loads(arguments) if isinstance(arguments, str) else arguments,
                        google.get("thought_signature") or specific.get("thought_signature"),
                    )
                )
    return calls


def expected_sent_back(name: str) -> list[tuple[str, Any, Any]]:
    scenario = SCENARIOS[name]
    signatures = scenario.signatures or (None,) * len(scenario.calls)
    return [(c["name"], c["arguments"], s) for c, s in zip(scenario.calls, signatures, strict=True)]


def expected_ran(name: str) -> list[tuple[str, Any]]:
    return [(c["name"], c["arguments"]) for c in SCENARIOS[name].calls]


def assert_right(outcome: Outcome, name: str) -> None:
    assert outcome.raised is None and outcome.error_events == []
    assert sorted(outcome.ran, key=repr) == sorted(expected_ran(name), key=repr)
    assert outcome.sent_back == expected_sent_back(name)
    assert outcome.text == SCENARIOS[name].follow_up


# --- patched: streamed equals non-streamed ------------------------------------------------


@pytest.mark.parametrize("name", OPENAI_CASES + OLLAMA_CASES)
def test_patched_streamed_equals_non_streamed(streamfix_server: ReplayServer, name: str) -> None:
    assert streamfix.install("adk") == ["adk"]
    streamed = run_agent(streamfix_server, model_for(streamfix_server, name), stream=True)
    whole = run_agent(streamfix_server, model_for(streamfix_server, name), stream=False)
    assert_right(streamed, name)
    assert_right(whole, name)


@pytest.mark.parametrize("name", SIGNED)
def test_streamfix_litellm_class_without_patching(
    streamfix_server: ReplayServer, name: str
) -> None:
    """``StreamFixLiteLlm`` in place of ``LiteLlm``, nothing patched."""
    from streamfix_adk import StreamFixLiteLlm

    model = model_for(streamfix_server, name, StreamFixLiteLlm)
    assert_right(run_agent(streamfix_server, model, stream=True), name)


# --- stock, per version --------------------------------------------------------------------


@pytest.mark.parametrize("name", SIGNED)
def test_stock_streamed_signatures_per_version(streamfix_server: ReplayServer, name: str) -> None:
    """Stock ADK runs both calls streamed and not; before 2.13 the streamed turn sends the
    calls back without their thought signature (Gemini then rejects it), 2.13+ keeps it."""
    streamed = run_agent(streamfix_server, model_for(streamfix_server, name), stream=True)
    whole = run_agent(streamfix_server, model_for(streamfix_server, name), stream=False)
    assert_right(whole, name)
    assert sorted(streamed.ran, key=repr) == sorted(expected_ran(name), key=repr)
    assert streamed.text == "done"
    if STOCK_KEEPS_STREAMED_SIGNATURES:
        assert streamed.sent_back == expected_sent_back(name)
    else:
        assert streamed.sent_back == [(n, a, None) for n, a, _ in expected_sent_back(name)]


@pytest.mark.parametrize("name", sorted(set(OPENAI_CASES + OLLAMA_CASES) - set(SIGNED)))
def test_stock_unsigned_shapes_already_right_over_http(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The unsigned shapes, stock, over real HTTP: right on every tested version (litellm's
    providers hand ADK one call per index, with an id), so the patch must not change
    them; the chunk-level traps stock ADK falls into are tests/adk's."""
    assert_right(run_agent(streamfix_server, model_for(streamfix_server, name), True), name)


# --- Ollama out of memory mid-stream (E5) ----------------------------------------------------


def _shown(outcome: Outcome) -> str:
    """What the user gets to see: the raised error, or the error events."""
    return " | ".join([repr(outcome.raised), *(str(e) for e in outcome.error_events)])


def test_ollama_out_of_memory_stock(streamfix_server: ReplayServer) -> None:
    """Stock, streamed: litellm's ``KeyError: 'message'`` as a 400 BadRequestError (the
    Ollama text only inside the dict dump). Not streamed, Ollama answers HTTP 500 and the
    error names Ollama's text already."""
    import litellm

    streamed = run_agent(
        streamfix_server, model_for(streamfix_server, "ollama-oom-error"), stream=True
    )
    assert isinstance(streamed.raised, litellm.BadRequestError)
    report_stock_loss("adk ollama-oom-error", str(streamed.raised), OLLAMA_KEYERROR)
    assert streamed.ran == []
    whole = run_agent(
        streamfix_server, model_for(streamfix_server, "ollama-oom-error"), stream=False
    )
    assert isinstance(whole.raised, litellm.InternalServerError)
    assert OOM in str(whole.raised)


def test_ollama_out_of_memory_patched(streamfix_server: ReplayServer) -> None:
    import litellm

    assert streamfix.install("adk", "litellm") == ["adk", "litellm"]
    streamed = run_agent(
        streamfix_server, model_for(streamfix_server, "ollama-oom-error"), stream=True
    )
    shown = _shown(streamed)
    assert streamed.raised is not None or streamed.error_events
    assert OOM in shown
    assert "KeyError" not in shown and "RuntimeError" not in shown
    assert not isinstance(streamed.raised, (litellm.BadRequestError, litellm.APIConnectionError))
    assert streamed.ran == []
