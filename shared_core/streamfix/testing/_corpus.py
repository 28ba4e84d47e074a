"""The public shape corpus: wire shapes of docs/wire-shapes.md as replayable data.

Each :class:`Scenario` is one response cut into chunks exactly as a provider sends it,
together with what assembling it must give and the same response as a non-streamed
server would send it (``completion()``), so streamed and non-streamed results can be
compared. ``dialect`` says which wire it speaks: ``"openai"`` (``chat.completion.chunk``
dicts, served as SSE) or ``"ollama"`` (``/api/chat`` NDJSON objects).

>>> import streamfix
>>> scenario = streamfix.scenarios()["b1-interleaved"]
>>> [call["name"] for call in scenario.calls]
['get_weather', 'get_time']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["OOM_TEXT", "SCENARIOS", "Dialect", "Scenario", "scenarios", "text_chunks"]

#: The dialect a scenario streams in: the chat dialects (the main corpus), then the other
#: wire dialects (wire-shapes J-M, :mod:`._dialect_corpus`).
Dialect = Literal["openai", "ollama", "responses", "anthropic", "gemini", "bedrock"]

_CREATED = 1_700_000_000
_OLLAMA_AT = "2025-01-01T00:00:00.000000Z"
OOM_TEXT = "model requires more system memory (16.0 GiB) than is available (8.0 GiB)"


@dataclass(frozen=True)
class Scenario:
    """One response as a provider streams it, and what it must assemble to.

    ``chunks`` are the stream's events, one per SSE event or NDJSON line, in order.
    ``calls`` are the assembled calls (``{"id", "name", "arguments"}``, arguments as the
    parsed object; ``id`` ``None`` when the stream never gave one), ``text`` the assembled
    text. ``error`` is the provider's own text when the stream ends in an error payload
    (E5); ``truncated`` is true when the arguments end mid-value (E4): then ``calls`` are
    the complete ones and ``partial_calls`` the cut ones (``arguments`` the raw text as
    received, which is also what the non-streamed response carries). ``follow_up`` is the
    text answered on the next turn, once the request carries tool results.
    ``reasoning_details`` (F5) and ``thinking_blocks`` (F6) are the provider's reasoning
    metadata as the non-streamed message carries it.
    """

    name: str
    shape: str
    description: str
    dialect: Dialect
    chunks: tuple[dict[str, Any], ...]
    calls: tuple[dict[str, Any], ...] = ()
    text: str = ""
    finish_reason: str = "tool_calls"
    error: str | None = None
    truncated: bool = False
    partial_calls: tuple[dict[str, Any], ...] = ()
    signatures: tuple[str | None, ...] = ()
    follow_up: str = "done"
    reasoning_details: tuple[dict[str, Any], ...] = ()
    thinking_blocks: tuple[dict[str, Any], ...] = ()
    model: str = field(default="", compare=False)

    def reasoning_signatures(self) -> tuple[str, ...]:
        """The signatures in the reasoning metadata (F5, F6): what must be sent back."""
        entries = (*self.reasoning_details, *self.thinking_blocks)
        return tuple(entry["signature"] for entry in entries if entry.get("signature"))

    @property
    def status(self) -> int:
        """The HTTP status of the non-streamed response (500 when the provider failed)."""
        return 500 if self.error is not None else 200

    def completion(self) -> dict[str, Any]:
        """The same response, non-streamed: ``chat.completion`` JSON or Ollama's one object.

        For an error scenario, the error body the server answers with status 500.
        """
        if self.error is not None:
            if self.dialect == "ollama":
                return {"error": self.error}
            return {"error": {"message": self.error, "type": "server_error", "code": 500}}
        if self.dialect == "ollama":
            return _ollama_completion(self)
        return _openai_completion(self)


def _openai_completion(scenario: Scenario) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": scenario.text or None}
    if scenario.calls:
        signatures = scenario.signatures or (None,) * len(scenario.calls)
        message["tool_calls"] = [
            _openai_call(call, json.dumps(call["arguments"]), signature)
            for call, signature in zip(scenario.calls, signatures, strict=True)
        ] + [_openai_call(call, call["arguments"], None) for call in scenario.partial_calls]
    for key in ("reasoning_details", "thinking_blocks"):
        if getattr(scenario, key):
            message[key] = [dict(entry) for entry in getattr(scenario, key)]
    return {
        "id": "chatcmpl-streamfix",
        "object": "chat.completion",
        "created": _CREATED,
        "model": scenario.name,
        "choices": [{"index": 0, "message": message, "finish_reason": scenario.finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _openai_call(call: dict[str, Any], arguments: str, signature: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": call["id"],
        "type": "function",
        "function": {"name": call["name"], "arguments": arguments},
    }
    if signature is not None:
        out["extra_content"] = {"google": {"thought_signature": signature}}
    return out


def _ollama_completion(scenario: Scenario) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": scenario.text}
    if scenario.calls:
        message["tool_calls"] = [
            {"function": {"name": c["name"], "arguments": c["arguments"]}} for c in scenario.calls
        ]
    return {
        "model": scenario.name,
        "created_at": _OLLAMA_AT,
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 5,
    }


# -- builders ---------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish_reason: str | None = None, **top: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-streamfix",
        "object": "chat.completion.chunk",
        "created": _CREATED,
        "model": "streamfix",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    body.update(top)
    return body


def _tc(
    index: int | None,
    id: str | None = None,
    name: str | None = None,
    args: str | None = None,
    signature: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One tool-call entry; ``signature``: a Gemini thought signature, where Gemini's
    OpenAI-compatible endpoint puts it (``extra_content.google.thought_signature``)."""
    entry: dict[str, Any] = {} if index is None else {"index": index}
    if id is not None:
        entry["id"] = id
        entry["type"] = "function"
    if signature is not None:
        entry["extra_content"] = {"google": {"thought_signature": signature}}
    entry.update(extra)
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    if function:
        entry["function"] = function
    return entry


