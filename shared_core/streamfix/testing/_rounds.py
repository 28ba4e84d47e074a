"""Scripted multi-round tool loops for the replay server (issue 17).

A :class:`Rounds` script is a named agent loop of five model turns. Round ``N``'s answer
is one :class:`~streamfix.testing.Scenario` (a chosen wire shape: two same-index calls on
Ollama's ``/api/chat``, two calls with Gemini thought signatures, ...); the last round
answers with final text (or, for smolagents, a ``final_answer`` call). The server keys
the round by counting the assistant messages in the request (stateless, so concurrent
clients never interfere), and before answering round ``N + 1`` it VALIDATES the request:
every earlier assistant message must carry exactly that round's calls (names, parsed
arguments, ids where the script has them, each call's thought signature echoed back in
``extra_content.google.thought_signature`` where the script requires it, as Gemini's
OpenAI-compatible endpoint does), each followed by a tool result for each call. A
mismatch is a :class:`RoundMismatch`, which the server answers with HTTP 400 and its text
(as Gemini does: ``Function call is missing a thought_signature``), so a wrong call, a
glued argument or a lost signature in round ``N`` makes round ``N + 1`` fail visibly.

Besides the structured ``tool_calls``, an assistant message in smolagents' text form
(the step's text, ``Calling tools:`` and the calls' Python repr, then an ``Observation:``
message) is read too: smolagents' ``ToolCallingAgent`` sends its history that way.
"""

from __future__ import annotations

import ast
import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._corpus import (
    OOM_TEXT,
    Dialect,
    Scenario,
    _calls,
    _chunk,
    _ollama,
    _ollama_call,
    _role,
    _tc,
    text_chunks,
)

__all__ = ["ROUNDS", "RoundMismatch", "Rounds", "rounds"]

_CITIES = ("Paris", "Tokyo", "Lima", "Oslo", "Cairo")
_ZONES = ("Europe/Paris", "Asia/Tokyo", "America/Lima", "Europe/Oslo", "Africa/Cairo")
_COMMANDS = (
    ("ls", "pwd", "whoami"),
    ("date", "uname", "id"),
    ("df", "du", "env"),
    ("ps", "w", "who"),
)
_FINAL = "All five rounds done."
_SMOLAGENTS_PREFIX = "Calling tools:\n"


class RoundMismatch(ValueError):
    """A request that does not carry back what the script's earlier rounds streamed.

    ``round`` is the round whose calls (or tool results) are wrong; the text says how.
    """

    def __init__(self, script: str, round: int, message: str) -> None:
        super().__init__(f"{script}: round {round}: {message}")
        self.script = script
        self.round = round


