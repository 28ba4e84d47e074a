"""``streamfix doctor``'s drivers for google-adk: a corpus scenario through
``LiteLlm.generate_content_async(stream=True)``, the model client replaced by one replaying
the scenario's chunks (``DRIVER``); a Gemini scenario of the J-M corpus through ADK's native
``Gemini.generate_content_async(stream=True)``, its google-genai client replaced by one
replaying the scenario's chunks as google-genai ``GenerateContentResponse`` objects
(``GEMINI_DRIVER``). google-adk (and litellm) are imported when a scenario is driven.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

from streamfix import testing

__all__ = ["DRIVER", "GEMINI_DRIVER", "drive", "drive_gemini", "live"]


def _litellm_body(body: dict[str, Any]) -> dict[str, Any]:
    """A chunk as litellm builds it: every tool-call entry has a ``function`` (litellm's
    ``ChatCompletionDeltaToolCall`` requires one; a signature-only delta gets ``{}``)."""
    for choice in body.get("choices") or []:
        for entry in (choice.get("delta") or {}).get("tool_calls") or []:
            entry.setdefault("function", {})
    return body


def drive(scenario: testing.Scenario) -> testing.Outcome:
    """ADK's ``LiteLlm.generate_content_async(stream=True)`` with an ``llm_client`` that
    streams the scenario as litellm ``ModelResponseStream`` chunks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    lite_llm: Any = importlib.import_module("google.adk.models.lite_llm")
    llm_request: Any = importlib.import_module("google.adk.models.llm_request")
    genai_types: Any = importlib.import_module("google.genai.types")
    litellm_types: Any = importlib.import_module("litellm.types.utils")
    chunks = [
        litellm_types.ModelResponseStream(**_litellm_body(c))
        for c in testing.fresh_chunks(scenario)
    ]

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
    return _responses(llm, request, True, wanted)


def _responses(llm: Any, request: Any, stream: bool, wanted: list[Any]) -> testing.Outcome:
    """``llm.generate_content_async(request, stream=stream)`` to its end: the outcome
    of every response it yielded (:func:`_adk_outcome`)."""

    async def collect() -> list[Any]:
        return [r async for r in llm.generate_content_async(request, stream=stream)]

    return testing.run_case(collect, lambda responses: _adk_outcome(responses, wanted))


def _adk_outcome(responses: list[Any], wanted: list[Any]) -> testing.Outcome:
    """The calls, text and error of ADK's responses (final ones for calls and text)."""
    calls: list[tuple[str, Any]] = []
    signatures: list[bool] = []
    text = ""
    error: str | None = None
    for response in responses:
        if response.error_code or response.error_message:
            error = f"{response.error_code}: {response.error_message}"
        if response.partial:
            continue
        for part in (response.content.parts if response.content else None) or []:
            if part.function_call:
                calls.append((part.function_call.name, dict(part.function_call.args or {})))
                want = wanted[len(signatures)] if len(signatures) < len(wanted) else None
                signatures.append(want is None or part.thought_signature == want)
            elif part.text and not part.thought:
                text += part.text
    return testing.Outcome(tuple(calls), text, error, signatures=tuple(signatures))


def live(target: testing.LiveTarget, case: testing.LiveCase, stream: bool) -> testing.Outcome:
    """The case sent to a live server by ADK's ``LiteLlm.generate_content_async``
    (``openai/<model>`` with ``api_base``, or ``ollama_chat/<model>``): the case's
    messages as ADK contents (system messages as the system instruction), its tools as
    function declarations (their JSON schema as given), its options as ``LiteLlm``
    arguments (what ADK passes on to litellm)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    lite_llm: Any = importlib.import_module("google.adk.models.lite_llm")
    llm_request: Any = importlib.import_module("google.adk.models.llm_request")
    types: Any = importlib.import_module("google.genai.types")
    request = testing.live_request(target, case)
    endpoint = testing.litellm_endpoint(target)
    options = {k: v for k, v in request.items() if k not in ("model", "messages", "tools")}
    llm = lite_llm.LiteLlm(**endpoint, **options)
    system = [m["content"] for m in case.messages if m["role"] == "system"]
    contents = [
        types.Content(
            role="model" if m["role"] == "assistant" else "user",
            parts=[types.Part.from_text(text=str(m["content"]))],
        )
        for m in case.messages
        if m["role"] != "system"
    ]
    declarations = [
        types.FunctionDeclaration(
            name=tool["function"]["name"],
            description=tool["function"].get("description", ""),
            parameters_json_schema=tool["function"].get("parameters"),
        )
        for tool in case.tools
    ]
    config = types.GenerateContentConfig(
        system_instruction="\n".join(system) or None,
        tools=[types.Tool(function_declarations=declarations)] if declarations else None,
    )
    adk_request = llm_request.LlmRequest(model=endpoint["model"], contents=contents, config=config)
    return _responses(llm, adk_request, stream, [])


DRIVER = testing.Driver(
    "adk",
    "google-adk",
    "openai",
    "google.adk",
    drive,
    "LiteLlm.generate_content_async(stream=True)",
    live=live,
    live_apis=("openai", "ollama"),
)
"""What ``streamfix doctor`` runs for google-adk (the ``DOCTOR`` of the ``adk`` patch)."""


def drive_gemini(scenario: testing.Scenario) -> testing.Outcome:
    """ADK's ``Gemini.generate_content_async(stream=True)`` with a google-genai client that
    streams the scenario's chunks as ``GenerateContentResponse`` objects (read from their
    JSON, as google-genai reads the wire)."""
    google_llm: Any = importlib.import_module("google.adk.models.google_llm")
    llm_request: Any = importlib.import_module("google.adk.models.llm_request")
    genai_types: Any = importlib.import_module("google.genai.types")
    responses = [
        genai_types.GenerateContentResponse.model_validate_json(json.dumps(chunk))
        for chunk in testing.fresh_chunks(scenario)
    ]

    class _Models:
        async def generate_content_stream(self, **kwargs: Any) -> Any:
            async def stream() -> Any:
                for response in responses:
                    yield response

            return stream()

    class _Client:
        vertexai = False
        aio = type("_Aio", (), {"models": _Models()})()

    class _Gemini(google_llm.Gemini):  # type: ignore[misc]
        @property
        def api_client(self) -> Any:
            return _Client()

    llm = _Gemini(model="streamfix")
    request = llm_request.LlmRequest(
        model="streamfix",
        contents=[genai_types.Content(role="user", parts=[genai_types.Part.from_text(text="go")])],
        config=genai_types.GenerateContentConfig(),
    )
    wanted = [_decoded(sig) for sig in scenario.signatures]
    return _responses(llm, request, True, wanted)


def _decoded(signature: str | None) -> bytes | None:
    """A part's ``thoughtSignature`` as google-genai decodes it (base64)."""
    import base64

    return base64.b64decode(signature) if signature else None


GEMINI_DRIVER = testing.Driver(
    "adk",
    "google-adk",
    "gemini",
    "google.adk",
    drive_gemini,
    "Gemini.generate_content_async(stream=True)",
)
"""What ``streamfix doctor`` runs for google-adk's native Gemini path (column
``adk-gemini``): the Gemini scenarios of the J-M corpus."""
