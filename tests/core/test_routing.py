"""The routing table tested directly: for a ``ChoiceState`` built by hand and one
``Fragment``, which rule of ``RULES`` decides and what it decides (``route()``), one
representative fragment per wire shape each rule's docstring names; then
``merged_name`` (C1, C2, C3) and ``is_error_finish`` (E5).

The states are built as the assembler builds them (``_assembler._open``/``_merge_fields``):
a ``CallState`` per call, in ``calls``, in ``by_index`` under its wire index and in
``by_id`` under its id, its argument text in ``parts``.
"""

from __future__ import annotations

from typing import Any

import pytest

from streamfix._normalize import Fragment
from streamfix._routing import RULES, Action, is_error_finish, merged_name, route
from streamfix._state import CallState, ChoiceState

pytestmark = pytest.mark.core

CONTINUE, NEW, FOLLOW_ON = Action.CONTINUE, Action.NEW, Action.FOLLOW_ON
DUPLICATE, SIGN, HOLD, IGNORE = Action.DUPLICATE, Action.SIGN, Action.HOLD, Action.IGNORE
SIG = "c2lnLWEx"


def state(*calls: tuple[int | None, str | None, str | None, str]) -> ChoiceState:
    """A choice holding ``calls``, each ``(wire index, id, name, argument text)``."""
    choice = ChoiceState(0)
    for wire_index, call_id, name, text in calls:
        call = CallState(len(choice.calls), wire_index, track_members=False)
        call.id, call.name = call_id, name
        if text:
            call.parts.append(text)
        choice.calls.append(call)
        if wire_index is not None:
            choice.by_index[wire_index] = call
        if call_id is not None:
            choice.by_id[call_id] = call
    return choice


def frag(
    index: int | None = None,
    id: str | None = None,
    name: str | None = None,
    args: str | None = None,
    signature: str | None = None,
) -> Fragment:
    extras = {"extra_content": {"google": {"thought_signature": signature}}} if signature else None
    return Fragment(index, id, name, args, signature, extras)


def decide(choice: ChoiceState, fragment: Fragment) -> tuple[str, Action, int | None]:
    """(the rule that decides, its action, the position of the call it names); and
    ``route()`` gives that same decision."""
    for rule in RULES:
        decision = rule(choice, fragment)
        if decision is not None:
            break
    else:  # pragma: no cover - without_index always decides
        raise AssertionError("no rule decided")
    assert route(choice, fragment) == decision
    action, call = decision
    assert call is None or call in choice.calls
    return rule.__name__, action, None if call is None else call.position


def test_the_rules_in_order() -> None:
    assert [rule.__name__ for rule in RULES] == [
        "plain_continuation",
        "signature_only",
        "known_id",
        "new_id",
        "at_known_index",
        "at_new_index",
        "without_index",
    ]


# --------------------------------------------------------------------------- cases

OPEN = '{"city": "Pa'  # arguments in progress
DONE = '{"city": "Paris"}'  # complete arguments

