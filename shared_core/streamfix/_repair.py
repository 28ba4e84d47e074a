"""End-of-stream decisions: what each call's received text becomes once the stream ended.

:func:`settle` looks at one call and returns a typed outcome: :class:`Complete` (one or
more JSON objects: the call, or B4's several values, or C5's last copy), :class:`Dropped`
(B9 phantom), :class:`Truncated` (E4) or :class:`Malformed`. Each decision names its wire
shape (``shared/docs/wire-shapes.md``) and records a diagnostic where it repaired or
dropped something. :func:`failure` turns the outcomes of a choice into the error the
assembler raises, carrying the message assembled from the rest.

One decision is taken before the end: E10, an answer that started over inside the stream
(:func:`read_role`, :func:`abandon`): the calls its first attempt left unfinished
are dropped then, so that the new attempt's calls are never glued to them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from ._errors import MalformedToolCallError, StreamFixError, TruncatedToolCallError
from ._scanner import JsonScanner, strict_loads
from ._state import CallState, ChoiceState
from ._types import AssembledMessage, ToolCall

__all__ = [
    "Complete",
    "Dropped",
    "Malformed",
    "Outcome",
    "Truncated",
    "abandon",
    "failure",
    "read_role",
    "reasoning_metadata",
    "repeated",
    "settle",
]

Value = tuple[str, dict[str, Any]]
"""One JSON object of arguments: its text and the parsed object."""


@dataclass(frozen=True, slots=True)
class Complete:
    """The call's arguments are these JSON objects (more than one only after B4)."""

    values: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Dropped:
    """The call is not one (B9: no name, no arguments); left out, with a diagnostic."""


@dataclass(frozen=True, slots=True)
class Truncated:
    """The arguments ended inside a JSON value (E4)."""


@dataclass(frozen=True, slots=True)
class Malformed:
    """The arguments are not JSON objects, or a call with arguments never got a name."""

    why: str


Outcome = Complete | Dropped | Truncated | Malformed

_EMPTY = Complete((("{}", {}),))


def settle(state: ChoiceState, call: CallState, no_arguments: frozenset[str]) -> Outcome:
    """What ``call`` becomes at the end of the stream (diagnostics go on ``state``).

    ``no_arguments``: the declared tools that take no required arguments (E11)."""
    text = call.text()
    if call.name is None:
        return _nameless(state, call, text)
    if not text.strip():
        if state.finish_reason is None and call.name not in no_arguments:
            return Truncated()  # E11: a header, then the stream ended with no byte of it
        return _EMPTY  # D2: a zero-argument tool
    try:  # the common case, one parse of one value; the scanner is needed only if it fails
        parsed = strict_loads(text)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        return Complete(((text, parsed),))  # the provider's own text, as non-streamed
    if isinstance(parsed, str):
        inner = _double_encoded(parsed)
        if inner is not None:  # I1
            detail = "the arguments were a JSON string holding the object; decoded once"
            state.diagnose("double-encoded-arguments", detail, call.position)
            return Complete((inner,))
    return _repair(state, call, text)


def _nameless(state: ChoiceState, call: CallState, text: str) -> Outcome:
    """B9: no name and no arguments is no call; E9: arguments and never a name is an
    error naming the call (a claimed call that silently disappeared would orphan the
    next turn's tool result)."""
    if text.strip() in ("", "{}"):
        state.diagnose(
            "phantom-call", "a call with no name and no arguments was dropped", call.position
        )
        return Dropped()
    named = f"id {call.id!r}" if call.id is not None else f"position {call.position}"
    why = f"the call with {named} has arguments but never got a name"
    state.diagnose("nameless-call", why, call.position)
    return Malformed(why)


def _double_encoded(text: str) -> Value | None:
    """I1: the object a JSON string's content is, if it is one."""
    raw = text.strip()
    try:
        parsed = strict_loads(raw)
    except (ValueError, RecursionError):
        return None
    return (raw, parsed) if isinstance(parsed, dict) else None


