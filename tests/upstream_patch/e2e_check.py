"""The manual end-to-end check of an upstream patch: the framework, as installed (stock,
or patched with ``docs/upstream/<framework>.patch``), over real HTTP against this
project's replay server, no shim installed.

    python tests/upstream_patch/e2e_check.py smolagents

Prints the scenario, what the tools received and the step's recorded calls, for the
streamed run and the non-streamed one. Run it in the ``upstream_patch`` session's venv
(patched) and in a stock venv, and compare.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from streamfix.testing import ReplayServer

__all__ = ["adk_check", "litellm_builder_check", "litellm_ollama_check", "main"]
__all__ += ["litellm_signatures_check", "litellm_stream_errors_check", "sgpt_check"]
__all__ += ["smolagents_check", "smolagents_generate_stream_check"]

QUESTION = "What is the weather in Paris, and the time there?"


def _smolagents_run(server: ReplayServer, client: str, model_id: str, stream: bool) -> None:
    from smolagents import LiteLLMModel, OpenAIServerModel, ToolCallingAgent, tool

    ran: list[tuple[str, str]] = []
    lock = threading.Lock()  # smolagents runs parallel calls in threads

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city's name.
        """
        with lock:
            ran.append(("get_weather", city))
        return f"sunny in {city}"

    @tool
    def get_time(zone: str) -> str:
        """The time in a time zone.

        Args:
            zone: the time zone.
        """
        with lock:
            ran.append(("get_time", zone))
        return f"14:00 in {zone}"

    model: Any
    if client == "openai":
        model = OpenAIServerModel(
            model_id=model_id, api_base=server.openai_base_url, api_key="sk-x"
        )
    else:
        base = server.ollama_base_url if model_id.startswith("ollama") else server.openai_base_url
        model = LiteLLMModel(model_id=model_id, api_base=base, api_key="sk-x")
    agent = ToolCallingAgent(
        tools=[get_weather, get_time], model=model, stream_outputs=stream, max_steps=1,
        verbosity_level=0,
    )  # fmt: skip
    try:
        agent.run(QUESTION)
    except Exception as error:  # what the agent raises, as the user sees it
        said = " ".join(str(error).split())[:160]
        cause = type(error.__cause__).__name__
        print(f"  {client} {model_id} stream={stream}: {type(error).__name__}: {said}")
        print(f"    cause: {cause}; tools ran {sorted(ran)}")
        return
    step = agent.memory.steps[1]
    calls = [(c.name, c.arguments) for c in step.tool_calls or []]
    errors = f"; error {step.error}" if step.error else ""
    print(f"  {client} {model_id} stream={stream}: tools ran {sorted(ran)}; calls {calls}{errors}")


def smolagents_check() -> None:
    import smolagents

    print(f"smolagents {smolagents.__version__} from {smolagents.__file__}")
    with ReplayServer() as server:
        # b2: the parallel calls at one index with their own ids that smolagents-1 fixes (b3,
        # the id-less ones, is left out of the series: it stays glued patched as stock).
        for client, model_id in (("openai", "b2-same-index"), ("litellm", "openai/b2-same-index")):
            for stream in (True, False):
                _smolagents_run(server, client, model_id, stream)


def _two_choices() -> Any:
    """E7, n = 2: both choices call a tool, their chunks interleaved (choice 0: Paris)."""
    import streamfix.testing

    base = {"id": "chatcmpl-n2", "object": "chat.completion.chunk", "model": "n2"}

    def event(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": index, "delta": delta, "finish_reason": finish}
        return {**base, "choices": [choice]}

    def call(call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
        function = {"name": name, "arguments": arguments} if name else {"arguments": arguments}
        entry = {"index": 0, "id": call_id, "type": "function"} if call_id else {"index": 0}
        return {"tool_calls": [{**entry, "function": function}]}

    chunks = (
        event(0, {"role": "assistant", "content": "Checking."}),
        event(1, {"role": "assistant", "content": "Looking."}),
        event(0, call("call_a", "get_weather", '{"city": ')),
        event(1, call("call_b", "get_time", '{"zone": ')),
        event(0, call(None, None, '"Paris"}')),
        event(1, call(None, None, '"Europe/Paris"}')),
        event(0, {}, "tool_calls"),
        event(1, {}, "tool_calls"),
    )
    paris = {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}}
    return streamfix.testing.Scenario(
        "e7-two-choices", "E7", "n = 2, the choices interleaved", "openai", chunks,
        calls=(paris,), text="Checking.",
    )  # fmt: skip


def _finish_error() -> Any:
    """E5 as an OpenAI-compatible server may end a stream: ``finish_reason: "error"``
    after a partial call, no error object."""
    import streamfix.testing

    base = {"id": "chatcmpl-fe", "object": "chat.completion.chunk", "model": "fe"}
    partial = {"index": 0, "id": "call_a", "type": "function"}
    partial["function"] = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    chunks = (
        {
            **base,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me check"}}],
        },
        {**base, "choices": [{"index": 0, "delta": {"tool_calls": [partial]}}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}]},
    )
    return streamfix.testing.Scenario(
        "e5-finish-error", "E5", "finish_reason error, no error object", "openai", chunks,
        text="Let me check", finish_reason="error", error="finish_reason 'error'",
    )  # fmt: skip


