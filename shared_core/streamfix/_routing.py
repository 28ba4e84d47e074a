"""The routing policy: where each tool-call fragment goes, and what its fields mean.

This file is the one place that decides, while the stream runs, for a fragment of
``delta.tool_calls`` whether it continues a call, opens a new one (B4: a follow-on of
one), re-sends a finished one, signs one, or is held (:data:`RULES`, tried in order); how
a name sent again, in pieces or late merges into the call's name (:func:`merged_name`);
and what a finish reason means (:func:`is_error_finish`). Each rule names the wire shape
it serves (``shared/docs/wire-shapes.md``) and has a test named after that shape in
``tests/core/test_wire_shapes.py``. Rules only decide; ``_assembler`` applies. What the
end of the stream decides is ``_repair``.

"Complete" below means the call's arguments already hold a whole JSON value and nothing
after it (the incremental scanner says so, advancing only over text it has not seen).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from ._normalize import Fragment
from ._state import CallState, ChoiceState

__all__ = [
    "RULES",
    "Action",
    "Decision",
    "bare_continuation",
    "is_error_finish",
    "merged_name",
    "route",
]

# Arguments are JSON objects: only text that begins (after blanks) with "{" can open the
# arguments of a new call.
_BLANKS = " \t\r\n"


class Action(Enum):
    """What to do with a fragment."""

    CONTINUE = "continue"  # add name pieces, arguments, id, signature to the target call
    NEW = "new"  # open a new call
    FOLLOW_ON = "follow-on"  # open a new call with the target's name and a derived id
    DUPLICATE = "duplicate"  # complete arguments re-sent: drop them, keep a diagnostic
    SIGN = "sign"  # signature-only fragment: set the target call's signature
    HOLD = "hold"  # signature-only fragment before its call: keep it for that index
    IGNORE = "ignore"  # an entry that carries nothing at all


Decision = tuple[Action, CallState | None]
Rule = Callable[[ChoiceState, Fragment], Decision | None]


def _starts_value(arguments: str | None) -> bool:
    if not arguments:
        return False
    head = arguments[0]
    if head in _BLANKS:
        head = arguments.lstrip(_BLANKS)[:1]
    return head == "{"


def _is_signature_only(fragment: Fragment) -> bool:
    return fragment.signature is not None and not fragment.name and not fragment.arguments


# --- the rules, in order ------------------------------------------------------------------


def bare_continuation(state: ChoiceState, index: int, text: str) -> CallState | None:
    """B1, D3, the common case: bare argument text at an index that has a call.

    The fast path of ``at_known_index`` for text that cannot open a new value: the
    call it continues, or ``None`` to go through the rules.
    """
    call = state.by_index.get(index)
    if call is None or not text:
        return None
    head = text[0]
    if (head != "{" and head not in _BLANKS) or not _starts_value(text):
        return call
    return None if state.is_complete(call) else call


def plain_continuation(state: ChoiceState, f: Fragment) -> Decision | None:
    """B1, D3: ``bare_continuation`` for a fragment that carries nothing else."""
    if f.id is None and f.name is None and f.signature is None and f.call_index is not None:
        call = bare_continuation(state, f.call_index, f.arguments or "")
        if call is not None:
            return Action.CONTINUE, call
    return None


def signature_only(state: ChoiceState, f: Fragment) -> Decision | None:
    """F2, F3: a signature with no name and no arguments signs the call it addresses.

    By id first, then by index; with neither known it is held for the index (F3) and
    never opens a call of its own.
    """
    if not _is_signature_only(f):
        return None
    call = state.by_id.get(f.id) if f.id is not None else None
    if call is None and f.call_index is not None:
        call = state.by_index.get(f.call_index)
    if call is None and f.call_index is None and f.id is None:
        call = state.calls[-1] if state.calls else None
    return (Action.SIGN, call) if call is not None else (Action.HOLD, None)


def known_id(state: ChoiceState, f: Fragment) -> Decision | None:
    """C1, C4, G3, G4: a fragment carrying an id already seen continues that call.

    If that call is complete and the fragment re-sends the same arguments, it is a
    duplicate (C4), dropped with a diagnostic. G3: at an index that has no call yet, the
    same id with a name, or after that call completed, is another call sharing the id
    (DeepSeek, GLM, Kimi); at an index whose call has that id, it is that call. (A
    repeat of the whole call there, G4, is dropped at the end of the stream.) Otherwise
    the index changed inside the call (B8).
    """
    if f.id is None:
        return None
    call = state.by_id.get(f.id)
    if call is None:
        return None
    if f.call_index is not None:
        slot = state.by_index.get(f.call_index)
        if slot is not call and slot is not None and slot.id == f.id:
            call = slot  # G3: the call at this index shares the id
        elif slot is None and (f.name or state.is_complete(call)):
            return Action.NEW, None  # G3: another call under the same id
    if f.arguments and state.is_complete(call) and state.is_resend(call, f.arguments):
        return Action.DUPLICATE, call
    return Action.CONTINUE, call


def new_id(state: ChoiceState, f: Fragment) -> Decision | None:
    """B2, C3, G2: an unseen id opens a new call, unless the call at its slot is open and
    the fragment does not start another one.

    B2: same index, another id, with a name or after the call completed: a new call. C3:
    the arguments (or name) came first and the id follows: it is adopted by the open,
    id-less call at that index. G2: the id changes inside one call (the header has id
    A, later fragments id B and no name) while its arguments are incomplete: the same
    call, its first id kept.
    """
    if f.id is None:
        return None
    slot = state.by_index.get(f.call_index) if f.call_index is not None else state.last_call()
    if (
        slot is not None
        and (slot.id is None or (f.call_index is not None and not f.name))
        and not state.is_complete(slot)
    ):
        return Action.CONTINUE, slot
    return Action.NEW, None


def at_known_index(state: ChoiceState, f: Fragment) -> Decision | None:
    """B3, B5, A3, C1, C2: an id-less fragment at an index that already has a call.

    B3: a new JSON value after a complete one is a new call. B5: a name arriving at an
    index whose named call is complete opens a new call. Otherwise it continues (A3,
    and repeated or pieced names, C1/C2, merged by the assembler).
    """
    if f.call_index is None:
        return None
    call = state.by_index.get(f.call_index)
    if call is None:
        return None
    return _continue_or_open(state, call, f)


def at_new_index(state: ChoiceState, f: Fragment) -> Decision | None:
    """B7, B8, B9: an id-less fragment at an index never seen before.

    With a name it opens a call (B7: indices may start anywhere, skip or be negative).
    Without one it continues the most recent open call (B8: the index changed inside a
    call). With no call open it opens a provisional call, which keeps its arguments if a
    name follows (C3) and is dropped as a phantom at the end if none does (B9).
    """
    if f.call_index is None:
        return None
    if f.name:
        return Action.NEW, None
    if not f.arguments:
        return Action.IGNORE, None
    open_call = state.last_open_call()
    if open_call is not None:
        return Action.CONTINUE, open_call
    return Action.NEW, None


def without_index(state: ChoiceState, f: Fragment) -> Decision | None:
    """B6: neither id nor index: continue the most recent open call.

    When every call is complete, a new value or a name opens a new call (B3, B5).
    """
    open_call = state.last_open_call()
    if open_call is not None:
        return Action.CONTINUE, open_call
    last = state.last_call()
    if last is None:
        return (Action.NEW, None) if (f.name or f.arguments) else (Action.IGNORE, None)
    return _continue_or_open(state, last, f)


def _continue_or_open(state: ChoiceState, call: CallState, f: Fragment) -> Decision:
    if _starts_value(f.arguments) and state.is_complete(call):
        # B3 with a name: a new call; B4 cut at a value's end: a follow-on of this one.
        return (Action.NEW, None) if f.name else (Action.FOLLOW_ON, call)
    if f.name and call.name and state.is_complete(call):
        return Action.NEW, None
    return Action.CONTINUE, call


RULES: tuple[Rule, ...] = (
    plain_continuation,
    signature_only,
    known_id,
    new_id,
    at_known_index,
    at_new_index,
    without_index,
)


def route(state: ChoiceState, fragment: Fragment) -> Decision:
    """The decision of the first rule that has one."""
    for rule in RULES:
        decision = rule(state, fragment)
        if decision is not None:
            return decision
    raise AssertionError("without_index always decides")  # pragma: no cover


def merged_name(current: str | None, name: str, tools: frozenset[str]) -> str:
    """C1 (name repeated on every fragment), C2 (name in pieces), C3 (name arriving late):
    the call's name once ``name`` arrives for a call named ``current`` so far.

    Declared tools decide first: the pieces joined, if a declared name is or starts with
    them; else the new name if declared; else the current one if declared. Without
    tools: a repeat is ignored, a longer name that extends the current one replaces it
    (names re-sent whole), anything else is a piece to append.
    """
    if current is None:
        return name
    joined = current + name
    if tools:
        if joined in tools or any(tool.startswith(joined) for tool in tools):
            return joined
        for known in (name, current):
            if known in tools:
                return known
    if name == current:
        return current
    return name if name.startswith(current) else joined


def is_error_finish(finish_reason: str) -> bool:
    """E5: ``finish_reason: "error"`` (OpenRouter, with or without an ``error`` object) is
    a provider error. Any other finish reason is recorded, the last one given counting,
    and never ends the stream (E2: more calls may follow it)."""
    return finish_reason == "error"
