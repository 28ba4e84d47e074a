"""litellm directly, ``ollama_chat/`` against the scripted Ollama rounds: the caller's own
five-round loop (stream, ``stream_chunk_builder``, run the tools, append the assistant
message and one tool result per call), sync, and async through an ``anyio`` task group
inside an async context manager for the out-of-memory script.

Stock litellm gives both calls of a round (one per NDJSON line) index 0, so
``stream_chunk_builder`` glues them into one call, named after the second, whose
arguments are two JSON values; the loop answers it with the decoding error (as agent
loops do) and round 2 fails in litellm itself, while it converts the round-2 messages
for Ollama (``json.loads`` of those arguments: ``Extra data``), before any request."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import litellm
import pytest
from conftest import QUESTION, ROUNDS, expected_ran, tool_result
from litellm.exceptions import MidStreamFallbackError
from support import report_stock_loss

from streamfix.testing import OOM_TEXT, ReplayServer

#: How stock litellm words an Ollama error line mid-stream (the known wording: reported when
#: it changes, ``support.report_stock_loss``).
OLLAMA_KEYERROR = "litellm.BadRequestError: Ollama_chatException - KeyError: 'message'"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {what}.",
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": "string"}},
                "required": [parameter],
            },
        },
    }
    for name, what, parameter in (("get_weather", "weather", "city"), ("get_time", "time", "zone"))
]
GLUED = '{"city": "Paris"}{"zone": "Europe/Paris"}'


@dataclass
class Loop:
    """One run of the loop: the rounds answered, the calls run (name, arguments), the
    final text, and the error that ended it (with the round it was raised in)."""

    messages: list[Any] = field(default_factory=lambda: [{"role": "user", "content": QUESTION}])
    rounds: int = 0
    calls: list[tuple[str, Any]] = field(default_factory=list)
    text: str = ""
    raised: BaseException | None = None
    raised_in: int = 0

    def take(self, chunks: list[Any]) -> bool:
        """One round's chunks: run its calls and answer them; False once it is text."""
        self.rounds += 1
        message = litellm.stream_chunk_builder(chunks, messages=self.messages).choices[0].message
        self.messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            self.text = message.content or ""
            return False
        for call in message.tool_calls:
            name, arguments = call.function.name, call.function.arguments
            self.calls.append((name, arguments))
            try:
                result = tool_result(name, json.loads(arguments))
            except (ValueError, KeyError) as error:  # the tool's error, for the model
                result = f"error: {error!r}"
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return True


def run_sync(server: ReplayServer, script: str) -> Loop:
    loop = Loop()
    while loop.raised is None and loop.rounds < 6:
        try:
            response = litellm.completion(
                model=f"ollama_chat/{script}",
                api_base=server.ollama_base_url,
                messages=loop.messages,
                tools=TOOLS,
                stream=True,
            )
            if not loop.take(list(response)):
                break
        except Exception as error:
            loop.raised, loop.raised_in = error, loop.rounds + 1
    return loop


@contextlib.asynccontextmanager
async def agent_session() -> AsyncIterator[anyio.abc.TaskGroup]:
    """What async agents wrap their loop in (an MCP session, a tool runner): a task group."""
    async with anyio.create_task_group() as group:
        yield group


def run_async(server: ReplayServer, script: str) -> Loop:
    loop = Loop()

    async def rounds() -> None:
        async with agent_session():
            while loop.rounds < 6:
                loop.raised_in = loop.rounds + 1
                response = await litellm.acompletion(
                    model=f"ollama_chat/{script}",
                    api_base=server.ollama_base_url,
                    messages=loop.messages,
                    tools=TOOLS,
                    stream=True,
                )
                if not loop.take([chunk async for chunk in response]):
                    break
        loop.raised_in = 0

    try:
        anyio.run(rounds)
    except BaseException as error:  # an ExceptionGroup from the task group
        loop.raised = error
    return loop


def shown(error: BaseException | None) -> BaseException | None:
    """The error the user reads: the one inside the task group's ExceptionGroup."""
    while len(getattr(error, "exceptions", ())) == 1:
        error = error.exceptions[0]  # type: ignore[union-attr]
    return error


@pytest.mark.parametrize("run", [run_sync, run_async], ids=["sync", "async"])
def test_stock_glues_round_1_and_fails_sending_round_2(
    streamfix_server: ReplayServer, run: Any
) -> None:
    before = len(streamfix_server.requests)
    loop = run(streamfix_server, "rounds-ollama")
    assert loop.calls == [("get_time", GLUED)]  # round 1: one call, two values glued
    assert loop.rounds == 1 and loop.raised_in == 2
    error = shown(loop.raised)
    assert isinstance(error, litellm.APIConnectionError)
    known = "litellm.APIConnectionError: Extra data: line 1 column 18 (char 17)"
    report_stock_loss("litellm rounds-ollama round 2", str(error), known)
    assert len(streamfix_server.requests) - before == 1  # round 2 never left litellm


@pytest.mark.parametrize("run", [run_sync, run_async], ids=["sync", "async"])
def test_patched_completes_five_rounds(
    streamfix_server: ReplayServer, litellm_patched: None, run: Any
) -> None:
    before = len(streamfix_server.requests)
    loop = run(streamfix_server, "rounds-ollama")
    assert loop.raised is None and loop.raised_in == 0
    assert loop.rounds == 5 and loop.text == ROUNDS["rounds-ollama"].final
    assert [(n, json.loads(a)) for n, a in loop.calls] == expected_ran("rounds-ollama")
    results = [m["content"] for m in loop.messages if m["role"] == "tool"]
    assert results == [tool_result(n, a) for n, a in expected_ran("rounds-ollama")]
    assert len(streamfix_server.requests) - before == 5


def test_stock_out_of_memory_in_round_4_is_a_keyerror(streamfix_server: ReplayServer) -> None:
    """Stock: rounds 1 to 3 (one call each) run; round 4's mid-stream ``{"error": ...}``
    line reaches the user, through the task group, as litellm's ``KeyError: 'message'``
    dressed as a 400 ``BadRequestError`` (a client error), Ollama's text only inside the
    dump of the line."""
    loop = run_async(streamfix_server, "rounds-ollama-oom")
    assert loop.rounds == 3 and loop.raised_in == 4
    assert [n for n, _ in loop.calls] == ["get_weather"] * 3
    assert type(loop.raised).__name__ == "ExceptionGroup"
    error = shown(loop.raised)
    assert isinstance(error, litellm.BadRequestError) and error.status_code == 400
    report_stock_loss("litellm rounds-ollama-oom round 4", str(error), OLLAMA_KEYERROR)


def test_patched_out_of_memory_in_round_4_is_ollamas_message(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    """Patched: through the same task group and context manager the user sees Ollama's
    message as a server error (litellm's MidStreamFallbackError around the typed
    InternalServerError), not a KeyError nor ``generator didn't stop after athrow()``."""
    loop = run_async(streamfix_server, "rounds-ollama-oom")
    assert loop.rounds == 3 and loop.raised_in == 4
    assert [(n, json.loads(a)) for n, a in loop.calls] == expected_ran("rounds-ollama-oom")
    assert type(loop.raised).__name__ == "ExceptionGroup"
    error = shown(loop.raised)
    assert isinstance(error, MidStreamFallbackError) and error.status_code == 500
    assert isinstance(error.original_exception, litellm.InternalServerError)
    assert OOM_TEXT in str(error.original_exception)
    assert "KeyError" not in str(error) and "athrow" not in str(error)
