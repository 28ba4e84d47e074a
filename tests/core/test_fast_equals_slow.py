"""The fast path decides exactly what the slow path decides.

``_fastpath.consume`` appends the text of a chunk that only continues a call without
normalising it; everything it skips must be bookkeeping nobody needs. The property: for
every stream of the corpus and of the strategies (as cut, and re-cut one character per
chunk; dicts, ``openai`` and ``litellm`` objects), an assembler fed by its own loop (the
fast path) and one fed every chunk through the normaliser and the rules (the slow path)
end in equal states, emit equal events and give the same message or the same error.

E10 (a restart named by a new role chunk) was missed when the partial call's
continuations took the fast path: they did not count as deltas without a role.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from strategies import Streamed, examples, recut_one_char, streamed
from support import KINDS, Kind, chunk, convert, tc

import streamfix
import streamfix.testing
from streamfix import StreamFixError, ToolCallAssembler
from streamfix._state import CallState, ChoiceState

pytestmark = pytest.mark.core

CORPUS = streamfix.testing.scenarios("openai")


def _call(call: CallState) -> tuple[Any, ...]:
    origin = call.origin.position if call.origin is not None else None
    return (
        call.position,
        call.wire_index,
        call.id,
        call.name,
        call.text(),
        call.signature,
        call.extras,
        call.abandoned,
        origin,
        call.follow_on,
        call.announced,
    )


def _choice(state: ChoiceState) -> tuple[Any, ...]:
    restart = state.restart
    return (
        [_call(call) for call in state.calls],
        {index: call.position for index, call in state.by_index.items()},
        {key: call.position for key, call in state.by_id.items()},
        dict(state.held_signatures),
        "".join(state.content),
        "".join(state.reasoning),
        state.finish_reason,
        list(state.diagnostics),
        [part.value() for part in state.details],
        [part.value() for part in state.blocks],
        state.unroled,
        None if restart is None else {call.position: n for call, n in restart.items()},
    )


def state_of(assembler: ToolCallAssembler) -> tuple[Any, ...]:
    """Everything the assembler knows, as plain values."""
    choices = {number: _choice(state) for number, state in assembler._choices.items()}
    return choices, assembler._usage, list(assembler._problems)


def _run(chunks: list[Any], fast: bool, events: bool) -> tuple[Any, ...]:
    assembler = ToolCallAssembler()
    found: list[Any] | None = [] if events else None
    error: str | None = None
    try:
        for body in chunks:
            if fast:
                assembler._consume_all((body,), found)
            else:
                assembler._check_open()
                assembler._consume(body, found)
    except StreamFixError as exc:
        error = f"{type(exc).__name__}: {exc}"
    state = state_of(assembler)
    if error is None:
        try:
            result: Any = assembler.finish_all()
        except StreamFixError as exc:
            result = f"{type(exc).__name__}: {exc}"
    else:
        result = error
    return state, found, result


def assert_fast_equals_slow(bodies: list[dict[str, Any]]) -> None:
    from pydantic import ValidationError

    for kind in KINDS:
        try:
            chunks = convert(kind, bodies)
        except ValidationError:  # litellm's types refuse it (H1 pieces, I2's nulls)
            continue
        for events in (False, True):
            fast = _run(chunks, fast=True, events=events)
            slow = _run(convert(kind, bodies), fast=False, events=events)
            assert fast == slow, (kind, events)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus(name: str) -> None:
    assert_fast_equals_slow(CORPUS[name].chunks)


@examples(120)
@given(s=streamed())
def test_streams_as_cut(s: Streamed) -> None:
    assert_fast_equals_slow(s.chunks)


@examples(30)
@given(s=streamed(max_calls=4))
def test_streams_one_character_per_chunk(s: Streamed) -> None:
    assert_fast_equals_slow(recut_one_char(s.chunks, s.dialect))


ROLE = {"role": "assistant"}


def _restart_with_bare_continuations() -> list[dict[str, Any]]:
    """Issue 23's stream: the first attempt's continuation carries only ``index`` and a
    piece of arguments (a fast-path chunk), then a role chunk, then call_y."""
    return [
        chunk(tc(0, "call_x", "get_weather", "", typed="with id"), delta=ROLE),
        chunk(tc(0, args='{"ci')),
        chunk(delta={"role": "assistant", "content": None}),
        chunk(tc(0, "call_y", "get_weather", "", typed="with id")),
        chunk(tc(0, args='{"city"')),
        chunk(tc(0, args=': "Paris"}')),
        chunk(finish="tool_calls"),
    ]


def test_e10_restart_after_fast_path_continuations(kind: Kind) -> None:
    message = streamfix.assemble(kind(_restart_with_bare_continuations()))
    assert [(c.id, c.name, c.parsed) for c in message.tool_calls] == [
        ("call_y", "get_weather", {"city": "Paris"})
    ]
    assert [d.code for d in message.diagnostics] == ["abandoned-attempt"]
    assert '{"ci' in message.diagnostics[0].detail


def test_e10_restart_after_fast_path_continuations_while_feeding(kind: Kind) -> None:
    assembler = ToolCallAssembler()
    for body in kind(_restart_with_bare_continuations()):
        assembler.feed(body)
    assert [c.id for c in assembler.finish().tool_calls] == ["call_y"]


def test_the_e10_stream_agrees() -> None:
    assert_fast_equals_slow(_restart_with_bare_continuations())