def _repair(state: ChoiceState, call: CallState, text: str) -> Outcome:
    """Arguments that are not one JSON object: several values (B4), cumulative (C5),
    truncated (E4) or malformed."""
    scanner = call.scan()
    if scanner.error is None and not scanner.dirty and scanner.boundaries:
        values = _split(text, scanner.boundaries)
        if values is not None:  # B4, and B3 cut at a value's end
            detail = f"{len(values)} JSON values arrived as one call's arguments; split"
            state.diagnose("split-values", detail, call.position)
            return Complete(values)
    cumulative = _cumulative(call.parts)
    if cumulative is not None:  # C5
        detail = "arguments were re-sent whole on every fragment; the last copy kept"
        state.diagnose("cumulative-arguments", detail, call.position)
        return Complete((cumulative,))
    restarted = _restarted(text)
    if restarted is not None:  # I3
        detail = "the arguments restarted after an unfinished prefix; the complete value kept"
        state.diagnose("restarted-arguments", detail, call.position)
        return Complete((restarted,))
    if scanner.error is None and (scanner.dirty or not scanner.boundaries):
        return Truncated()  # E4
    why = f"arguments of {call.name!r}: {scanner.error or 'not a JSON object'}"
    state.diagnose("malformed-arguments", why, call.position)
    return Malformed(why)


def _split(text: str, boundaries: list[int]) -> tuple[Value, ...] | None:
    values = []
    start = 0
    for end in boundaries:
        raw = text[start:end].strip()
        start = end
        try:
            parsed = strict_loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(parsed, dict):
            return None
        values.append((raw, parsed))
    return tuple(values)


#: I3 looks for the restart at no more than this many "{" (a failing stream only).
_RESTART_TRIES = 256


def _restarted(text: str) -> Value | None:
    """I3: ``text`` is an unfinished prefix of an object, then a fresh ``{`` that begins
    one complete object running to the end: that object (the earliest such ``{``, so
    the longest). The prefix must end where no value can begin (inside a string, after
    a key or a value, after ``{`` or an object's ``,``), so the whole is not JSON: a
    prefix that could hold the object as a value (it ends with ``:``, ``[`` or an
    array's ``,``) is truncation (E4), not a restart. No overlap is de-duplicated: the
    value is kept as sent."""
    start = 0
    for _ in range(_RESTART_TRIES):
        start = text.find("{", start + 1)
        if start < 0:
            return None
        prefix = text[:start].strip()
        if not prefix.startswith("{"):
            return None
        raw = text[start:].strip()
        try:
            parsed = strict_loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(parsed, dict):
            continue
        scanner = JsonScanner()
        scanner.advance(prefix)
        could_hold = not scanner.in_string and (
            prefix[-1] in ":[" or (prefix[-1] == "," and _innermost(prefix) == "[")
        )
        if scanner.error is None and not scanner.complete and not could_hold:
            return raw, parsed
    return None