#: The shapes smolagents-2/-3/-4 (generate_stream) fix, by client: the openai client
#: (OpenAIServerModel) and litellm's (LiteLLMModel, ``openai/``).
GENERATE_STREAM_RUNS = (
    ("openai", "e7-two-choices"),
    ("litellm", "openai/e7-two-choices"),
    ("openai", "e5-finish-error"),
    ("openai", "e5-error"),
    ("litellm", "openai/e5-error"),
    ("openai", "h1-legacy-function-call"),
    ("litellm", "openai/h1-legacy-function-call"),
)


def smolagents_generate_stream_check() -> None:
    """The second smolagents patch: n = 2, errors in the stream, the legacy dialect."""
    import smolagents

    import streamfix.testing

    print(f"smolagents {smolagents.__version__} from {smolagents.__file__}")
    corpus = streamfix.testing.scenarios("openai")
    scenarios = {"e7-two-choices": _two_choices(), "e5-finish-error": _finish_error()}
    scenarios.update({name: corpus[name] for name in ("e5-error", "h1-legacy-function-call")})
    with ReplayServer(scenarios=scenarios) as server:
        for client, model_id in GENERATE_STREAM_RUNS:
            for stream in (True, False):
                _smolagents_run(server, client, model_id, stream)


SGPT_FUNCTION = '''
import os

from pydantic import BaseModel, Field


class Function(BaseModel):
    """Records the shell command it would run (runs nothing)."""

    shell_command: str = Field(..., description="Shell command to execute.")

    @classmethod
    def execute(cls, shell_command: str) -> str:
        with open(os.environ["RECORD"], "a", encoding="utf-8") as out:
            out.write(shell_command + "\\n")
        return f"ran: {shell_command}"

    @classmethod
    def openai_schema(cls):
        schema = cls.model_json_schema()
        return {
            "type": "function",
            "function": {
                "name": "execute_shell_command",
                "description": "Executes a shell command.",
                "parameters": {
                    "type": "object",
                    "properties": schema["properties"],
                    "required": schema["required"],
                },
            },
        }
'''


def sgpt_check() -> None:
    """``python -m sgpt --functions`` in a fresh process, ``HOME`` of its own, against the
    replay server's ``b1-three-commands`` (three parallel ``execute_shell_command`` calls)."""
    import importlib.metadata
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    print(f"shell-gpt {importlib.metadata.version('shell-gpt')}")
    with ReplayServer() as server, tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        (home / "functions").mkdir()
        (home / "functions" / "execute_shell_command.py").write_text(SGPT_FUNCTION)
        env = {
            **os.environ,
            "HOME": folder,
            "API_BASE_URL": server.openai_base_url,
            "DEFAULT_MODEL": "b1-three-commands",
            "OPENAI_FUNCTIONS_PATH": str(home / "functions"),
            "PRETTIFY_MARKDOWN": "false",
            "SHOW_FUNCTIONS_OUTPUT": "true",
            "RECORD": str(home / "ran.txt"),
        }
        command = [sys.executable, "-m", "sgpt", "--no-cache", "--functions", "What is here?"]
        print("$ sgpt --no-cache --functions 'What is here?'")
        done = subprocess.run(
            command, env=env, cwd=folder, capture_output=True, text=True, timeout=120, check=False
        )
        print(done.stdout.rstrip())
        print("\n".join(done.stderr.rstrip().splitlines()[-3:]))
        record = home / "ran.txt"
        ran = record.read_text().splitlines() if record.exists() else []
        print(f"exit code {done.returncode}; the tool ran for: {ran}")
        print(f"requests to the server: {len(server.requests)}")