def _calls(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(calls)}


def _role() -> dict[str, Any]:
    return _chunk({"role": "assistant", "content": ""})


def _ollama(message: dict[str, Any] | None = None, *, done: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {
        "model": "streamfix",
        "created_at": _OLLAMA_AT,
        "message": {"role": "assistant", "content": "", **(message or {})},
        "done": done,
    }
    if done:
        line.update(done_reason="stop", prompt_eval_count=10, eval_count=5)
    return line


def _ollama_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}}


def text_chunks(text: str, dialect: Dialect, pieces: int = 3) -> tuple[dict[str, Any], ...]:
    """A plain text answer cut into ``pieces`` events, ending the response."""
    size = max(1, -(-len(text) // pieces))
    parts = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    if dialect == "ollama":
        return (*(_ollama({"content": part}) for part in parts), _ollama(done=True))
    return (
        _role(),
        *(_chunk({"content": part}) for part in parts),
        _chunk({}, "stop"),
    )


# -- the corpus -------------------------------------------------------------------------

_WEATHER = {"city": "Paris"}
_TIME = {"zone": "Europe/Paris"}
# Thought signatures are base64, as Gemini sends them (ADK decodes them to bytes).
_CALL_A = {"id": "call_a", "name": "get_weather", "arguments": _WEATHER}
_CALL_B = {"id": "call_b", "name": "get_time", "arguments": _TIME}
_BOTH = (_CALL_A, _CALL_B)
"""What the two-call scenarios assemble to: the weather in Paris and the time there."""
_SIG_A = "c2lnbmF0dXJlLW9mLWNhbGxfYQ=="
_SIG_B = "c2lnbmF0dXJlLW9mLWNhbGxfYg=="
_D3 = {"text": 'caf\u00e9 "quoted" \\ back\r\nnew \U0001f600 \u4e2d'}


def _openai_scenarios() -> list[Scenario]:
    w, t = json.dumps(_WEATHER), json.dumps(_TIME)
    d3 = json.dumps(_D3)  # ASCII escapes: \u00e9, \ud83d\ude00, \r\n, \"
    cut = sorted([d3.index("\\u00e9") + 3, d3.index("\\ud83d") + 7, d3.index("\\r") + 1])
    d3_parts = [d3[: cut[0]], d3[cut[0] : cut[1]], d3[cut[1] : cut[2]], d3[cut[2] :]]
    return [
        Scenario(
            "text",
            "text",
            "plain text, no calls",
            "openai",
            text_chunks("Hello from streamfix.", "openai"),
            text="Hello from streamfix.",
            finish_reason="stop",
        ),
        Scenario(
            "a1-one-chunk",
            "A1",
            "two complete calls and finish_reason in one delta",
            "openai",
            (
                _role(),
                _chunk(
                    _calls(_tc(0, "call_a", "get_weather", w), _tc(1, "call_b", "get_time", t)),
                    "tool_calls",
                ),
            ),
            calls=_BOTH,
        ),
        Scenario(
            "b1-interleaved",
            "B1",
            "fragments of calls 0 and 1 interleaved",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", ""))),
                _chunk(_calls(_tc(1, "call_b", "get_time", ""))),
                _chunk(_calls(_tc(0, args=w[:7]))),
                _chunk(_calls(_tc(1, args=t[:9]))),
                _chunk(_calls(_tc(0, args=w[7:]))),
                _chunk(_calls(_tc(1, args=t[9:]))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
        ),
        Scenario(
            "b2-same-index",
            "B2",
            "index 0 reused for two calls with different ids",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w))),
                _chunk(_calls(_tc(0, "call_b", "get_time", t))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
        ),
        Scenario(
            "b3-same-index",
            "B3",
            "index 0 reused, no ids, one complete value each (Ollama)",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, name="get_weather", args=w[:5]))),
                _chunk(_calls(_tc(0, args=w[5:]))),
                _chunk(_calls(_tc(0, name="get_time", args=t))),
                _chunk({}, "stop"),
            ),
            calls=(
                {"id": None, "name": "get_weather", "arguments": _WEATHER},
                {"id": None, "name": "get_time", "arguments": _TIME},
            ),
            finish_reason="stop",
        ),
        Scenario(
            "b6-no-index",
            "B6",
            "no index on any fragment: routed by id",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(None, "call_a", "get_weather", w[:6]))),
                _chunk(_calls(_tc(None, args=w[6:]))),
                _chunk(_calls(_tc(None, "call_b", "get_time", t[:4]))),
                _chunk(_calls(_tc(None, args=t[4:]))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
        ),
        Scenario(
            "c1-repeated-names",
            "C1",
            "id, type and name repeated on every fragment",
            "openai",
            tuple(
                [_role()]
                + [
                    _chunk(_calls(_tc(0, "call_a", "read_file", part)))
                    for part in ('{"pa', 'th": "/e', 'tc/hosts"}')
                ]
                + [_chunk({}, "tool_calls")]
            ),
            calls=({"id": "call_a", "name": "read_file", "arguments": {"path": "/etc/hosts"}},),
        ),
        Scenario(
            "d3-escapes-split",
            "D3",
            "escapes, a surrogate pair and \\r\\n split",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "write_note", ""))),
                *(_chunk(_calls(_tc(0, args=part))) for part in d3_parts),
                _chunk({}, "tool_calls"),
            ),
            calls=({"id": "call_a", "name": "write_note", "arguments": _D3},),
        ),
        Scenario(
            "g1-placeholders",
            "G1",
            'continuation fragments carry id "", name "" and type ""',
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w[:5], type="function"))),
                _chunk(_calls(_tc(0, "", "", w[5:], type=""))),
                _chunk(_calls(_tc(1, "call_b", "get_time", t[:4], type="function"))),
                _chunk(_calls(_tc(1, "", "", t[4:], type=""))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
        ),
        Scenario(
            "g3-shared-id",
            "G3",
            "two calls at different indices share one id (DeepSeek, GLM, Kimi)",
            "openai",
            (
                _chunk(_calls(_tc(0, "call_a", "get_weather", w))),
                _chunk(_calls(_tc(1, "call_a", "get_time", t))),
                _chunk({}, "tool_calls"),
            ),
            calls=(_CALL_A, {**_CALL_B, "id": "call_a"}),
        ),
        Scenario(
            "h1-legacy-function-call",
            "H1",
            "the legacy delta.function_call dialect, finish_reason function_call",
            "openai",
            (
                _chunk(
                    {"role": "assistant", "function_call": {"name": "get_weather", "arguments": ""}}
                ),
                _chunk({"function_call": {"arguments": w[:6]}}),
                _chunk({"function_call": {"arguments": w[6:]}}),
                _chunk({}, "function_call"),
            ),
            calls=({**_CALL_A, "id": "call_chatcmpl-streamfix"},),
        ),
        Scenario(
            "i1-double-encoded",
            "I1",
            "the arguments are a JSON string holding the object (vLLM's hermes parser)",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", json.dumps(w)[:6]))),
                _chunk(_calls(_tc(0, args=json.dumps(w)[6:]))),
                _chunk({}, "tool_calls"),
            ),
            calls=(_CALL_A,),
        ),
        Scenario(
            "i3-restarted",
            "I3",
            "an unfinished prefix of the arguments, then the whole object again",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", '{"location": "Pa'))),
                _chunk(_calls(_tc(0, args=w))),
                _chunk({}, "tool_calls"),
            ),
            calls=(_CALL_A,),
        ),
        Scenario(
            "e1-stop",
            "E1",
            "calls end with finish_reason stop",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w[:3]))),
                _chunk(_calls(_tc(0, args=w[3:]))),
                _chunk({}, "stop"),
            ),
            calls=(_CALL_A,),
            finish_reason="stop",
        ),
        Scenario(
            "e4-truncated",
            "E4",
            "finish_reason length in the middle of the arguments",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w))),
                _chunk(_calls(_tc(1, "call_b", "get_time", '{"zone": "Eur'))),
                _chunk({}, "length"),
            ),
            calls=(_CALL_A,),
            partial_calls=({"id": "call_b", "name": "get_time", "arguments": '{"zone": "Eur'},),
            finish_reason="length",
            truncated=True,
        ),
        Scenario(
            "e5-error",
            "E5",
            "an error object and finish_reason error mid-stream",
            "openai",
            (
                _role(),
                _chunk({"content": "Let me check"}),
                _chunk({}, "error", error={"message": "upstream overloaded", "code": 502}),
            ),
            text="Let me check",
            finish_reason="error",
            error="upstream overloaded",
        ),
        Scenario(
            "f1-signature",
            "F1",
            "Gemini thought signatures on the delta naming each call",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w, signature=_SIG_A))),
                _chunk(_calls(_tc(1, "call_b", "get_time", t, signature=_SIG_B))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
            signatures=(_SIG_A, _SIG_B),
        ),
        Scenario(
            "f2-late-signature",
            "F2",
            "a signature-only delta after its call, another between",
            "openai",
            (
                _role(),
                _chunk(_calls(_tc(0, "call_a", "get_weather"))),
                _chunk(_calls(_tc(0, args=w))),
                _chunk(_calls(_tc(1, "call_b", "get_time", t))),
                _chunk(_calls(_tc(0, signature=_SIG_A))),
                _chunk({}, "tool_calls"),
            ),
            calls=_BOTH,
            signatures=(_SIG_A, None),
        ),
        Scenario(
            "f5-reasoning-details",
            "F5",
            "signed reasoning as a gateway's reasoning_details entries, then a call",
            "openai",
            (
                _role(),
                _chunk({"reasoning": "Checking", "reasoning_details": [_detail("Checking")]}),
                _chunk({"reasoning": " first.", "reasoning_details": [_detail(" first.")]}),
                _chunk({"reasoning_details": [_detail(signature=_THINKING_SIG)]}),
                _chunk(_calls(_tc(0, "call_a", "get_weather", w))),
                _chunk({}, "tool_calls"),
            ),
            calls=(_CALL_A,),
            reasoning_details=(_detail("Checking first.", signature=_THINKING_SIG),),
        ),
        Scenario(
            "f6-thinking-blocks",
            "F6",
            "Anthropic thinking through litellm: text pieces, the signature on its own piece",
            "openai",
            (
                _role(),
                _chunk(_thinking("Let me", reasoning_content="Let me")),
                _chunk(_thinking(" look.", reasoning_content=" look.")),
                _chunk(_thinking("", signature=_THINKING_SIG)),
                _chunk(_calls(_tc(0, "call_b", "get_time", t))),
                _chunk({}, "tool_calls"),
            ),
            calls=(_CALL_B,),
            thinking_blocks=(
                {"type": "thinking", "thinking": "Let me look.", "signature": _THINKING_SIG},
            ),
        ),
    ]