@dataclass(frozen=True)
class Rounds:
    """A scripted multi-round loop: ``rounds[N - 1]`` is what round ``N`` streams.

    ``signed``: every call must come back with its thought signature
    (``extra_content.google.thought_signature``). ``final`` is the last round's text.
    """

    name: str
    description: str
    dialect: Dialect
    rounds: tuple[Scenario, ...]
    signed: bool = False
    final: str = _FINAL

    def round_of(self, messages: Sequence[Any]) -> int:
        """The round a request asks for: one more than its assistant messages."""
        return 1 + sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")

    def answer(self, messages: Any) -> Scenario:
        """Round ``N``'s scenario, once the request's history is validated.

        Raises :class:`RoundMismatch` when an earlier round came back wrong (or the
        request asks past the last round)."""
        history = messages if isinstance(messages, list) else []
        number = self.round_of(history)
        if number > len(self.rounds):
            raise RoundMismatch(
                self.name, number, f"the script ends after round {len(self.rounds)}"
            )
        assistants = [
            i for i, m in enumerate(history) if isinstance(m, dict) and m.get("role") == "assistant"
        ]
        for k, at in enumerate(assistants, start=1):
            following = assistants[k] if k < len(assistants) else len(history)
            self._check(k, history[at], history[at + 1 : following])
        return self.rounds[number - 1]

    def history(self, number: int) -> list[dict[str, Any]]:
        """The messages a right client sends to ask for round ``number``: the question,
        then each earlier round's calls as an assistant message (signatures echoed where
        the script signs) and one tool result per call."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Five rounds, please."}]
        for round_ in self.rounds[: number - 1]:
            calls, results = [], []
            for call, signature in zip(
                round_.calls, round_.signatures or (None,) * len(round_.calls), strict=True
            ):
                result = f"{call['name']} ran"
                if self.dialect == "ollama":
                    calls.append(
                        {"function": {"name": call["name"], "arguments": call["arguments"]}}
                    )
                    results.append({"role": "tool", "content": result, "tool_name": call["name"]})
                    continue
                entry: dict[str, Any] = {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
                }
                if signature is not None:
                    entry["extra_content"] = {"google": {"thought_signature": signature}}
                calls.append(entry)
                results.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            messages += [{"role": "assistant", "content": "", "tool_calls": calls}, *results]
        return messages

    def _check(self, number: int, message: dict[str, Any], results: list[Any]) -> None:
        expected = self.rounds[number - 1].calls
        sent, textual = _sent_calls(self.name, number, message)
        names = [c["name"] for c in sent]
        if names != [c["name"] for c in expected]:
            wanted = [c["name"] for c in expected]
            raise RoundMismatch(self.name, number, f"expected the calls {wanted}, got {names}")
        for position, (got, want) in enumerate(zip(sent, expected, strict=True)):
            label = f"call {want['name']!r} at position {position}"
            if got["arguments"] != want["arguments"]:
                raise RoundMismatch(
                    self.name,
                    number,
                    f"{label} has the arguments {got['arguments']!r},"
                    f" expected {want['arguments']!r}",
                )
            if want["id"] is not None and got["id"] != want["id"]:
                raise RoundMismatch(
                    self.name, number, f"{label} has the id {got['id']!r}, expected {want['id']!r}"
                )
        if self.signed:
            for position, (got, signature) in enumerate(
                zip(sent, self.rounds[number - 1].signatures, strict=True)
            ):
                if got["signature"] != signature:
                    what = "is missing a" if got["signature"] is None else "has the wrong"
                    raise RoundMismatch(
                        self.name,
                        number,
                        f"Function call {what} thought_signature in functionCall parts"
                        f" (call {got['name']!r} at position {position})",
                    )
        _check_results(self.name, number, sent, textual, results)


def _sent_calls(script: str, number: int, message: dict[str, Any]) -> tuple[list[Any], bool]:
    """The calls an assistant message carries back: ``{"id", "name", "arguments",
    "signature"}`` each (arguments parsed), and whether they came in smolagents' text."""
    raw = message.get("tool_calls")
    textual = False
    if not raw:
        content = message.get("content")
        if isinstance(content, list):  # content parts: their text
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        at = content.find(_SMOLAGENTS_PREFIX) if isinstance(content, str) else -1
        if isinstance(content, str) and at >= 0:  # after the step's text, if any
            try:
                raw = ast.literal_eval(content[at + len(_SMOLAGENTS_PREFIX) :])
            except (ValueError, SyntaxError) as error:
                raise RoundMismatch(script, number, f"unreadable calls in {content!r}") from error
            textual = True
    calls = []
    for call in raw if isinstance(raw, list) else []:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError as error:
                raise RoundMismatch(
                    script,
                    number,
                    f"call {function.get('name')!r} has arguments that are not one JSON"
                    f" value: {arguments!r} ({error})",
                ) from error
        google = (call.get("extra_content") or {}).get("google") or {}
        calls.append(
            {
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": arguments,
                "signature": google.get("thought_signature"),
            }
        )
    return calls, textual


def _check_results(
    script: str, number: int, sent: list[Any], textual: bool, results: list[Any]
) -> None:
    """A tool result for each call: a ``tool`` message per call id (per call when the
    calls have no ids, as on Ollama); after smolagents' text form, its observation."""
    if not sent:
        return
    if textual:
        if not any(isinstance(m, dict) and m.get("role") != "assistant" for m in results):
            raise RoundMismatch(script, number, "no observation after the calls")
        return
    tools = [m for m in results if isinstance(m, dict) and m.get("role") == "tool"]
    ids = [c["id"] for c in sent if c["id"]]
    if ids:
        answered = {m.get("tool_call_id") for m in tools}
        missing = [i for i in ids if i not in answered]
        if missing:
            raise RoundMismatch(script, number, f"no tool result for the call ids {missing}")
    elif len(tools) < len(sent):
        raise RoundMismatch(script, number, f"{len(sent)} calls but {len(tools)} tool results")


# -- the scripts --------------------------------------------------------------------------


def _signature(number: int, which: str) -> str:
    return base64.b64encode(f"signature-of-round-{number}-call-{which}".encode()).decode()