def litellm_ollama_check() -> None:
    """``litellm.completion(model="ollama_chat/...", stream=True)`` against the replay
    server's Ollama ``/api/chat``: one call per NDJSON line, then an out-of-memory line."""
    import importlib.metadata

    import litellm

    print(f"litellm {importlib.metadata.version('litellm')}")
    user = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
    with ReplayServer() as server:
        model = "ollama_chat/ollama-call-per-line"
        chunks = list(
            litellm.completion(
                model=model, messages=user, api_base=server.ollama_base_url, stream=True
            )
        )
        indices = [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []]
        built = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls or []
        print(f"  {model}: tool-call indices {indices}")
        print(f"  stream_chunk_builder: {[(c.function.name, c.function.arguments) for c in built]}")
        model = "ollama_chat/ollama-oom-error"
        try:
            for _ in litellm.completion(
                model=model, messages=user, api_base=server.ollama_base_url, stream=True
            ):
                pass
        except Exception as error:  # what litellm raises, printed as the user sees it
            print(
                f"  {model}: {type(error).__name__} (status {getattr(error, 'status_code', None)})"
            )
            print(f"    {str(error)[:160]}")


BUILDER_SCENARIOS = (
    "b2-same-index",
    "b3-same-index",
    "i3-restarted",
    "h1-legacy-function-call",
    "e4-truncated",
)


def litellm_builder_check() -> None:
    """``litellm.completion(model="openai/...", stream=True)`` against the replay server's
    OpenAI-compatible endpoint, the chunks built back with ``litellm.stream_chunk_builder``:
    the calls it returns (or what it raises), beside ``litellm.completion`` non-streamed."""
    import importlib.metadata

    import litellm

    print(f"litellm {importlib.metadata.version('litellm')}")
    user = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
    with ReplayServer() as server:
        for name in BUILDER_SCENARIOS:
            options: dict[str, Any] = {
                "model": f"openai/{name}",
                "messages": user,
                "api_base": server.openai_base_url,
                "api_key": "sk-x",
            }
            chunks = list(litellm.completion(**options, stream=True))
            try:
                choice = litellm.stream_chunk_builder(chunks, messages=user).choices[0]
            except Exception as error:  # what litellm raises, printed as the user sees it
                print(f"  {name}: stream_chunk_builder raised {type(error).__name__}")
                print(f"    {str(error)[:160]}")
                continue
            whole = litellm.completion(**options).choices[0]
            print(f"  {name}: stream_chunk_builder {_calls(choice)} {choice.finish_reason}")
            pad = " " * len(name)
            print(f"  {pad}  non-streamed         {_calls(whole)} {whole.finish_reason}")


