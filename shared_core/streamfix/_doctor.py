"""``streamfix doctor``: the public shape corpus through every installed framework's real
streaming code, stock and patched.

Each framework has a *driver*: a function that runs one corpus scenario through that
framework's own streaming code (its real chunk types, its real aggregation) with the
model client replaced by one replaying the scenario's chunks, and reports what the
framework ended up with (:class:`Outcome`: the calls it would run, the text, the error it
surfaced). :func:`judge` compares an outcome with what the scenario must give.
:func:`run` drives every scenario through every installed framework twice: with the
framework as shipped (*stock*) and with its streamfix patch installed (*patched*).

Frameworks are imported lazily, inside their driver; a framework that is not installed is
reported as such, never an error. No network, no keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import importlib
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from types import SimpleNamespace
from typing import Any

from ._corpus import SCENARIOS, Dialect, Scenario, text_chunks
from ._errors import StreamFixError
from ._registry import install, installed, uninstall

__all__ = [
    "FRAMEWORKS",
    "Cell",
    "Framework",
    "Outcome",
    "Report",
    "judge",
    "outcome_dict",
    "run",
    "stock_and_patched",
]

_CRASHES = (KeyError, TypeError, IndexError, AttributeError, ValueError)


@dataclass(frozen=True)
class Outcome:
    """What a framework ended up with for one streamed response.

    ``calls`` are ``(name, arguments)`` of the calls it would run (``arguments`` the parsed
    object, or the raw text when it is not one JSON object); ``error`` is the failure it
    surfaced (an error response, or the text of the exception it raised), ``crash`` true
    when that was an unhandled low-level exception (``KeyError``, ``JSONDecodeError``...)
    rather than an error the framework reports. ``signatures`` is whether each call kept
    a thought signature, when the framework carries them (else ``None``).
    """

    calls: tuple[tuple[str, Any], ...] = ()
    text: str | None = None
    error: str | None = None
    crash: bool = False
    signatures: tuple[bool, ...] | None = None


@dataclass(frozen=True)
class Framework:
    """One framework the doctor can drive: its patch name, package, wire and driver."""

    name: str
    package: str
    dialect: Dialect
    module: str
    drive: Callable[[Scenario], Outcome]
    what: str

    def available(self) -> bool:
        """Whether the framework (and what its driver needs) is importable."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except (ImportError, ValueError):
            return False

    def version(self) -> str | None:
        try:
            return version(self.package)
        except PackageNotFoundError:
            return None


@dataclass(frozen=True)
class Cell:
    """One scenario through one framework: ``"ok"`` or ``"lost"`` stock and patched."""

    framework: str
    scenario: str
    shape: str
    stock: str
    stock_detail: str
    patched: str
    patched_detail: str

    def to_dict(self) -> dict[str, str]:
        return {
            "framework": self.framework,
            "scenario": self.scenario,
            "shape": self.shape,
            "stock": self.stock,
            "stock_detail": self.stock_detail,
            "patched": self.patched,
            "patched_detail": self.patched_detail,
        }


