"""The OpenAI Agents SDK's ``LitellmModel`` (``openai-agents[litellm]``) under
``Runner.run_streamed`` over real HTTP (the replay server, ``openai/<scenario>`` on its
``/v1``): the first model response's ``function_call`` items (name, arguments,
``call_id``) and ``message`` text, the ``tool_called`` events, the tools run and the
follow-up text as the final output; stock and on the litellm wire
(``streamfix.install("litellm")``: litellm's ``CustomStreamWrapper`` repaired).

``LitellmModel`` streams through ``litellm.acompletion`` and reads the chunks with the
SDK's ``ChatCmplStreamHandler`` (tool-call deltas keyed by ``index``, as on
``OpenAIChatCompletionsModel``); litellm's own chunk parsing comes first (a
signature-only tool-call entry, F2, is a ``ValidationError`` it logs and drops).
"""

from __future__ import annotations

from typing import Any

import agents_checks as checks
import pytest
from conftest import (
    NAMES,
    OPENAI,
    PASSED_THROUGH,
    Got,
    assert_lost,
    assert_right,
    assert_same,
    wire_error,
)
from support import assert_doctor_column, shim_fixture

import streamfix
import streamfix_litellm
from streamfix.testing import ReplayServer

agents = pytest.importorskip("agents")
pytest.importorskip("agents.extensions.models.litellm_model")

from streamfix_litellm import _doctor_openai_agents as driver  # noqa: E402

_litellm_stock = shim_fixture("litellm", autouse=True, name="_litellm_stock")
litellm_patched = shim_fixture("litellm", install=True, name="litellm_patched")

#: What stock openai-agents on LitellmModel loses on the corpus (the doctor's
#: ``openai-agents-litellm`` column).
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index: the first lost, the arguments glued",
    "b3-same-index": "two calls at one index, no ids: ModelBehaviorError, no call id",
    "b6-no-index": "calls without an index: the first lost, the arguments glued",
    "f2-late-signature": "a signature-only entry: litellm drops it, the signature lost",
    "g3-shared-id": "two calls sharing an id: ModelBehaviorError",
    "h1-legacy-function-call": "a legacy function_call: no tool call",
    "i1-double-encoded": "arguments a JSON string, not the object",
    "i3-restarted": "restarted arguments glued: invalid JSON",
    "e4-truncated": "the cut arguments handed on as a call",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


def _run(server: ReplayServer, name: str) -> tuple[Got, Any]:
    agent = driver.agent(OPENAI[name], base_url=server.openai_base_url, api_key="sk-streamfix-test")
    return checks.run(driver, OPENAI[name], agent)


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, litellm_patched: None, name: str) -> None:
    got, ran = _run(streamfix_server, name)
    assert_right(OPENAI[name], got)
    checks.assert_tools_ran(OPENAI[name], got, ran)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    got, _ = _run(streamfix_server, name)
    assert_lost(OPENAI[name], got)


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same stream events in the same order."""
    stock, stock_ran = _run(streamfix_server, name)
    streamfix_litellm.install()
    patched, patched_ran = _run(streamfix_server, name)
    assert_same(OPENAI[name], stock, patched)
    if name in PASSED_THROUGH:
        assert checks.events(patched_ran) == checks.events(stock_ran)


@pytest.mark.parametrize("name", ["f1-signature", "a1-signature", "f2-late-signature"])
def test_signatures_kept_on_their_calls(
    streamfix_server: ReplayServer, litellm_patched: None, name: str
) -> None:
    """The thought signature on its own call (``provider_data``), where the SDK sends it
    back from."""
    _, ran = _run(streamfix_server, name)
    assert checks.signatures(ran) == OPENAI[name].signatures


def test_patched_cut_call_is_litellms_api_error(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    """E4 patched: litellm's ``APIError`` (the wire's error as its cause) reaches the
    caller of ``stream_events``; no tool runs."""
    import litellm

    got, ran = _run(streamfix_server, "e4-truncated")
    assert isinstance(got.error, litellm.APIError)
    assert isinstance(wire_error(got.error), streamfix.TruncatedToolCallError)
    assert ran is None


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``openai-agents-litellm`` column: the litellm wire's patch,
    0 failing patched cells, and stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("openai-agents-litellm", "litellm", STOCK_LOSSES)
