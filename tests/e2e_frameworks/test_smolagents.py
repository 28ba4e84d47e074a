"""smolagents over real HTTP: a ``ToolCallingAgent`` with two tools, through
``OpenAIServerModel`` (the openai SDK) and ``LiteLLMModel`` (litellm, ``openai/`` and
``ollama_chat/``), with ``stream_outputs=True`` and ``False``.

The replay server answers each request with the scenario's two calls (smolagents sends
tool results back as user messages, so every step gets the calls again): the agent runs
one step (``max_steps=1``), runs the step's tools, then asks for its final answer. The
streamed run must do what the non-streamed one does: the same calls, each tool run once
with its own arguments, the same final answer. Stock smolagents glues the two calls of a
same-index stream (B2/B3: Ollama, and Ollama behind litellm) into one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import API_KEY, QUESTION, WEATHER_AND_TIME
from support import report_stock_loss

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

#: How stock litellm words an Ollama error line mid-stream (the known wording: reported when
#: it changes, ``support.report_stock_loss``).
OLLAMA_KEYERROR = "litellm.BadRequestError: Ollama_chatException - KeyError: 'message'"

GLUED = '{"city": "Paris"}{"zone": "Europe/Paris"}'

# (client, model id): the same-index shapes, each through the client that meets it.
# b2-same-index: index 0 reused, ids differ (OpenAI-compatible Ollama). b3-same-index: no
# ids either; not through OpenAIServerModel, whose NON-streamed run keys parallel calls by
# id and runs one of two id-less calls (a smolagents limit unrelated to streaming), while
# litellm gives every non-streamed call an id. ollama-call-per-line: native /api/chat, one
# call per NDJSON line, which stock litellm numbers 0 and 0.
CASES = {
    "openai-server-b2": ("openai", "b2-same-index"),
    "litellm-openai-b3": ("litellm", "openai/b3-same-index"),
    "litellm-ollama-chat": ("litellm", "ollama_chat/ollama-call-per-line"),
}


@dataclass
class Outcome:
    ran: list[tuple[str, dict[str, Any]]]  # what the tools received, sorted
    calls: list[tuple[str, Any]]  # the step's recorded calls (name, arguments), sorted
    final: Any
    observations: str


def model_for(server: ReplayServer, client: str, model_id: str) -> Any:
    from smolagents import LiteLLMModel, OpenAIServerModel

    if client == "openai":
        return OpenAIServerModel(
            model_id=model_id, api_base=server.openai_base_url, api_key=API_KEY
        )
    base = server.ollama_base_url if model_id.startswith("ollama") else server.openai_base_url
    return LiteLLMModel(model_id=model_id, api_base=base, api_key=API_KEY)


def run_agent(model: Any, stream: bool) -> Outcome:
    from smolagents import ToolCallingAgent, tool

    ran: list[tuple[str, dict[str, Any]]] = []
    lock = threading.Lock()  # smolagents runs parallel calls in threads

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city's name.
        """
        with lock:
            ran.append(("get_weather", {"city": city}))
        return f"sunny in {city}"

    @tool
    def get_time(zone: str) -> str:
        """The time in a time zone.

        Args:
            zone: the time zone.
        """
        with lock:
            ran.append(("get_time", {"zone": zone}))
        return f"14:00 in {zone}"

    agent = ToolCallingAgent(
        tools=[get_weather, get_time],
        model=model,
        stream_outputs=stream,
        max_steps=1,
        verbosity_level=0,
    )
    final = agent.run(QUESTION)
    step = agent.memory.steps[1]
    return Outcome(
        sorted(ran, key=repr),
        sorted(((c.name, c.arguments) for c in step.tool_calls or []), key=repr),
        final,
        step.observations or "",
    )


@pytest.mark.parametrize("case", list(CASES))
def test_stock_streamed_glues_the_two_calls(streamfix_server: ReplayServer, case: str) -> None:
    """Stock ``agglomerate_stream_deltas`` keys fragments by index: one call, named after
    the last fragment's name, whose arguments are both JSON values glued together; the
    tool runs once with that text (the non-streamed run, below, runs both)."""
    client, model_id = CASES[case]
    streamed = run_agent(model_for(streamfix_server, client, model_id), stream=True)
    assert streamed.calls == [("get_time", GLUED)]
    assert streamed.ran == [("get_time", {"zone": GLUED})]
    whole = run_agent(model_for(streamfix_server, client, model_id), stream=False)
    assert whole.ran == sorted(WEATHER_AND_TIME, key=repr)


@pytest.mark.parametrize("case", list(CASES))
def test_patched_streamed_equals_non_streamed(streamfix_server: ReplayServer, case: str) -> None:
    assert streamfix.install("smolagents") == ["smolagents"]
    client, model_id = CASES[case]
    streamed = run_agent(model_for(streamfix_server, client, model_id), stream=True)
    whole = run_agent(model_for(streamfix_server, client, model_id), stream=False)
    expected = sorted(WEATHER_AND_TIME, key=repr)
    assert streamed.ran == whole.ran == expected  # both tools, each with its own arguments
    assert streamed.calls == whole.calls == expected
    assert streamed.final == whole.final
    for seen in ("sunny in Paris", "14:00 in Europe/Paris"):
        assert seen in streamed.observations
        assert seen in whole.observations


# --- Ollama out of memory mid-stream (E5), through LiteLLMModel ollama_chat/ -----------------

OOM = streamfix.testing.scenarios()["ollama-oom-error"].error
assert OOM is not None


def oom_error(server: ReplayServer) -> Any:
    """The error a streaming agent raises when Ollama fails mid-stream (smolagents wraps
    any generation error in ``AgentGenerationError``, which ends the run)."""
    from smolagents.utils import AgentGenerationError

    with pytest.raises(AgentGenerationError) as caught:
        run_agent(model_for(server, "litellm", "ollama_chat/ollama-oom-error"), stream=True)
    return caught.value


def test_ollama_out_of_memory_stock(streamfix_server: ReplayServer) -> None:
    """Stock: litellm's ``KeyError: 'message'`` as a 400 BadRequestError (Ollama's text
    only inside the dict dump), which reads as a bad request, not a server failure."""
    import litellm

    error = oom_error(streamfix_server)
    assert isinstance(error.__cause__, litellm.BadRequestError)
    report_stock_loss("smolagents ollama-oom-error", str(error.__cause__), OLLAMA_KEYERROR)


@pytest.mark.parametrize("patches", [("litellm",), ("smolagents", "litellm")])
def test_ollama_out_of_memory_patched(
    streamfix_server: ReplayServer, patches: tuple[str, ...]
) -> None:
    """The litellm shim is what fixes it (smolagents gets the error from litellm)."""
    import litellm

    assert streamfix.install(*patches) == list(patches)
    error = oom_error(streamfix_server)
    assert OOM in str(error)
    assert "KeyError" not in str(error)
    cause = error.__cause__
    assert isinstance(cause, litellm.ServiceUnavailableError)  # MidStreamFallbackError
    assert isinstance(cause.original_exception, litellm.InternalServerError)
    assert OOM in str(cause.original_exception)
