"""``streamfix doctor``'s ``crewai`` column: crewai's ``LLM(stream=True)`` on the litellm
path (``is_litellm=True``, ``openai/<scenario>``).

``LLM.call(prompt, tools=...)`` without ``available_functions`` (as crewai's agents call
it: they run the calls themselves): ``_handle_streaming_response`` reads
``litellm.completion(stream=True)`` (litellm's ``CustomStreamWrapper``, which the wire
repairs), accumulates tool-call deltas by ``index`` (the last name an index got, the
arguments joined) and returns the calls, or the text when there are none. The calls are
(name, arguments); the text is judged when ``call`` returns text (beside calls it returns
none, streamed or not). Patched is what a user installs: the litellm wire and this shim
(``streamfix.install("litellm", "crewai")``): the driver installs the wire for a run
whenever this patch is installed. litellm is given a real ``openai.OpenAI`` (its ``client``
argument) whose transport answers in-process with the scenario as SSE (as the replay
server does). crewai keeps no thought signature and no reasoning metadata on this path:
neither is judged. crewai (its telemetry off, its console listener out of the way) is
imported when a scenario is driven.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import streamfix
from streamfix import MalformedToolCallError, StreamFixError, testing

__all__ = ["DRIVER", "call", "declared_tools", "drive", "llm", "quiet", "read"]

BASE_URL = "http://streamfix.test/v1"
API_KEY = "sk-streamfix-doctor"
PROMPT = "What is the weather in Paris, and the time?"


def _http() -> Any:
    base: Any = importlib.import_module("openai._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _answer(scenario: testing.Scenario, request: Any) -> Any:
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


def declared_tools(scenario: testing.Scenario) -> list[dict[str, Any]]:
    """OpenAI function tools named as the scenario's calls (for a capture, the core's
    assembly of its chunks), each taking any object."""
    calls = [*scenario.calls, *scenario.partial_calls]
    names = dict.fromkeys(call["name"] for call in calls)
    if not calls:
        message = _assembled(scenario)
        names.update(dict.fromkeys(call.name for call in getattr(message, "tool_calls", ())))
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": {}}}
        for n in names
        if n
    ]


def llm(scenario: testing.Scenario, *, stream: bool = True, **options: Any) -> Any:
    """crewai's ``LLM`` on the litellm path for the scenario (``openai/<name>``).
    ``options`` go to ``LLM`` (``api_base``...; by default litellm gets an in-process
    ``openai.OpenAI`` as its ``client``)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    crewai: Any = importlib.import_module("crewai")
    settings: dict[str, Any] = {"api_key": API_KEY, **options}
    if "api_base" not in settings and "client" not in settings:
        openai: Any = importlib.import_module("openai")
        http = _http()
        transport = http.MockTransport(lambda request: _answer(scenario, request))
        settings["client"] = openai.OpenAI(
            api_key=API_KEY,
            base_url=BASE_URL,
            max_retries=0,
            http_client=http.Client(transport=transport),
        )
    return crewai.LLM(model=f"openai/{scenario.name}", is_litellm=True, stream=stream, **settings)


def call(model: Any, scenario: testing.Scenario, **options: Any) -> Any:
    """``LLM.call`` with the scenario's tools, no ``available_functions`` unless
    ``options`` give them: the calls (a list) or the text. Run in a context of its own:
    crewai keeps its open event scopes in a context variable, and a ``call`` that returns
    calls (streamed or not) never closes the one it opened (after 100 such calls in one
    context crewai raises ``StackDepthExceededError``)."""
    run = functools.partial(model.call, PROMPT, tools=declared_tools(scenario), **options)
    return contextvars.Context().run(run)


def read(result: Any) -> testing.Outcome:
    """The calls (name, arguments) ``call`` returned, or its text."""
    if isinstance(result, str):
        return testing.Outcome(text=result)
    calls = tuple(
        (entry.function.name, testing.parse_arguments(entry.function.arguments))
        for entry in result or ()
    )
    return testing.Outcome(calls)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """crewai's console listener (its streaming panels) out of the way while a scenario
    runs (``crewai_event_bus.scoped_handlers``: the handlers put back after, the events'
    handler threads waited for), crewai's and litellm's log lines kept off the output."""
    bus: Any = importlib.import_module("crewai.events.event_bus").crewai_event_bus
    root, litellm = logging.getLogger(), logging.getLogger("LiteLLM")
    level, handler = root.level, logging.NullHandler()
    root.setLevel(logging.CRITICAL)  # crewai logs through the root logger
    litellm.addHandler(handler)
    try:
        with bus.scoped_handlers():
            try:
                yield
            finally:
                bus.flush()
    finally:
        litellm.removeHandler(handler)
        root.setLevel(level)


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """The scenario through ``LLM(stream=True).call(prompt, tools=...)``; with this patch
    installed, on the repaired litellm wire."""
    wire = "crewai" in streamfix.installed() and "litellm" not in streamfix.installed()
    if wire:
        streamfix.install("litellm")
    try:
        with quiet():
            try:
                result = call(llm(scenario), scenario)
            except Exception as error:  # what crewai raised is the outcome
                return settled(scenario, error) or testing.failure(error)
        return read(result)
    finally:
        if wire:
            streamfix.uninstall("litellm")


def settled(scenario: testing.Scenario, error: BaseException) -> testing.Outcome | None:
    """A shape the wire cannot repair (``testing.UNREPAIRABLE``: I3) ends, by design, in
    the wire's error, the core's ``MalformedToolCallError`` among its causes: where that
    error's message is the right assembly, it is what the caller gets. ``None`` for any
    other error."""
    current: BaseException | None = error
    for _ in range(8):
        if current is None:
            return None
        if isinstance(current, StreamFixError) and not hasattr(current, "assembled"):
            break  # the core's own error (litellm's and crewai's carry it as a cause)
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
    calls = tuple((entry.name, entry.parsed) for entry in message.tool_calls)
    return testing.Outcome(calls, message.content or "")


def _assembled(scenario: testing.Scenario) -> Any:
    try:
        return streamfix.assemble(scenario.chunks)
    except StreamFixError as error:
        return error.message


DRIVER = testing.Driver(
    "crewai",
    "crewai",
    "openai",
    "crewai",
    drive,
    "LLM(stream=True).call(tools=...) on the litellm path (litellm wire + crewai shim)",
)
"""What ``streamfix doctor`` runs for crewai (the ``DOCTOR`` of its patch)."""