CASES: dict[str, tuple[ChoiceState, Fragment, tuple[str, Action, int | None]]] = {
    # plain_continuation: bare argument text at an index that has a call
    "B1-own-index": (
        state((0, "a", "f", OPEN), (1, "b", "g", '{"tz": ')),
        frag(0, args='ris"}'),
        ("plain_continuation", CONTINUE, 0),
    ),
    "B1-interleaved-other-index": (
        state((0, "a", "f", OPEN), (1, "b", "g", '{"tz": ')),
        frag(1, args='"UTC"}'),
        ("plain_continuation", CONTINUE, 1),
    ),
    "D3-escape-piece": (
        state((0, "a", "f", '{"q": "x\\')),
        frag(0, args='u00e9"}'),
        ("plain_continuation", CONTINUE, 0),
    ),
    "A3-blank-then-brace-opens-nothing": (
        state((0, "c1", "list_files", "")),
        frag(0, args=' {"'),
        ("plain_continuation", CONTINUE, 0),
    ),
    # signature_only: signs the call it addresses, or is held
    "F2-by-index": (
        state((0, "a", "f", DONE), (1, "b", "g", DONE)),
        frag(0, signature=SIG),
        ("signature_only", SIGN, 0),
    ),
    "F2-by-id": (
        state((0, "a", "f", DONE), (1, "b", "g", DONE)),
        frag(None, "a", signature=SIG),
        ("signature_only", SIGN, 0),
    ),
    "F2-neither-signs-the-latest": (
        state((None, "a", "f", DONE), (None, "b", "g", DONE)),
        frag(signature=SIG),
        ("signature_only", SIGN, 1),
    ),
    "F2-empty-arguments-still-signature-only": (
        state((0, "a", "f", DONE)),
        frag(0, args="", signature=SIG),
        ("signature_only", SIGN, 0),
    ),
    "F3-before-its-call": (
        state((0, "a", "f", DONE)),
        frag(1, signature=SIG),
        ("signature_only", HOLD, None),
    ),
    "F3-nothing-yet": (state(), frag(signature=SIG), ("signature_only", HOLD, None)),
    # known_id: an id already seen continues that call; complete arguments re-sent: C4
    "C1-id-and-name-repeated": (
        state((0, "a", "read_file", OPEN)),
        frag(0, "a", "read_file", 'ris"}'),
        ("known_id", CONTINUE, 0),
    ),
    "C1-known-id-another-index": (
        state((0, "a", "f", OPEN), (1, "b", "g", "")),
        frag(1, "a", args='ris"}'),
        ("known_id", CONTINUE, 0),
    ),
    "C4-resent-verbatim": (
        state((0, "a", "f", DONE)),
        frag(0, "a", "f", DONE),
        ("known_id", DUPLICATE, 0),
    ),
    "C4-resent-reformatted": (
        state((0, "a", "f", DONE)),
        frag(None, "a", args=' { "city" : "Paris" } '),
        ("known_id", DUPLICATE, 0),
    ),
    "C4-other-arguments-continue": (
        state((0, "a", "f", DONE)),
        frag(0, "a", args='{"city": "Rome"}'),
        ("known_id", CONTINUE, 0),
    ),
    # new_id: an unseen id opens a call, unless the call at its slot has no id yet
    "B2-same-index-other-id": (
        state((0, "a", "f", '{"q": 1}')),
        frag(0, "b", "f", '{"q": 2}'),
        ("new_id", NEW, None),
    ),
    "B6-new-id-without-index": (
        state((None, "a", "f", DONE)),
        frag(None, "b", "g", ""),
        ("new_id", NEW, None),
    ),
    "C3-id-after-the-arguments": (
        state((0, None, None, OPEN)),
        frag(0, "c1", "f"),
        ("new_id", CONTINUE, 0),
    ),
    "C3-id-after-the-arguments-no-index": (
        state((None, None, None, OPEN)),
        frag(None, "c1", args='ris"}'),
        ("new_id", CONTINUE, 0),
    ),
    "C3-slot-complete-opens": (
        state((0, None, "f", DONE)),
        frag(0, "c1", "g", "{}"),
        ("new_id", NEW, None),
    ),
    # at_known_index: an id-less fragment at an index that has a call
    "B3-named-new-value-after-complete": (
        state((0, None, "grep", DONE)),
        frag(0, None, "read_file", '{"path"'),
        ("at_known_index", NEW, None),
    ),
    "B4-value-after-complete-follows-on": (
        state((0, "c1", "f", DONE)),
        frag(0, args=' {"city": "Rome"}'),
        ("at_known_index", FOLLOW_ON, 0),
    ),
    "B5-name-alone-after-complete": (
        state((0, "c1", "read_file", '{"path": "a.txt"}')),
        frag(0, name="read_file"),
        ("at_known_index", NEW, None),
    ),
    "C1-name-repeated-no-id": (
        state((0, None, "read_file", OPEN)),
        frag(0, None, "read_file", 'ris"}'),
        ("at_known_index", CONTINUE, 0),
    ),
    "C2-name-in-pieces": (
        state((0, "c1", "edit_ex", "")),
        frag(0, name="isting_file"),
        ("at_known_index", CONTINUE, 0),
    ),
    "C3-name-after-the-arguments": (
        state((0, None, None, DONE)),
        frag(0, name="f"),
        ("at_known_index", CONTINUE, 0),
    ),
    # at_new_index: an id-less fragment at an index never seen before
    "B7-named-at-a-new-index": (
        state((3, "toolu_a", "read_file", DONE)),
        frag(-2, name="get_time", args=""),
        ("at_new_index", NEW, None),
    ),
    "B7-first-call-above-zero": (
        state(),
        frag(7, name="list_dir", args='{"dir": "."}'),
        ("at_new_index", NEW, None),
    ),
    "B8-index-changes-inside-a-call": (
        state((1, "x", "search", "")),
        frag(0, args='{"q":'),
        ("at_new_index", CONTINUE, 0),
    ),
    "B9-phantom-opens-a-provisional-call": (
        state(),
        frag(-1, args="{}"),
        ("at_new_index", NEW, None),
    ),
    "B9-after-a-complete-call": (
        state((0, "toolu_1", "read_file", DONE)),
        frag(-1, args="{}"),
        ("at_new_index", NEW, None),
    ),
    "empty-entry-at-a-new-index": (
        state((0, "a", "f", OPEN)),
        frag(5),
        ("at_new_index", IGNORE, None),
    ),
    # without_index: neither id nor index
    "B6-continues-the-open-call": (
        state((None, "a", "get_weather", OPEN)),
        frag(args='ris"}'),
        ("without_index", CONTINUE, 0),
    ),
    "B6-new-value-follows-on": (
        state((None, "a", "f", DONE)),
        frag(args='{"city": "Rome"}'),
        ("without_index", FOLLOW_ON, 0),
    ),
    "B6-named-new-value": (
        state((None, "a", "f", DONE)),
        frag(name="g", args='{"tz": "UTC"}'),
        ("without_index", NEW, None),
    ),
    "B6-name-alone-after-complete": (
        state((None, "a", "f", DONE)),
        frag(name="g"),
        ("without_index", NEW, None),
    ),
    "B6-first-fragment": (state(), frag(name="f"), ("without_index", NEW, None)),
    "B6-empty-entry": (state(), frag(), ("without_index", IGNORE, None)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_route(case: str) -> None:
    choice, fragment, expected = CASES[case]
    assert decide(choice, fragment) == expected


def test_every_rule_has_a_case() -> None:
    assert {rule for _, _, (rule, _, _) in CASES.values()} == {rule.__name__ for rule in RULES}


def test_routing_only_decides() -> None:
    """A rule reads the state and changes nothing (the assembler applies)."""
    for choice, fragment, _ in CASES.values():
        before = _snapshot(choice)
        route(choice, fragment)
        assert _snapshot(choice) == before


def _snapshot(choice: ChoiceState) -> Any:
    return (
        [(c.position, c.wire_index, c.id, c.name, list(c.parts)) for c in choice.calls],
        {i: c.position for i, c in choice.by_index.items()},
        {i: c.position for i, c in choice.by_id.items()},
        dict(choice.held_signatures),
    )


# --------------------------------------------------------------------------- names

NO_TOOLS: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    ("current", "name", "tools", "merged"),
    [
        # C3: the first name a call gets, whenever it arrives
        (None, "read_file", NO_TOOLS, "read_file"),
        (None, "read_file", frozenset({"write_file"}), "read_file"),
        # C1: the name repeated on every fragment
        ("read_file", "read_file", NO_TOOLS, "read_file"),
        ("read_file", "read_file", frozenset({"read_file", "list"}), "read_file"),
        ("read", "read", frozenset({"read", "read_file"}), "read"),
        # C1: a name re-sent whole, longer than the piece so far
        ("read", "read_file", NO_TOOLS, "read_file"),
        # C2: the name in pieces
        ("edit_ex", "isting_file", NO_TOOLS, "edit_existing_file"),
        ("edit_ex", "isting_file", frozenset({"edit_existing_file"}), "edit_existing_file"),
        ("edit_", "ex", frozenset({"edit_existing_file"}), "edit_ex"),  # a declared prefix
        ("read", "_file", frozenset({"read", "read_file"}), "read_file"),
        ("get", "_time", NO_TOOLS, "get_time"),
        # declared tools decide: the new name if declared, else the current one
        ("f", "search", frozenset({"search"}), "search"),
        ("search", "xyz", frozenset({"search"}), "search"),
        ("search", "xyz", frozenset({"other"}), "searchxyz"),
    ],
)
def test_merged_name(current: str | None, name: str, tools: frozenset[str], merged: str) -> None:
    assert merged_name(current, name, tools) == merged


@pytest.mark.parametrize(
    ("finish_reason", "error"),
    [
        ("error", True),  # E5: OpenRouter
        ("stop", False),
        ("tool_calls", False),
        ("length", False),  # E4 is judged at the end, from the arguments
        ("end_turn", False),
        ("content_filter", False),
        ("ERROR", False),
        ("", False),
    ],
)
def test_is_error_finish(finish_reason: str, error: bool) -> None:
    assert is_error_finish(finish_reason) is error
