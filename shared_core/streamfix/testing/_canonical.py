"""Checks of the repaired stream (wire-shapes R): its form (R2-R8), what every framework
reading OpenAI's own streams expects, whatever the provider sent; and that it says what
the original says.

:func:`canonical_problems` lists what a stream of chunks (dicts, or the openai and
litellm chunk objects) breaks; :func:`is_canonical` says whether it breaks nothing;
:func:`repair_check` runs :func:`streamfix.repair` on a stream and says whether the result
is canonical and assembles to the original's message. Used by the tests of the repair
and of the wires, and by the doctor.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from .._assembler import assemble
from .._emit import repair
from .._errors import MalformedToolCallError, StreamFixError
from .._fastpath import fields
from .._types import AssembledMessage

__all__ = ["UNREPAIRABLE", "canonical_problems", "is_canonical", "repair_check"]

_STOPS = ("stop", "end_turn")
_ENTRY = frozenset(("index", "id", "type", "function"))


def _fields(value: Any) -> dict[str, Any]:
    """A chunk part's fields without nulls (a model's declared-but-unset fields)."""
    if value is None:
        return {}
    return {key: item for key, item in fields(value).items() if item is not None}


class _Choice:
    def __init__(self) -> None:
        self.seen = False  # a delta of this choice was read
        self.calls: dict[int, list[str]] = {}  # wire index -> argument pieces
        self.names: dict[int, str] = {}
        self.finished: str | None = None


def canonical_problems(chunks: Iterable[Any], *, complete: bool = True) -> list[str]:
    """What ``chunks`` break of R2-R8, one sentence each (empty: canonical).

    ``complete``: the stream ended without an error, so every call's arguments must be
    one JSON object (R4); a stream cut by an error may end inside one."""
    problems: list[str] = []
    choices: dict[int, _Choice] = {}
    ids: set[str] = set()
    for n, chunk in enumerate(chunks):
        for choice in _fields(chunk).get("choices") or ():
            body = _fields(choice)
            number = body.get("index", 0)
            state = choices.setdefault(number, _Choice())
            where = f"chunk {n}, choice {number}"
            problems.extend(f"{where}: {p}" for p in _choice_problems(body, state, ids))
    for number, state in choices.items():
        if state.calls and state.finished in _STOPS:
            problems.append(f"choice {number}: finish_reason {state.finished!r} with calls (R8)")
        if complete:
            problems.extend(
                f"choice {number}, call {index}: arguments are not one JSON object (R4)"
                for index, pieces in state.calls.items()
                if not _one_object("".join(pieces))
            )
    return problems


def _choice_problems(body: dict[str, Any], state: _Choice, ids: set[str]) -> list[str]:
    problems = []
    delta = _fields(body.get("delta"))
    if not state.seen and delta.get("role") is None:
        problems.append("the choice's first delta names no role (OpenAI's says 'assistant')")
    state.seen = True
    said = bool(delta.get("tool_calls") or delta.get("content"))
    if state.finished is not None and (said or body.get("finish_reason")):
        problems.append(f"after finish_reason {state.finished!r} (R8)")
    if delta.get("function_call") is not None:
        problems.append("a legacy function_call (H1, R11)")
    entries = delta.get("tool_calls") or []
    if len(entries) > 1:
        problems.append(f"{len(entries)} tool-call entries in one chunk (R5)")
    for entry in entries:
        problems.extend(_entry(_fields(entry), state, ids))
    blocks = delta.get("thinking_blocks") or []
    if any(type(_fields(block).get("index")) is not int for block in blocks):
        problems.append("a thinking_blocks piece without an index (a list of objects, R2)")
    if body.get("finish_reason"):
        state.finished = body["finish_reason"]
    return problems


def _entry(entry: dict[str, Any], state: _Choice, ids: set[str]) -> list[str]:
    index = entry.get("index")
    if type(index) is not int:
        return [f"an entry with index {index!r} (R2)"]
    if entry.get("function") is None:
        return [f"call {index}: an entry without function (R7; the openai SDK asserts one)"]
    function = _fields(entry.get("function"))
    extra = set(entry) - _ENTRY - {"extra_content"}
    problems = [f"provider fields {sorted(extra)} on a tool-call entry"] if extra else []
    if index not in state.calls:
        problems.extend(_opens(entry, function, index, state, ids))
    else:
        if entry.get("id") is not None or entry.get("type") not in (None, "function"):
            # litellm's types put type "function" on every entry: harmless
            problems.append(f"call {index}: an id or another type on a continuation (R3)")
        if function.get("name") is not None:
            problems.append(f"call {index}: a name on a continuation (R3)")
    arguments = function.get("arguments")
    if arguments is not None and type(arguments) is not str:
        problems.append(f"call {index}: arguments are not text (R4)")
    elif arguments:
        state.calls[index].append(arguments)
    return problems


def _opens(
    entry: dict[str, Any], function: dict[str, Any], index: int, state: _Choice, ids: set[str]
) -> list[str]:
    """R2, R3: a call's first entry."""
    problems = []
    if index != len(state.calls):
        problems.append(f"call {index} opens after {len(state.calls)} calls (R2)")
    call_id, name = entry.get("id"), function.get("name")
    if not (type(call_id) is str and call_id):
        problems.append(f"call {index} opens without an id (R3)")
    elif call_id in ids:
        problems.append(f"call {index} reuses the id {call_id!r} (R3, G3)")
    else:
        ids.add(call_id)
    if entry.get("type") != "function":
        problems.append(f"call {index} opens without type 'function' (R3)")
    if not (type(name) is str and name):
        problems.append(f"call {index} opens without its name (R3)")
    state.calls[index] = []
    state.names[index] = name or ""
    return problems