@dataclass
class Report:
    """Every cell of the matrix, and each framework's status."""

    cells: list[Cell] = field(default_factory=list)
    frameworks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every patched cell passes (the doctor's exit status)."""
        return all(cell.patched == "ok" for cell in self.cells) and not any(
            info["status"] == "patch failed" for info in self.frameworks.values()
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "frameworks": self.frameworks,
            "cells": [cell.to_dict() for cell in self.cells],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


# -- judging -----------------------------------------------------------------------------


def _args(text: Any) -> Any:
    """Arguments as the parsed object, or the raw value when not one JSON object."""
    if isinstance(text, dict):
        return text
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError):
        return text
    return parsed if isinstance(parsed, dict) else text


def judge(scenario: Scenario, outcome: Outcome) -> tuple[bool, str]:
    """Whether ``outcome`` is right for ``scenario``, and a short reason when it is not.

    - provider error (E5): the framework surfaces an error carrying the provider's text;
    - truncated arguments (E4): it reports the failure (not a crash) and runs no call
      with incomplete arguments;
    - otherwise: no error, exactly the expected calls (names and arguments, in order),
      the expected text where the framework reports it, and every expected thought
      signature kept where the framework carries them.
    """
    if scenario.error is not None:
        why = _judge_provider_error(scenario.error, outcome)
    elif scenario.truncated:
        why = _judge_truncated(outcome)
    else:
        why = _judge_complete(scenario, outcome)
    return not why, why


def _judge_provider_error(text: str, outcome: Outcome) -> str:
    if outcome.error is None:
        return "provider error swallowed"
    if text not in outcome.error:
        return f"provider's error text lost ({_short(outcome.error)})"
    return ""


def _judge_truncated(outcome: Outcome) -> str:
    broken = [name for name, args in outcome.calls if not isinstance(args, dict)]
    if broken:
        return f"incomplete call handed on: {broken[0]}"
    if outcome.error is None:
        return "truncated call dropped silently"
    return f"crash: {_short(outcome.error)}" if outcome.crash else ""


def _judge_complete(scenario: Scenario, outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"{'crash' if outcome.crash else 'error'}: {_short(outcome.error)}"
    expected = [(call["name"], call["arguments"]) for call in scenario.calls]
    if list(outcome.calls) != expected:
        return _calls_diff(expected, list(outcome.calls))
    if outcome.text is not None and outcome.text != scenario.text:
        return f"text {outcome.text!r}"
    if outcome.signatures is not None and scenario.signatures:
        wanted = tuple(sig is not None for sig in scenario.signatures)
        if any(w and not got for w, got in zip(wanted, outcome.signatures, strict=False)):
            return "thought signature dropped"
    return ""


def _calls_diff(expected: list[tuple[str, Any]], got: list[tuple[str, Any]]) -> str:
    if len(got) != len(expected):
        names = ", ".join(name for name, _ in got) or "none"
        return f"{len(got)} of {len(expected)} calls ({names})"
    for (name, args), (got_name, got_args) in zip(expected, got, strict=True):
        if name != got_name:
            return f"call {name} became {got_name}"
        if args != got_args:
            return f"{name} arguments {_short(json.dumps(got_args))}"
    return "calls differ"  # pragma: no cover - equal lists are handled by the caller


def _short(text: str, size: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= size else text[: size - 1] + "\u2026"


def _failure(error: BaseException) -> Outcome:
    crash = isinstance(error, _CRASHES) and not isinstance(error, StreamFixError)
    return Outcome(error=f"{type(error).__name__}: {error}", crash=crash)


def _chunks(scenario: Scenario) -> list[dict[str, Any]]:
    return [copy.deepcopy(chunk) for chunk in scenario.chunks]


def _litellm_body(body: dict[str, Any]) -> dict[str, Any]:
    """A chunk as litellm builds it: every tool-call entry has a ``function`` (litellm's
    ``ChatCompletionDeltaToolCall`` requires one; a signature-only delta gets ``{}``)."""
    for choice in body.get("choices") or []:
        for entry in (choice.get("delta") or {}).get("tool_calls") or []:
            entry.setdefault("function", {})
    return body


# -- google-adk: LiteLlm.generate_content_async(stream=True) -----------------------------


def drive_adk(scenario: Scenario) -> Outcome:
    """ADK's ``LiteLlm.generate_content_async(stream=True)`` with an ``llm_client`` that
    streams the scenario as litellm ``ModelResponseStream`` chunks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    lite_llm: Any = importlib.import_module("google.adk.models.lite_llm")
    llm_request: Any = importlib.import_module("google.adk.models.llm_request")
    genai_types: Any = importlib.import_module("google.genai.types")
    litellm_types: Any = importlib.import_module("litellm.types.utils")
    chunks = [litellm_types.ModelResponseStream(**_litellm_body(c)) for c in _chunks(scenario)]

    class _Client(lite_llm.LiteLLMClient):  # type: ignore[misc]
        async def acompletion(self, **kwargs: Any) -> Any:
            async def stream() -> Any:
                for chunk in chunks:
                    yield chunk

            return stream()

    llm = lite_llm.LiteLlm(model="openai/streamfix", llm_client=_Client())
    request = llm_request.LlmRequest(
        model="openai/streamfix",
        contents=[genai_types.Content(role="user", parts=[genai_types.Part.from_text(text="go")])],
        config=genai_types.GenerateContentConfig(),
    )

    async def collect() -> list[Any]:
        return [r async for r in llm.generate_content_async(request, stream=True)]

    try:
        responses = asyncio.run(collect())
    except Exception as error:  # what the framework raised is the result
        return _failure(error)
    # A signature counts as kept when the part carries what ADK's own non-streamed
    # conversion decodes from it (a value ADK cannot decode has nothing to keep).
    wanted = [
        lite_llm._extract_thought_signature_from_tool_call(
            {"extra_content": {"google": {"thought_signature": sig}}}
        )
        if sig
        else None
        for sig in scenario.signatures
    ]
    return _adk_outcome(responses, wanted)


def _adk_outcome(responses: list[Any], wanted: list[Any]) -> Outcome:
    """The calls, text and error of ADK's responses (final ones for calls and text)."""
    calls: list[tuple[str, Any]] = []
    signatures: list[bool] = []
    text = ""
    failure: str | None = None
    for response in responses:
        if response.error_code or response.error_message:
            failure = f"{response.error_code}: {response.error_message}"
        if response.partial:
            continue
        for part in (response.content.parts if response.content else None) or []:
            if part.function_call:
                calls.append((part.function_call.name, dict(part.function_call.args or {})))
                want = wanted[len(signatures)] if len(signatures) < len(wanted) else None
                signatures.append(want is None or part.thought_signature == want)
            elif part.text and not part.thought:
                text += part.text
    return Outcome(tuple(calls), text, failure, signatures=tuple(signatures))


def _openai_stream(bodies: list[dict[str, Any]]) -> Iterator[Any]:
    """The chunks as the openai SDK's ``Stream`` yields them: ``ChatCompletionChunk``
    built with ``construct`` (no validation); an event carrying ``error`` raises
    ``openai.APIError`` with the provider's message, as the SDK does."""
    openai: Any = importlib.import_module("openai")
    chunk_type: Any = importlib.import_module("openai.types.chat").ChatCompletionChunk
    httpx: Any = importlib.import_module("httpx")
    for body in bodies:
        error = body.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
            raise openai.APIError(message=str(message), request=request, body=error)
        yield chunk_type.construct(**body)


# -- smolagents: OpenAIModel.generate_stream + agglomerate_stream_deltas ------------------


def drive_smolagents(scenario: Scenario) -> Outcome:
    """smolagents' ``OpenAIModel.generate_stream`` over openai ``ChatCompletionChunk``
    objects, then ``smolagents.models.agglomerate_stream_deltas`` (what its agents run)."""
    models: Any = importlib.import_module("smolagents.models")
    chunks = _openai_stream(_chunks(scenario))
    model = models.OpenAIModel(model_id="streamfix", api_key="sk-streamfix-doctor")
    model.client = SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **_: chunks))
    )
    user = models.ChatMessage(
        role=models.MessageRole.USER, content=[{"type": "text", "text": "go"}]
    )
    try:
        deltas = list(model.generate_stream([user]))
        message = models.agglomerate_stream_deltas(deltas)
    except Exception as error:
        return _failure(error)
    calls = tuple(
        (call.function.name, _args(call.function.arguments)) for call in message.tool_calls or []
    )
    return Outcome(calls, message.content or "")