def _pair(number: int, *, ids: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Round ``number``'s two calls: the weather in one city and the time in one zone."""
    return (
        {
            "id": f"call_{number}a" if ids else None,
            "name": "get_weather",
            "arguments": {"city": _CITIES[number - 1]},
        },
        {
            "id": f"call_{number}b" if ids else None,
            "name": "get_time",
            "arguments": {"zone": _ZONES[number - 1]},
        },
    )


def _final(name: str, dialect: Dialect) -> Scenario:
    return Scenario(
        name,
        "text",
        "the final answer",
        dialect,
        text_chunks(_FINAL, dialect),
        text=_FINAL,
        finish_reason="stop",
    )


def _with_calls(
    name: str,
    shape: str,
    description: str,
    chunks: Sequence[dict[str, Any]],
    calls: Sequence[dict[str, Any]],
    signatures: Sequence[str] = (),
) -> Scenario:
    """A round that streams ``calls``: Ollama lines as given, or after OpenAI's role chunk."""
    dialect: Dialect = "openai" if chunks[0].get("object") == "chat.completion.chunk" else "ollama"
    head = (_role(),) if dialect == "openai" else ()
    return Scenario(
        name,
        shape,
        description,
        dialect,
        (*head, *chunks),
        calls=tuple(calls),
        signatures=tuple(signatures),
    )


def _ollama_lines(calls: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One call per NDJSON line, then the done line."""
    lines = [_ollama({"tool_calls": [_ollama_call(c["name"], c["arguments"])]}) for c in calls]
    return [*lines, _ollama(done=True)]


def _ollama_round(name: str, number: int) -> Scenario:
    """Two calls, one per NDJSON line (stock litellm numbers both index 0)."""
    calls = _pair(number, ids=False)
    return _with_calls(
        name, "B3", f"round {number}: one call per line", _ollama_lines(calls), calls
    )


def _oom_script(name: str, number: int) -> Scenario:
    """Rounds 1 to 3: one call each (no same-index trap before the error), then E5."""
    if number < 4:
        call = _pair(number, ids=False)[:1]
        return _with_calls(name, "A1", f"round {number}: one call", _ollama_lines(call), call)
    return Scenario(
        name,
        "E5",
        f"round {number}: Ollama runs out of memory mid-stream",
        "ollama",
        (_ollama({"content": "Let me"}), {"error": OOM_TEXT}),
        text="Let me",
        finish_reason="error",
        error=OOM_TEXT,
    )


def _whole(call: dict[str, Any], index: int = 0, signature: str | None = None) -> dict[str, Any]:
    """One call's whole ``delta.tool_calls`` entry: id, name and all its arguments."""
    arguments = json.dumps(call["arguments"])
    return _tc(index, call["id"], call["name"], arguments, signature=signature)


def _signed_round(name: str, number: int) -> Scenario:
    """Two signed calls, in a different shape each round: F1 (the signature on the delta
    naming the call), B1 (interleaved fragments), F2 (a signature-only delta after the
    call) and A1 (both calls and the finish reason in one delta)."""
    a, b = _pair(number, ids=True)
    sa, sb = _signature(number, "a"), _signature(number, "b")
    wa, wb = json.dumps(a["arguments"]), json.dumps(b["arguments"])
    end = _chunk({}, "tool_calls")
    shapes: dict[int, tuple[str, list[dict[str, Any]]]] = {
        1: ("F1", [_chunk(_calls(_whole(a, 0, sa))), _chunk(_calls(_whole(b, 1, sb))), end]),
        2: (
            "B1",
            [
                _chunk(_calls(_tc(0, a["id"], a["name"], "", signature=sa))),
                _chunk(_calls(_tc(1, b["id"], b["name"], "", signature=sb))),
                *(
                    _chunk(_calls(_tc(i, args=part)))
                    for i, part in ((0, wa[:6]), (1, wb[:6]), (0, wa[6:]), (1, wb[6:]))
                ),
                end,
            ],
        ),
        3: (
            "F2",
            [
                _chunk(_calls(_tc(0, a["id"], a["name"]))),
                _chunk(_calls(_tc(0, args=wa))),
                _chunk(_calls(_whole(b, 1, sb))),
                _chunk(_calls(_tc(0, signature=sa))),
                end,
            ],
        ),
        4: ("A1", [_chunk(_calls(_whole(a, 0, sa), _whole(b, 1, sb)), "tool_calls")]),
    }
    shape, chunks = shapes[number]
    description = f"round {number}: two signed calls ({shape})"
    return _with_calls(name, shape, description, chunks, (a, b), (sa, sb))


def _same_index_round(name: str, number: int) -> Scenario:
    """Two calls at index 0 with different ids (B2: Ollama's OpenAI-compatible endpoint)."""
    calls = _pair(number, ids=True)
    chunks = [*(_chunk(_calls(_whole(c))) for c in calls), _chunk({}, "tool_calls")]
    return _with_calls(name, "B2", f"round {number}: two calls at index 0", chunks, calls)


def _final_answer_call(name: str) -> Scenario:
    """smolagents' ToolCallingAgent ends on a ``final_answer`` call, not on text."""
    call = {"id": "call_final", "name": "final_answer", "arguments": {"answer": _FINAL}}
    chunks = [_chunk(_calls(_whole(call))), _chunk({}, "tool_calls")]
    return _with_calls(name, "A1", "the final answer, as a final_answer call", chunks, [call])


def _commands_round(name: str, number: int) -> Scenario:
    """Three shell-command calls, each at its own index, each in two fragments."""
    calls: list[dict[str, Any]] = [
        {
            "id": f"call_{number}{i}",
            "name": "execute_shell_command",
            "arguments": {"shell_command": c},
        }
        for i, c in enumerate(_COMMANDS[number - 1])
    ]
    chunks: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        arguments = json.dumps(call["arguments"])
        chunks.append(_chunk(_calls(_tc(i, call["id"], call["name"], arguments[:5]))))
        chunks.append(_chunk(_calls(_tc(i, args=arguments[5:]))))
    chunks.append(_chunk({}, "tool_calls"))
    return _with_calls(name, "B1", f"round {number}: three shell commands", chunks, calls)


def _staggered_round(name: str, number: int) -> Scenario:
    """Two calls in a different shape each round, each shape one that some framework
    assembles wrong while others get it right, so a stock loop fails in the round of its
    framework's first loss: B1 (interleaved fragments), G3 (both calls share the first's
    id: the second's id is not checked, the wire makes it unique), B2 (both at index 0,
    ids differ) and C1 (the id and name repeated on every fragment)."""
    a, b = _pair(number, ids=True)
    wa, wb = json.dumps(a["arguments"]), json.dumps(b["arguments"])
    end = _chunk({}, "tool_calls")
    interleaved = [
        _chunk(_calls(_tc(0, a["id"], a["name"], ""))),
        _chunk(_calls(_tc(1, b["id"], b["name"], ""))),
        *(
            _chunk(_calls(_tc(i, args=part)))
            for i, part in ((0, wa[:6]), (1, wb[:6]), (0, wa[6:]), (1, wb[6:]))
        ),
        end,
    ]
    shared = [
        _chunk(_calls(_tc(0, a["id"], a["name"], wa))),
        _chunk(_calls(_tc(1, a["id"], b["name"], wb))),
        end,
    ]
    repeated = [
        _chunk(_calls(_tc(i, c["id"], c["name"], part)))
        for i, c, whole in ((0, a, wa), (1, b, wb))
        for part in (whole[:7], whole[7:])
    ]
    shapes: dict[int, tuple[str, list[dict[str, Any]]]] = {
        1: ("B1", interleaved),
        2: ("G3", shared),
        3: ("B2", [_chunk(_calls(_whole(a))), _chunk(_calls(_whole(b))), end]),
        4: ("C1", [*repeated, end]),
    }
    shape, chunks = shapes[number]
    if shape == "G3":
        b = {**b, "id": None}
    description = f"round {number}: two calls ({shape})"
    return _with_calls(name, shape, description, chunks, (a, b))


def _script(
    name: str, description: str, make: Any, last: Scenario | None = None, **options: Any
) -> Rounds:
    """Rounds 1 to 4 from ``make(name, round)``, round 5 ``last`` (default: the text)."""
    four: tuple[Scenario, ...] = tuple(make(name, n) for n in range(1, 5))
    dialect = four[0].dialect
    return Rounds(name, description, dialect, (*four, last or _final(name, dialect)), **options)


_SCRIPTS = (
    _script(
        "rounds-ollama",
        "Ollama /api/chat: four rounds of two calls, one per NDJSON line, then text",
        _ollama_round,
    ),
    _script(
        "rounds-ollama-oom",
        "Ollama /api/chat: three rounds of one call, then out of memory mid-stream in round 4",
        _oom_script,
    ),
    _script(
        "rounds-signatures",
        "four rounds of two calls with Gemini thought signatures (F1, B1, F2, A1),"
        " required back on every call, then text",
        _signed_round,
        signed=True,
    ),
    _script(
        "rounds-same-index",
        "four rounds of two calls at index 0 with different ids (B2), then a final_answer call",
        _same_index_round,
        _final_answer_call("rounds-same-index"),
    ),
    _script(
        "rounds-staggered",
        "four rounds of two calls in a different shape each (B1, G3, B2, C1), then text",
        _staggered_round,
    ),
    _script(
        "rounds-commands",
        "four rounds of three shell-command calls, each at its own index, then text",
        _commands_round,
    ),
)


ROUNDS: Mapping[str, Rounds] = MappingProxyType({s.name: s for s in _SCRIPTS})
"""Every scripted multi-round loop by name (read-only)."""


def rounds(dialect: Dialect | None = None) -> dict[str, Rounds]:
    """The scripts by name, optionally only one dialect's."""
    return {n: s for n, s in ROUNDS.items() if dialect is None or s.dialect == dialect}