def _innermost(text: str) -> str | None:
    """The opening bracket (``{`` or ``[``) of the container open at the end of
    ``text``, a JSON prefix the scanner accepted."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _cumulative(parts: list[str]) -> Value | None:
    """C5: every fragment repeats everything so far; the last one is the whole value."""
    pieces = [part for part in parts if part]
    if len(pieces) < 2 or not all(b.startswith(a) for a, b in pairwise(pieces)):
        return None
    raw = pieces[-1].strip()
    try:
        parsed = strict_loads(raw)
    except (ValueError, RecursionError):
        return None
    return (raw, parsed) if isinstance(parsed, dict) else None


def repeated(state: ChoiceState, call: ToolCall, ids: dict[str, ToolCall], position: int) -> bool:
    """G4: whether ``call`` repeats a call already in the message (same id, name and
    arguments, sent again at another index): it is dropped, with a diagnostic. G3: a
    different call with the same id is kept, its id as sent, with a diagnostic."""
    if call.id is None:
        return False
    first = ids.setdefault(call.id, call)
    if first is call:
        return False
    if (first.name, first.parsed) == (call.name, call.parsed):
        detail = f"call {call.id!r} was sent again at another index; the repeat was dropped"
        state.diagnose("repeated-call", detail, position)
        return True
    detail = f"calls {first.index} and {call.index} share the id {call.id!r}; kept as sent"
    state.diagnose("shared-id", detail, position)
    return False


def read_role(state: ChoiceState, named: bool) -> None:
    """E10: whether a delta read in full names its role. Named again after deltas that
    named none (a gateway that falls back to another model mid-stream starts the answer
    over with a new role chunk and new ids), it is a restart point: the calls unfinished
    then are noted with how many fragments each has. Nothing is decided yet: see
    :func:`abandon`."""
    if not named:
        state.unroled += 1
    elif state.unroled and state.calls:
        unfinished = {
            call: len(call.parts)
            for call in state.calls
            if not call.abandoned and not state.is_complete(call)
        }
        state.restart = unfinished or None


def abandon(state: ChoiceState) -> None:
    """E10: after a restart point, a call with a new id opens at a wire index the stream
    used before (the new attempt numbers its calls from 0 again; a parallel call that
    streams interleaved with an unfinished one opens at an index of its own). The calls
    that were unfinished at the restart point and have had no fragment since belong to
    the abandoned attempt: dropped, with a diagnostic each (their raw text in it), never
    glued to the new attempt's calls. A call continued after the role chunk was not
    abandoned (some providers name the role on some chunks only) and is kept."""
    pending, state.restart = state.restart or {}, None
    for call, fragments in pending.items():
        if len(call.parts) != fragments or state.is_complete(call):
            continue
        call.abandoned = True
        for key in [k for k, c in state.by_index.items() if c is call]:
            del state.by_index[key]
        if call.id is not None and state.by_id.get(call.id) is call:
            del state.by_id[call.id]
        state.diagnose(
            "abandoned-attempt",
            f"the answer started over (a new role chunk, then a new call): unfinished call "
            f"{call.name!r} (id {call.id!r}) dropped with its arguments {call.text()[:200]!r}",
            call.position,
        )


def failure(
    state: ChoiceState, message: AssembledMessage, outcomes: dict[int, Outcome]
) -> StreamFixError | None:
    """The error ending this choice, if a call could not be settled: truncation first
    (E4), else malformed arguments; ``None`` if every call settled."""
    truncated = {p: o for p, o in outcomes.items() if isinstance(o, Truncated)}
    if truncated:
        names = ", ".join(
            f"{call.name!r} after {len(call.text())} characters"
            for call in state.calls
            if call.position in truncated
        )
        reason = f" (finish_reason={state.finish_reason})" if state.finish_reason else ""
        return TruncatedToolCallError(
            f"tool call arguments are truncated{reason}: {names}",
            message=message,
            partial_arguments=unsettled(state, truncated),
            partial_names=names_of(state, truncated),
        )
    malformed = {p: o for p, o in outcomes.items() if isinstance(o, Malformed)}
    if malformed:
        details = "; ".join(o.why for o in malformed.values() if isinstance(o, Malformed))
        return MalformedToolCallError(
            f"tool call arguments are malformed: {details}",
            message=message,
            partial_arguments=unsettled(state, malformed),
            partial_names=names_of(state, malformed),
        )
    return None


def unsettled(state: ChoiceState, positions: dict[int, Any]) -> dict[int, str]:
    """The raw argument text of the calls at ``positions``."""
    return {call.position: call.text() for call in state.calls if call.position in positions}


def names_of(state: ChoiceState, positions: dict[int, Any]) -> dict[int, str | None]:
    """The names of the calls at ``positions`` (``None`` if one never got one)."""
    return {call.position: call.name for call in state.calls if call.position in positions}


_GEMINI_FORMAT = "google-gemini"


def reasoning_metadata(
    state: ChoiceState, calls: list[ToolCall]
) -> tuple[list[ToolCall], list[dict[str, Any]], list[dict[str, Any]]]:
    """The message's ``reasoning_details`` (F5) and ``thinking_blocks`` (F6) as the
    non-streamed message carries them, and its calls with F5's signatures set.

    F5: a ``reasoning.encrypted`` entry whose ``format`` starts with ``google-gemini``
    and whose ``id`` is a call's id is that call's Gemini thought signature (OpenRouter
    carries it so): its ``data`` becomes the call's ``thought_signature`` too. Matched
    by id once the stream ended, so the entry may come before or after its call; an id
    that names no call signs nothing (the entry stays in ``reasoning_details``), one
    that several calls share (G3) signs the first of them, and a call that brought a
    signature of its own (F1) keeps it.
    """
    details = [part.value() for part in state.details]
    blocks = [part.value() for part in state.blocks]
    if not details or not calls:
        return calls, details, blocks
    positions: dict[str, int] = {}
    for position, call in enumerate(calls):
        if call.id is not None:
            positions.setdefault(call.id, position)
    signed = list(calls)
    for entry in details:
        fmt, data, entry_id = entry.get("format"), entry.get("data"), entry.get("id")
        if (
            entry.get("type") == "reasoning.encrypted"
            and type(fmt) is str
            and fmt.startswith(_GEMINI_FORMAT)
            and type(data) is str
            and data
            and type(entry_id) is str
        ):
            at = positions.get(entry_id)
            if at is not None and signed[at].thought_signature is None:
                signed[at] = replace(signed[at], thought_signature=data)
    return signed, details, blocks
