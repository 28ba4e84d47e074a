"""``streamfix doctor``'s ``strands-litellm`` column: the Strands Agents SDK's
``LiteLLMModel`` (``strands.models.litellm``) on the litellm wire.

An ``Agent`` with a tool of each name the scenario's calls use (any object accepted), on
``LiteLLMModel`` (``openai/<scenario>``: litellm's OpenAI-compatible provider), run with
``Agent.stream_async`` and its events read to the end: the tools run and the next request
gets the scenario's follow-up text. ``LiteLLMModel._handle_streaming_response`` reads
``litellm.acompletion(stream=True)`` (litellm's ``CustomStreamWrapper``, which the wire
repairs), keys tool-call deltas by ``index`` (name and id those of the index's first delta,
an id generated when it has none, the arguments joined) and stops reading at the first
``finish_reason``; the event loop parses each call's arguments when its block ends (``{}``
when they are not JSON). The calls are the ``toolUse`` blocks of the first assistant
message (name, input, ``toolUseId``), the text its ``text`` blocks; strands keeps no thought
signature and no reasoning metadata from litellm, streamed or not: neither is judged.

litellm is given a real ``openai.AsyncOpenAI`` (its ``client`` argument) whose transport
answers in-process with the scenario as SSE, as the replay server does. strands and
litellm are imported when a scenario is driven.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
from collections.abc import Iterator
from typing import Any

from streamfix import MalformedToolCallError, StreamFixError, assemble, testing

__all__ = [
    "STRANDS_DRIVER",
    "agent",
    "drive",
    "openai_client",
    "read",
    "run_streamed",
    "settled",
]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"
PROMPT = "What is the weather in Paris, and the time?"


def _http() -> Any:
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _answer(scenario: testing.Scenario, request: Any) -> Any:
    """The scenario as an OpenAI-compatible server answers it: streamed as SSE, its
    follow-up text once the request carries a tool result, its completion unstreamed."""
    http = _http()
    body = json.loads(request.content or b"{}")
    messages = body.get("messages") or []
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
        chunks: Any = testing.text_chunks(scenario.follow_up, "openai")
    elif not body.get("stream"):
        return http.Response(scenario.status, json=scenario.completion())
    else:
        chunks = testing.fresh_chunks(scenario)
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    content = "".join([*events, "data: [DONE]\n\n"]).encode()
    return http.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def openai_client(scenario: testing.Scenario) -> Any:
    """An ``openai.AsyncOpenAI`` answering every request in-process with the scenario."""
    openai: Any = importlib.import_module("openai")
    http = _http()
    transport = http.MockTransport(lambda request: _answer(scenario, request))
    return openai.AsyncOpenAI(
        api_key=API_KEY,
        base_url=BASE_URL,
        max_retries=0,
        http_client=http.AsyncClient(transport=transport),
    )


def _names(scenario: testing.Scenario) -> list[str]:
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        message = _assembled(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [name for name in names if name]


def _done(tool_use: Any, **_: Any) -> dict[str, Any]:
    return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": "ok"}]}


def agent(scenario: testing.Scenario, **client_args: Any) -> Any:
    """An ``Agent`` on ``LiteLLMModel`` (``openai/<scenario>``, no console output), with a
    tool of each name the scenario's calls use. ``client_args`` go to litellm
    (``api_base``...; by default the in-process client)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    strands: Any = importlib.import_module("strands")
    models: Any = importlib.import_module("strands.models.litellm")
    tools: Any = importlib.import_module("strands.tools.tools")
    settings = {"api_key": API_KEY, **client_args}
    if "api_base" not in settings:
        settings["client"] = openai_client(scenario)
    model = models.LiteLLMModel(client_args=settings, model_id=f"openai/{scenario.name}")
    schema = {"json": {"type": "object"}}
    declared = [
        tools.PythonAgentTool(n, {"name": n, "description": n, "inputSchema": schema}, _done)
        for n in _names(scenario)
    ]
    return strands.Agent(model=model, tools=declared, callback_handler=None)


async def run_streamed(agent: Any) -> Any:
    """``Agent.stream_async`` read to its end: the agent (its ``messages``), and the
    events."""
    events = [event async for event in agent.stream_async(PROMPT)]
    return agent, events


def read(ran: Any) -> testing.Outcome:
    """The first assistant message's calls (name, input as strands parsed it) and text."""
    agent, _ = ran
    message = next((m for m in agent.messages if m["role"] == "assistant"), None)
    if message is None:
        return testing.Outcome(error="no model response")
    calls, text = [], []
    for block in message["content"]:
        if "toolUse" in block:
            calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
        elif "text" in block:
            text.append(block["text"])
    return testing.Outcome(tuple(calls), "".join(text))


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """strands' and litellm's warnings kept off the doctor's output while a scenario
    runs (a handler of their own, removed after); litellm without its banner."""
    litellm: Any = importlib.import_module("litellm")
    loggers = [logging.getLogger(name) for name in ("strands", "LiteLLM")]
    handler = logging.NullHandler()
    kept = [(logger, logger.propagate) for logger in loggers]
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        litellm.suppress_debug_info = quiet
        for logger, propagate in kept:
            logger.propagate = propagate
            logger.removeHandler(handler)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``Agent.stream_async`` on ``LiteLLMModel``."""
    with _quiet():
        try:
            ran = asyncio.run(run_streamed(agent(scenario)))
        except Exception as error:  # what strands raised is the outcome
            return settled(scenario, error) or testing.failure(error)
    return read(ran)


def settled(scenario: testing.Scenario, error: BaseException) -> testing.Outcome | None:
    """A shape the wire cannot repair (``testing.UNREPAIRABLE``: I3) ends, by design, in
    the wire's error, the core's ``MalformedToolCallError`` its cause: where that error's
    message is the right assembly, it is what the caller gets (as ``repair_check`` counts
    it). ``None`` for any other error."""
    current: BaseException | None = error
    for _ in range(8):
        if current is None:
            return None
        if isinstance(current, StreamFixError) and not hasattr(current, "assembled"):
            break  # the core's own error (litellm's carries it as its cause)
        current = current.__cause__ or current.__context__
    else:
        return None
    message = getattr(current, "message", None)
    if (
        scenario.shape not in testing.UNREPAIRABLE
        or not isinstance(current, MalformedToolCallError)
        or message is None
        or message != _assembled(scenario)
    ):
        return None
    calls = tuple((call.name, call.parsed) for call in message.tool_calls)
    return testing.Outcome(calls, message.content or "")


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


STRANDS_DRIVER = testing.Driver(
    "litellm",
    "strands-agents",
    "openai",
    "strands",
    drive,
    "Agent.stream_async on LiteLLMModel (litellm wire)",
)
"""The ``strands-litellm`` column (the ``litellm`` patch: the wire)."""