def _one_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def is_canonical(chunks: Iterable[Any], *, complete: bool = True) -> bool:
    """Whether ``chunks`` are in the repaired stream's form (R2-R8)."""
    return not canonical_problems(chunks, complete=complete)


#: Shapes a wire cannot repair (a prefix passed on is never taken back): the repaired
#: stream ends in MalformedToolCallError whose message is the original's assembly.
UNREPAIRABLE = frozenset({"I3"})


def repair_check(chunks: Sequence[Any], tools: Any = None, shape: str = "") -> str | None:
    """Whether ``streamfix.repair`` gets ``chunks`` right: ``None``, or why not.

    Right: the repaired stream is canonical (R2-R8) and assembles to what the original
    assembles to (the same calls, arguments, signatures, text, reasoning metadata; the
    same error type where it ends in one), up to what the repair changes on purpose:
    ``stop`` with calls is ``tool_calls`` (R8), a call sent without an id gets one, ids
    shared by distinct calls are made unique (G3). For a shape in :data:`UNREPAIRABLE`:
    the repaired stream ends in ``MalformedToolCallError`` carrying the original's
    message."""
    before: AssembledMessage | StreamFixError
    try:
        before = assemble(chunks, tools)
    except StreamFixError as exc:
        before = exc
    out: list[Any] = []
    error: StreamFixError | None = None
    try:
        out.extend(repair(chunks, tools))
    except StreamFixError as exc:
        error = exc
    if shape in UNREPAIRABLE:
        if isinstance(error, MalformedToolCallError) and error.message == before:
            return None
        return f"expected MalformedToolCallError with the assembled message, got {error!r}"
    problems = canonical_problems(out, complete=error is None)
    if problems:
        return f"not canonical: {problems[0]}"
    return _same_ending(before, error, out, tools)


def _same_ending(
    before: AssembledMessage | StreamFixError,
    error: StreamFixError | None,
    out: list[Any],
    tools: Any,
) -> str | None:
    if isinstance(before, StreamFixError) or error is not None:
        if type(error) is not type(before):
            theirs = type(before).__name__ if isinstance(before, StreamFixError) else "no error"
            return f"ends in {type(error).__name__}, the original in {theirs}"
        return None
    if _view(assemble(out, tools), before) != _view(before, before):
        return "assembles to another message than the original"
    return None


def _view(message: AssembledMessage, original: AssembledMessage) -> dict[str, Any]:
    """What :func:`repair_check` compares, the repair's deliberate changes undone: an id
    the provider never sent, a shared id made unique, ``stop`` with calls."""
    unique = original.with_unique_ids().tool_calls
    sent = [c.id for c in unique]
    calls = [
        (
            (unique[n].id if message is original else c.id)
            if n < len(sent) and sent[n] is not None
            else None,
            c.name,
            c.arguments,
            c.parsed,
            c.thought_signature,
        )
        for n, c in enumerate(message.tool_calls)
    ]
    finish = message.finish_reason
    if finish == "tool_calls" and original.finish_reason in _STOPS:
        finish = original.finish_reason
    return {
        "calls": calls,
        "text": (message.content, message.reasoning),
        "finish": finish,
        "usage": message.usage,
        "metadata": (message.reasoning_details, message.thinking_blocks),
    }
