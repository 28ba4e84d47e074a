"""Gemini thought signatures (wire-shapes F1-F3) through the openai SDK's stream helper.

Gemini's OpenAI-compatible endpoint puts a call's signature on the call itself in its
non-streamed ``ChatCompletion`` (``message.tool_calls[i].extra_content =
{"google": {"thought_signature": ...}}``, a pydantic extra field); streamed, it may come
on a signature-only entry (no ``function``) after its call, with another call in between
(F2), or before its call (F3). Each case asserts the patched helper's final completion
carries every signature on its own call exactly as the non-streamed completion does,
and, where stock gets the case right, that stock does the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

import httpx
import openai
import pytest
from helper import OMIT, feed, new_state, run
from openai.lib._parsing import parse_chat_completion
from openai.types.chat import ChatCompletion, ParsedChatCompletion
from sdk import helper
from support import chunk
from support import tc as _tc

pytestmark = pytest.mark.openai

tc = partial(_tc, typed="with id")
W, T = "get_weather", "get_time"
PARIS, ZONE = json.dumps({"city": "Paris"}), json.dumps({"zone": "Europe/Paris"})
SIG_A, SIG_B = "c2lnLWE=", "c2lnLWI="


def google(signature: str) -> dict[str, Any]:
    """The provider fields Gemini's OpenAI-compatible endpoint signs a call with."""
    return {"extra_content": {"google": {"thought_signature": signature}}}


@dataclass
class Case:
    name: str
    bodies: list[dict[str, Any]]
    signatures: list[str | None]  # per call (a: get_weather, b: get_time)
    stock_right: bool
    fields: dict[str, Any] | None = None  # the calls' provider fields, as sent


def _calls_ab(*late: dict[str, Any], early: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    head = [chunk(early)] if early else []
    return [
        *head,
        chunk(tc(0, "a", W, ""), delta={"role": "assistant"}),
        chunk(_tc(0, args=PARIS)),
        chunk(tc(1, "b", T, ZONE)),
        *(chunk(entry) for entry in late),
        chunk(finish="tool_calls"),
    ]


CASES = [
    Case(
        "f1-signature-on-each-calls-first-entry",
        [
            chunk(tc(0, "a", W, "", **google(SIG_A)), delta={"role": "assistant"}),
            chunk(_tc(0, args=PARIS)),
            chunk(tc(1, "b", T, ZONE, **google(SIG_B))),
            chunk(finish="tool_calls"),
        ],
        [SIG_A, SIG_B],
        stock_right=True,
    ),
    Case(
        "f2-signature-only-entry-after-its-call-another-between",
        _calls_ab(_tc(0, **google(SIG_A))),
        [SIG_A, None],
        stock_right=False,
    ),
    Case(
        "f2-signature-only-entry-for-the-second-call",
        _calls_ab(_tc(1, **google(SIG_B))),
        [None, SIG_B],
        stock_right=False,
    ),
    Case(
        "f2-both-calls-signed-late",
        _calls_ab(_tc(0, **google(SIG_A)), _tc(1, **google(SIG_B))),
        [SIG_A, SIG_B],
        stock_right=False,
    ),
    Case(
        "f3-signature-only-entry-before-its-call",
        _calls_ab(early=_tc(0, **google(SIG_A))),
        [SIG_A, None],
        stock_right=True,
    ),
    Case(
        "f3-signature-only-entry-before-the-second-call",
        [
            chunk(tc(0, "a", W, PARIS), delta={"role": "assistant"}),
            chunk(_tc(1, **google(SIG_B))),
            chunk(tc(1, "b", T, ZONE)),
            chunk(finish="tool_calls"),
        ],
        [None, SIG_B],
        stock_right=True,
    ),
    Case(
        # the signature where another provider puts it: kept under that name
        "f2-provider-specific-fields",
        _calls_ab(_tc(0, provider_specific_fields={"thought_signature": SIG_A})),
        [SIG_A, None],
        stock_right=False,
        fields={"provider_specific_fields": {"thought_signature": SIG_A}},
    ),
]


def non_streamed(case: Case) -> ParsedChatCompletion[Any]:
    """The same response non-streamed, each signed call carrying its signature."""
    calls = []
    for (id, name, arguments), signature in zip(
        [("a", W, PARIS), ("b", T, ZONE)], case.signatures, strict=True
    ):
        call: dict[str, Any] = {
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        if signature is not None:
            call.update(case.fields or google(signature))
        calls.append(call)
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": calls},
                "finish_reason": "tool_calls",
            }
        ],
    }
    return parse_chat_completion(
        chat_completion=ChatCompletion.construct(**body), response_format=OMIT, input_tools=OMIT
    )


