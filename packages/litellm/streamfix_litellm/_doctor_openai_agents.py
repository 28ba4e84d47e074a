"""``streamfix doctor``'s ``openai-agents-litellm`` column: the OpenAI Agents SDK's
``LitellmModel`` (``agents.extensions.models.litellm_model``, the ``openai-agents[litellm]``
extra) on the litellm wire.

An ``Agent`` with a ``FunctionTool`` of each name the scenario's calls use, on
``LitellmModel("openai/<scenario>")``, run with ``Runner.run_streamed`` (tracing off) and
its events read to the end: the tools run and the next request gets the scenario's
follow-up text. ``LitellmModel`` streams through ``litellm.acompletion`` (litellm's
``CustomStreamWrapper``, which the litellm patch repairs) and reads the chunks with the
SDK's ``ChatCmplStreamHandler`` (tool-call deltas keyed by ``index``). The calls are the
``function_call`` items of the first model response, with the thought signature the SDK
keeps (``provider_data["thought_signature"]``); the text its ``message`` items; the
reasoning signatures those of its ``reasoning`` item (Anthropic ``thinking_blocks``). The
SDK has no place for ``reasoning_details``, streamed or not: not judged.

The scenario is answered in-process: litellm's shared HTTP session
(``litellm.aclient_session``, which litellm hands to the openai SDK client it builds) is,
for the run, an ``httpx`` client whose ``MockTransport`` answers as the replay server does
(the scenario's chunks as SSE events, its ``follow_up`` once the request carries a tool
result). No socket, no server, no key. openai-agents and litellm are imported when a
scenario is driven.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

from streamfix import MalformedToolCallError, StreamFixError, assemble, testing

__all__ = ["OPENAI_AGENTS_LITELLM_DRIVER", "agent", "drive", "read", "run_streamed"]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"
PROMPT = "What is the weather in Paris, and the time?"


class _Served:
    """The scenario the in-process session answers with (one session for every run:
    litellm caches the openai client it builds around it)."""

    scenario: testing.Scenario | None = None
    session: Any = None


def _answer(request: Any) -> Any:
    httpx: Any = importlib.import_module("httpx")
    scenario = _Served.scenario
    if scenario is None:  # pragma: no cover - only while a scenario is driven
        return httpx.Response(503, json={"error": {"message": "no scenario served"}})
    body = json.loads(request.content or b"{}")
    messages = body.get("messages") or []
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
        chunks: Any = testing.text_chunks(scenario.follow_up, "openai")
    elif not body.get("stream"):
        return httpx.Response(scenario.status, json=scenario.completion())
    else:
        chunks = testing.fresh_chunks(scenario)
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    content = "".join([*events, "data: [DONE]\n\n"]).encode()
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def _session() -> Any:
    if _Served.session is None:
        httpx: Any = importlib.import_module("httpx")
        _Served.session = httpx.AsyncClient(transport=httpx.MockTransport(_answer))
    return _Served.session


def _tool_names(scenario: testing.Scenario) -> list[str]:
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:  # a capture: the names the core assembles
        message = _assembled(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [name for name in names if name]


async def _ok(context: Any, arguments: str) -> str:
    return "ok"


def agent(scenario: testing.Scenario, **options: Any) -> Any:
    """An ``Agent`` on ``LitellmModel("openai/<scenario>")`` with a tool of each name its
    calls use (any object accepted). ``options`` go to ``LitellmModel`` (``base_url``,
    ``api_key``: by default the in-process answer's)."""
    agents: Any = importlib.import_module("agents")
    extension: Any = importlib.import_module("agents.extensions.models.litellm_model")
    settings = {"base_url": BASE_URL, "api_key": API_KEY, **options}
    model = extension.LitellmModel(model=f"openai/{scenario.name}", **settings)
    tools = [
        agents.FunctionTool(
            name=name,
            description=name,
            params_json_schema={"type": "object", "properties": {}},
            on_invoke_tool=_ok,
            strict_json_schema=False,
        )
        for name in _tool_names(scenario)
    ]
    return agents.Agent(name="streamfix", model=model, tools=tools)


async def run_streamed(agent: Any) -> Any:
    """``Runner.run_streamed`` (tracing off), every event read: the result, and the
    events."""
    agents: Any = importlib.import_module("agents")
    config = agents.RunConfig(tracing_disabled=True)
    result = agents.Runner.run_streamed(agent, PROMPT, run_config=config)
    events = [event async for event in result.stream_events()]
    return result, events


def read(ran: Any) -> testing.Outcome:
    """The first model response's calls, text, signatures and reasoning signatures."""
    result, _ = ran
    if not result.raw_responses:
        return testing.Outcome(error="no model response")
    calls, signed, text, kept = [], [], [], []
    for item in result.raw_responses[0].output:
        if item.type == "function_call":
            calls.append((item.name, testing.parse_arguments(item.arguments)))
            signed.append(bool(provider_data(item).get("thought_signature")))
        elif item.type == "message":
            text += [part.text for part in item.content if part.type == "output_text"]
        elif item.type == "reasoning" and item.encrypted_content:
            kept.append(item.encrypted_content)
    return testing.Outcome(
        tuple(calls), "".join(text), signatures=tuple(signed), reasoning_signatures=tuple(kept)
    )


def provider_data(item: Any) -> dict[str, Any]:
    """A ``function_call`` item's ``provider_data`` (where the SDK keeps a signature)."""
    data = getattr(item, "provider_data", None)
    if data is None:
        data = (getattr(item, "model_extra", None) or {}).get("provider_data")
    return data if isinstance(data, dict) else {}


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


def _wire_error(error: BaseException) -> BaseException | None:
    seen, current = 0, error
    while current is not None and seen < 8:
        if isinstance(current, StreamFixError) and not hasattr(current, "assembled"):
            return current
        current = current.__cause__ or current.__context__  # type: ignore[assignment]
        seen += 1
    return None


def raised(scenario: testing.Scenario, error: BaseException) -> testing.Outcome:
    """What the run raised, as the doctor counts it: where the wire refuses a shape it
    cannot repair (I3) with the right assembly on its error, that assembly."""
    wire = _wire_error(error)
    if (
        scenario.shape in testing.UNREPAIRABLE
        and isinstance(wire, MalformedToolCallError)
        and wire.message is not None
        and wire.message == _assembled(scenario)
    ):
        calls = tuple((call.name, call.parsed) for call in wire.message.tool_calls)
        return testing.Outcome(calls, wire.message.content or "")
    return testing.failure(error)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Runner.run_streamed`` on ``LitellmModel``."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    session, quiet = litellm.aclient_session, litellm.suppress_debug_info
    litellm.aclient_session, litellm.suppress_debug_info = _session(), True
    _Served.scenario = scenario
    try:
        import asyncio  # only once a scenario is driven

        ran = asyncio.run(run_streamed(agent(scenario)))
    except Exception as error:  # what the framework raised is the outcome
        return raised(scenario, error)
    finally:
        litellm.aclient_session, litellm.suppress_debug_info = session, quiet
        _Served.scenario = None
    outcome = read(ran)
    if scenario.reasoning_details and outcome.reasoning_signatures is not None:
        # no place for reasoning_details in the SDK's items (streamed or not)
        outcome = testing.Outcome(outcome.calls, outcome.text, signatures=outcome.signatures)
    return outcome


OPENAI_AGENTS_LITELLM_DRIVER = testing.Driver(
    "litellm",
    "openai-agents",
    "openai",
    "agents",
    drive,
    "Runner.run_streamed on LitellmModel (litellm wire)",
)
"""The ``openai-agents-litellm`` column (the ``litellm`` patch: the wire)."""