# -- shell_gpt: Handler.get_completion ----------------------------------------------------


@contextlib.contextmanager
def _sgpt_home() -> Iterator[None]:
    """shell_gpt writes its configuration (and asks for a key) when first imported: the
    first import happens with a throw-away home and a dummy key."""
    if "sgpt.handlers.handler" in sys.modules:
        yield
        return
    saved = {name: os.environ.get(name) for name in ("HOME", "OPENAI_API_KEY")}
    home = tempfile.mkdtemp(prefix="streamfix-doctor-sgpt-")
    os.environ["HOME"] = home
    os.environ.setdefault("OPENAI_API_KEY", "sk-streamfix-doctor")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def drive_sgpt(scenario: Scenario) -> Outcome:
    """shell_gpt's ``Handler.get_completion`` (the default handler) with its completion
    function streaming openai ``ChatCompletionChunk`` objects; tool functions record the
    calls they are run with."""
    with _sgpt_home():
        handler: Any = importlib.import_module("sgpt.handlers.handler")
        function: Any = importlib.import_module("sgpt.function")
        default: Any = importlib.import_module("sgpt.handlers.default_handler")
    responses = [_chunks(scenario)]
    ran: list[tuple[str, Any]] = []

    def completion(**_: Any) -> Iterator[Any]:
        bodies = responses.pop(0) if responses else list(text_chunks(scenario.follow_up, "openai"))
        return _openai_stream(bodies)

    def get_function(name: str) -> Callable[..., str]:
        def tool(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return "ok"

        return tool

    saved = {
        "completion": handler.completion,
        "use_litellm": handler.use_litellm,
        "additional_kwargs": handler.additional_kwargs,
        "get_function": handler.get_function,
    }
    saved_function = function.get_function
    handler.completion, handler.use_litellm, handler.additional_kwargs = completion, False, {}
    handler.get_function = function.get_function = get_function
    role = SimpleNamespace(name="ShellGPT", role="You are ShellGPT.")
    functions = [
        {"type": "function", "function": {"name": call["name"], "parameters": {}}}
        for call in scenario.calls
    ] or [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    messages = [{"role": "user", "content": "go"}]
    try:
        output = "".join(
            default.DefaultHandler(role, markdown=False).get_completion(
                model="streamfix",
                temperature=0.0,
                top_p=1.0,
                messages=messages,
                functions=functions,
                caching=False,
            )
        )
    except Exception as error:
        outcome = _failure(error)
        return Outcome(tuple(ran), error=outcome.error, crash=outcome.crash)
    finally:
        for name, value in saved.items():
            setattr(handler, name, value)
        function.get_function = saved_function
    reported = output if "not run" in output else None
    text = None if ran or reported else output
    return Outcome(tuple(ran), text, reported)


# -- litellm: ollama_chat's chunk parser, then stream_chunk_builder -----------------------


def drive_litellm(scenario: Scenario) -> Outcome:
    """litellm's ``ollama_chat`` NDJSON parser (``OllamaChatCompletionResponseIterator``)
    on the scenario's lines, then ``litellm.stream_chunk_builder`` (litellm's own
    assembling of a stream into one response)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm: Any = importlib.import_module("litellm")
    transformation: Any = importlib.import_module("litellm.llms.ollama.chat.transformation")
    parser = transformation.OllamaChatCompletionResponseIterator(
        streaming_response=iter(()), sync_stream=True
    )
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        chunks = [parser.chunk_parser(line) for line in _chunks(scenario)]
        response = litellm.stream_chunk_builder(chunks)
    except Exception as error:
        return _failure(error)
    finally:
        litellm.suppress_debug_info = quiet
    message = response.choices[0].message
    calls = tuple(
        (call.function.name, _args(call.function.arguments)) for call in message.tool_calls or []
    )
    return Outcome(calls, message.content or "")


FRAMEWORKS: dict[str, Framework] = {
    "adk": Framework(
        "adk",
        "google-adk",
        "openai",
        "google.adk",
        drive_adk,
        "LiteLlm.generate_content_async(stream=True)",
    ),
    "smolagents": Framework(
        "smolagents",
        "smolagents",
        "openai",
        "smolagents",
        drive_smolagents,
        "OpenAIModel.generate_stream + agglomerate_stream_deltas",
    ),
    "sgpt": Framework("sgpt", "shell-gpt", "openai", "sgpt", drive_sgpt, "Handler.get_completion"),
    "litellm": Framework(
        "litellm",
        "litellm",
        "ollama",
        "litellm",
        drive_litellm,
        "ollama_chat chunk_parser + stream_chunk_builder",
    ),
}
"""The frameworks the doctor drives, by patch name (``streamfix.install`` names)."""


# -- the matrix --------------------------------------------------------------------------


def _cell(
    framework: Framework,
    scenario: Scenario,
    stock: Outcome,
    patched: Outcome | None,
    patch_error: str | None,
) -> Cell:
    stock_ok, stock_why = judge(scenario, stock)
    if patched is None:
        patched_state, patched_why = "lost", f"patch failed: {patch_error}"
    else:
        ok, patched_why = judge(scenario, patched)
        patched_state = "ok" if ok else "lost"
    return Cell(
        framework.name,
        scenario.name,
        scenario.shape,
        "ok" if stock_ok else "lost",
        stock_why,
        patched_state,
        patched_why,
    )


def stock_and_patched(name: str, scenario: Scenario) -> tuple[Outcome, Outcome | None]:
    """One scenario through one framework, stock then patched (``None`` when the patch
    could not be installed). Patches active before are put back afterwards."""
    framework = FRAMEWORKS[name]
    before = installed()
    uninstall(name)
    try:
        stock = framework.drive(scenario)
        if name not in install(name):
            return stock, None
        return stock, framework.drive(scenario)
    finally:
        uninstall(name)
        if name in before:
            install(name)


def outcome_dict(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as plain JSON data."""
    if outcome is None:
        return None
    return {
        "calls": [{"name": name, "arguments": args} for name, args in outcome.calls],
        "text": outcome.text,
        "error": outcome.error,
        "crash": outcome.crash,
    }


def run(
    frameworks: list[str] | None = None, scenarios: dict[str, Scenario] | None = None
) -> Report:
    """Drive every scenario through every installed framework, stock and patched.

    Patches active before the run are put back afterwards.
    """
    corpus = dict(SCENARIOS) if scenarios is None else scenarios
    report = Report()
    before = installed()
    try:
        for name in frameworks or list(FRAMEWORKS):
            framework = FRAMEWORKS[name]
            info: dict[str, Any] = {"version": framework.version(), "drives": framework.what}
            report.frameworks[name] = info
            if not framework.available():
                info["status"] = "not installed"
                continue
            cases = [s for s in corpus.values() if s.dialect == framework.dialect]
            uninstall(name)
            stock = [framework.drive(scenario) for scenario in cases]
            patch_error = None
            if name in install(name):
                try:
                    patched: list[Outcome | None] = [framework.drive(s) for s in cases]
                finally:
                    uninstall(name)
                info["status"] = "patched"
            else:
                patch_error = f"streamfix.install({name!r}) failed (see the log)"
                patched = [None] * len(cases)
                info["status"] = "patch failed"
            report.cells.extend(
                _cell(framework, scenario, s, p, patch_error)
                for scenario, s, p in zip(cases, stock, patched, strict=True)
            )
    finally:
        if before:
            install(*before)
    return report