def signed(completion: ParsedChatCompletion[Any]) -> list[tuple[Any, ...]]:
    """Each call: id, name, arguments, and its provider fields (``index`` aside: the
    streamed snapshot's own bookkeeping, stock's as much as the shim's)."""
    return [
        (
            call.id,
            call.function.name,
            json.loads(call.function.arguments),
            {k: v for k, v in (call.model_extra or {}).items() if k != "index"},
        )
        for call in completion.choices[0].message.tool_calls or []
    ]


IDS = [case.name for case in CASES]
#: Direct mode (the openai-python series applied, no shim) runs every case: the SDK merges
#: an F3 signature sent before its call into that call by index, as stock does, and the
#: series' first patch lets the F2 signature-only entries through (issue 28).
PARAMS = [pytest.param(case, id=case.name) for case in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_signatures_on_their_calls_as_non_streamed(case: Case) -> None:
    assert signed(run("patched", case.bodies)) == signed(non_streamed(case))


@pytest.mark.parametrize("case", PARAMS)
def test_the_snapshot_carries_the_signatures_too(case: Case) -> None:
    state = new_state("patched")
    feed(state, case.bodies)
    snapshot = state.current_completion_snapshot.choices[0].message.tool_calls
    fields = [{k: v for k, v in (c.model_extra or {}).items() if k != "index"} for c in snapshot]
    assert fields == [extras for *_, extras in signed(non_streamed(case))]


@pytest.mark.stock_failure
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_stock(case: Case) -> None:
    try:
        stock: Any = signed(run("stock", case.bodies))
    except AssertionError:  # stock: ``assert tool_call_delta.function is not None``
        stock = AssertionError
    assert (stock == signed(non_streamed(case))) is case.stock_right, stock


def _sse(bodies: list[dict[str, Any]]) -> httpx.Response:
    text = "".join(f"data: {json.dumps(body)}\n\n" for body in bodies) + "data: [DONE]\n\n"
    return httpx.Response(200, text=text, headers={"content-type": "text/event-stream"})


@pytest.mark.shim_only
@pytest.mark.parametrize("case", CASES[1:3], ids=IDS[1:3])
def test_client_stream_helper(case: Case, patched: None) -> None:
    """``client.chat.completions.stream(...)`` over HTTP, the shim installed."""
    transport = httpx.MockTransport(lambda request: _sse(case.bodies))
    client = openai.OpenAI(
        api_key="test",
        base_url="http://gemini.test/v1",
        http_client=httpx.Client(transport=transport),
    )
    with helper(client)(
        model="gemini", messages=[{"role": "user", "content": "weather and time?"}]
    ) as stream:
        for _ in stream:
            pass
        completion = stream.get_final_completion()
    assert signed(completion) == signed(non_streamed(case))


def test_a_signature_only_entry_opens_no_call() -> None:
    """F3: the held signature never becomes a call of its own."""
    bodies = [chunk(_tc(0, **google(SIG_A))), chunk(tc(0, "a", W, PARIS), finish="tool_calls")]
    calls = run("patched", bodies).choices[0].message.tool_calls or []
    assert [(c.id, c.model_extra and c.model_extra.get("extra_content")) for c in calls] == [
        ("a", {"google": {"thought_signature": SIG_A}})
    ]