def _calls(choice: Any) -> list[tuple[str, str]]:
    return [(c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]


def litellm_signatures_check() -> None:
    """``litellm.completion(model="openai/f2-late-signature", stream=True)`` against the
    replay server: the tool-call entries the stream hands on (index, signature), the calls
    ``litellm.stream_chunk_builder`` builds with their signatures, beside non-streamed."""
    import importlib.metadata

    import litellm

    print(f"litellm {importlib.metadata.version('litellm')}")
    user = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
    with ReplayServer() as server:
        options: dict[str, Any] = {
            "model": "openai/f2-late-signature",
            "messages": user,
            "api_base": server.openai_base_url,
            "api_key": "sk-x",
        }
        chunks = list(litellm.completion(**options, stream=True))
        entries = [e for k in chunks if k.choices for e in k.choices[0].delta.tool_calls or []]
        streamed = [(e.index, e.function.name, _signature(e)) for e in entries]
        print(f"  f2-late-signature: streamed entries     {streamed}")
        built = litellm.stream_chunk_builder(chunks, messages=user).choices[0]
        whole = litellm.completion(**options).choices[0]
        for label, choice in (("stream_chunk_builder", built), ("non-streamed        ", whole)):
            calls = [(c.function.name, _signature(c)) for c in choice.message.tool_calls or []]
            print(f"                     {label}  {calls} {choice.finish_reason}")


def _signature(call: Any) -> Any:
    extra = getattr(call, "extra_content", None) or {}
    return extra.get("google", {}).get("thought_signature")


def _groq_error_event() -> Any:
    """Groq's in-stream error: text, then an event with only an error object (status 400)."""
    import streamfix.testing

    text = "Tool choice is required, but model did not call a tool"
    base = {"id": "chatcmpl-groq", "object": "chat.completion.chunk", "model": "groq"}
    role = {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    said = {**base, "choices": [{"index": 0, "delta": {"content": "maybe"}}]}
    error = {"message": text, "type": "invalid_request_error", "status_code": 400}
    return streamfix.testing.Scenario(
        "groq-error-event", "E5", "Groq: an error event after text", "openai",
        (role, said, {"error": error}), text="maybe", finish_reason="error", error=text,
    )  # fmt: skip


def litellm_stream_errors_check() -> None:
    """``litellm.completion(model="openai/...", stream=True)`` against the replay server
    for two in-stream errors (Groq's 400 event, the corpus's ``e5-error`` 502 chunk): what
    the iteration raises, and the provider's exception inside it."""
    import importlib.metadata

    import litellm

    import streamfix.testing

    print(f"litellm {importlib.metadata.version('litellm')}")
    user = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
    scenarios = {"groq-error-event": _groq_error_event()}
    scenarios["e5-error"] = streamfix.testing.scenarios("openai")["e5-error"]
    with ReplayServer(scenarios=scenarios) as server:
        for name in scenarios:
            stream = litellm.completion(
                model=f"openai/{name}", messages=user, api_base=server.openai_base_url,
                api_key="sk-x", stream=True,
            )  # fmt: skip
            try:
                for _ in stream:
                    pass
            except Exception as error:  # what litellm raises, printed as the user sees it
                inner = getattr(error, "original_exception", None) or error
                print(f"  {name}: {type(error).__name__} (status {error.status_code})")
                print(f"    inside: {type(inner).__name__}: {str(inner)[:120]}")


#: The replay server's scenarios the google-adk series fixes (and two it already got right).
ADK_SCENARIOS = (
    "c1-repeated-names",
    "g1-placeholders",
    "g3-shared-id",
    "h1-legacy-function-call",
    "i1-double-encoded",
    "i3-restarted",
    "e5-error",
    "e4-truncated",
    "a1-signature",
    "b2-same-index",
)


def _adk_final(server: ReplayServer, scenario: str) -> str:
    """google-adk's ``LiteLlm`` (litellm's OpenAI client over HTTP) streaming one scenario:
    its final responses, as calls (id, name, arguments, whether signed) or error codes."""
    import asyncio

    from google.adk.models.lite_llm import LiteLlm
    from google.adk.models.llm_request import LlmRequest
    from google.genai import types

    llm = LiteLlm(model=f"openai/{scenario}", api_base=server.openai_base_url, api_key="sk-x")
    request = LlmRequest(
        contents=[types.Content(role="user", parts=[types.Part.from_text(text=QUESTION)])],
        config=types.GenerateContentConfig(),
    )

    async def finals() -> list[Any]:
        stream = llm.generate_content_async(request, stream=True)
        return [r async for r in stream if not r.partial]

    try:
        responses = asyncio.run(finals())
    except Exception as error:  # what ADK raises, as the user sees it
        return f"raised {type(error).__name__}: {str(error)[:120]}"
    out = []
    for response in responses:
        parts = (response.content.parts if response.content else None) or []
        calls = [
            (
                p.function_call.id,
                p.function_call.name,
                p.function_call.args,
                bool(p.thought_signature),
            )
            for p in parts
            if p.function_call
        ]
        text = "".join(p.text or "" for p in parts if not p.thought)
        error = f" error {response.error_code}: {(response.error_message or '')[:90]}"
        out.append(
            f"calls {calls}"
            + (f" text {text!r}" if text else "")
            + (error if response.error_code else "")
        )
    return " | ".join(out)


def adk_check() -> None:
    """google-adk's streamed ``LiteLlm`` against the replay server's OpenAI endpoint."""
    import importlib.metadata

    print(f"google-adk {importlib.metadata.version('google-adk')}")
    with ReplayServer() as server:
        for scenario in ADK_SCENARIOS:
            print(f"  {scenario}: {_adk_final(server, scenario)}")


CHECKS: dict[str, Callable[[], None]] = {
    "adk": adk_check,
    "smolagents": smolagents_check,
    "smolagents_generate_stream": smolagents_generate_stream_check,
    "sgpt": sgpt_check,
    "litellm_ollama": litellm_ollama_check,
    "litellm_builder": litellm_builder_check,
    "litellm_stream_errors": litellm_stream_errors_check,
    "litellm_signatures": litellm_signatures_check,
}


def main(argv: list[str]) -> int:
    (framework,) = argv
    import streamfix

    assert not streamfix.installed(), "the check runs the framework as installed, no shim"
    CHECKS[framework]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