_THINKING_SIG = "RXJVQkNrWUlCUmdDSWtCemFXZHVaV1E="  # base64, as Anthropic signs thinking


def _detail(text: str = "", **more: str) -> dict[str, Any]:
    """One ``reasoning_details`` piece (F5) of entry 0, as OpenRouter streams them."""
    entry: dict[str, Any] = {"type": "reasoning.text", "format": "anthropic-claude-v1"}
    entry.update({"text": text} if text else {}, index=0, **more)
    return entry


def _thinking(text: str, signature: str | None = None, **delta: str) -> dict[str, Any]:
    """A delta with one ``thinking_blocks`` piece (F6), as litellm streams Anthropic's."""
    block: dict[str, Any] = {"type": "thinking", "thinking": text}
    if signature is not None:
        block["signature"] = signature
    return {**delta, "thinking_blocks": [block]}


def _ollama_scenarios() -> list[Scenario]:
    weather, time_ = _ollama_call("get_weather", _WEATHER), _ollama_call("get_time", _TIME)
    both = (
        {"id": None, "name": "get_weather", "arguments": _WEATHER},
        {"id": None, "name": "get_time", "arguments": _TIME},
    )
    return [
        Scenario(
            "ollama-text",
            "text",
            "plain text over NDJSON",
            "ollama",
            text_chunks("Hello from streamfix.", "ollama"),
            text="Hello from streamfix.",
            finish_reason="stop",
        ),
        Scenario(
            "ollama-calls-one-message",
            "A1",
            "two calls in one NDJSON message",
            "ollama",
            (_ollama({"tool_calls": [weather, time_]}), _ollama(done=True)),
            calls=both,
        ),
        Scenario(
            "ollama-call-per-line",
            "B3",
            "one call per NDJSON line, no index, no id",
            "ollama",
            (
                _ollama({"tool_calls": [weather]}),
                _ollama({"tool_calls": [time_]}),
                _ollama(done=True),
            ),
            calls=both,
        ),
        Scenario(
            "ollama-oom-error",
            "E5",
            "a mid-stream {'error': ...} line with no message key",
            "ollama",
            (_ollama({"content": "Let me"}), {"error": OOM_TEXT}),
            text="Let me",
            finish_reason="error",
            error=OOM_TEXT,
        ),
    ]


# -- framework scenarios (issue 6): the trap shapes with the tools the e2e agents use ----

_COMMANDS = ("ls -la", "pwd", 'echo "done"')
_SIGNATURE = "c2lnLWZvci1nZXRfd2VhdGhlcg=="  # base64, as Gemini sends thought signatures


def _framework_scenarios() -> list[Scenario]:
    w, t = json.dumps(_WEATHER), json.dumps(_TIME)
    commands = [json.dumps({"shell_command": c}) for c in _COMMANDS]
    three: list[dict[str, Any]] = [_role()]
    for i, arguments in enumerate(commands):  # each call at its own index, in 3 fragments
        three.append(_chunk(_calls(_tc(i, f"call_{i}", "execute_shell_command", ""))))
        size = -(-len(arguments) // 3)
        three += [
            _chunk(_calls(_tc(i, args=arguments[j : j + size])))
            for j in range(0, len(arguments), size)
        ]
    three.append(_chunk({}, "tool_calls"))
    return [
        Scenario(
            "b1-three-commands",
            "B1",
            "three shell-command calls, one after another, each at"
            " its own index (shell_gpt's multi-call issue)",
            "openai",
            tuple(three),
            calls=tuple(
                {
                    "id": f"call_{i}",
                    "name": "execute_shell_command",
                    "arguments": {"shell_command": c},
                }
                for i, c in enumerate(_COMMANDS)
            ),
        ),
        Scenario(
            "a1-signature",
            "A1",
            "two complete calls, finish_reason and a Gemini thought"
            " signature on the first call, all in one delta (adk-python#7004)",
            "openai",
            (
                _role(),
                _chunk(
                    _calls(
                        _tc(0, "call_a", "get_weather", w, signature=_SIGNATURE),
                        _tc(1, "call_b", "get_time", t),
                    ),
                    "tool_calls",
                ),
            ),
            calls=_BOTH,
            signatures=(_SIGNATURE, None),
        ),
    ]


SCENARIOS: Mapping[str, Scenario] = MappingProxyType(
    {s.name: s for s in (*_openai_scenarios(), *_ollama_scenarios(), *_framework_scenarios())}
)
"""Every scenario of the corpus by name (read-only)."""


def scenarios(dialect: Dialect | None = None) -> dict[str, Scenario]:
    """The corpus by scenario name, optionally only one dialect's scenarios."""
    return {n: s for n, s in SCENARIOS.items() if dialect is None or s.dialect == dialect}
