"""A call the server cuts off and never streams (llama-server under ``max_tokens``): the
server's own loss, never a failing patch (issue 23).

The replay server answers ``LLAMA_CUT_CALL`` as llama-server does: non-streamed the cut
text of the call with ``finish_reason: length``, streamed a role chunk and
``finish_reason: length`` only. Nothing on the wire could have been assembled: every
cell's verdict is ``"server-loss"``, and the doctor's exit status stays 0 unless a
patched framework loses something the stream carried.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from conftest import CASES, LLAMA_CUT_CALL, SCENARIOS
from support import report_stock_loss
from support.cli import cli

from streamfix.testing import (
    DRIVERS,
    SERVER_LOSS,
    LiveTarget,
    Outcome,
    ReplayServer,
    judge_server_loss,
    live_check,
    server_lost,
)

NAME = LLAMA_CUT_CALL.name
#: The doctor's reason for stock litellm's E4 (reported when it changes).
E4_STOCK_WHY = "incomplete call handed on: get_time"
IN_PROCESS = ["openai", "litellm", "smolagents", "smolagents-litellm", "adk"]


@pytest.fixture(scope="module")
def llama() -> Iterator[ReplayServer]:
    """The replay server with the corpus and the llama-server scenario."""
    with ReplayServer(scenarios={**SCENARIOS, NAME: LLAMA_CUT_CALL}) as server:
        yield server


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "220")  # rich's table at full width


def _target(server: ReplayServer) -> LiveTarget:
    return LiveTarget(server.openai_base_url, NAME, "openai")


@pytest.mark.parametrize("framework", [*IN_PROCESS, "sgpt"])
def test_a_call_the_stream_never_carried_is_the_servers_loss(
    llama: ReplayServer, framework: str
) -> None:
    before = len(llama.requests)
    result = live_check(framework, _target(llama), CASES["truncated-call"])
    seen = llama.requests[before:]
    assert [r.get("stream") for r in seen] == [True, True, False]  # no request of its own
    assert result.usable
    assert result.reference == Outcome((), '<tool_call>{"name"')
    assert result.reference_finish == "length"
    assert result.stock_server_loss and result.patched_server_loss
    assert (result.stock_verdict, result.patched_verdict) == ("server-loss", "server-loss")
    assert result.patched_ok and result.patched_why == SERVER_LOSS
    assert result.to_dict()["patched_verdict"] == "server-loss"


def test_a_cut_call_the_stream_carried_is_judged_as_before(llama: ReplayServer) -> None:
    """E4 (the call's cut arguments are on the wire): no server loss."""
    target = dataclasses.replace(_target(llama), model="e4-truncated")
    result = live_check("litellm", target, CASES["truncated-call"])
    assert not result.stock_server_loss and not result.patched_server_loss
    assert result.patched_verdict == "ok"
    assert result.stock_verdict == "lost"
    report_stock_loss("litellm live e4-truncated", result.stock_why, E4_STOCK_WHY)


def test_doctor_live_exit_status_zero_and_one_line(
    llama: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["doctor", "--live", llama.openai_base_url, "--model", NAME, "-f", "openai"]
    code, out, _ = cli(capsys, *argv, "-f", "litellm")
    assert code == 0, out
    assert out.count("server-loss") >= len(CASES)  # every case: the model names the scenario
    assert f"truncated-call: server-loss (openai, litellm): {SERVER_LOSS}" in out
    assert "0 failing patched" in out
    assert "LOST" not in out
    code, out, _ = cli(capsys, *argv, "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert {(r["stock_verdict"], r["patched_verdict"]) for r in data["results"]} == {
        ("server-loss", "server-loss")
    }


def test_a_patched_crash_still_fails(
    llama: ReplayServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing on the wire, and the framework crashes: that is the framework's."""
    crash = Outcome(error="KeyError: 'choices'", crash=True)
    broken = dataclasses.replace(DRIVERS["openai"], live=lambda _t, _c, _s: crash)
    monkeypatch.setitem(DRIVERS, "openai", broken)
    argv = ["doctor", "--live", llama.openai_base_url, "--model", NAME, "-f", "openai", "--json"]
    code, out, _ = cli(capsys, *argv)
    assert code == 1
    verdicts = {r["patched_verdict"] for r in json.loads(out)["results"]}
    assert verdicts == {"lost"}


def _sse_chunks(name: str) -> bytes:
    events = [f"data: {json.dumps(c)}\n\n" for c in SCENARIOS[name].chunks]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


def test_server_lost() -> None:
    cut = Outcome((), '<tool_call>{"name"')
    empty = "".join(f"data: {json.dumps(c)}\n\n" for c in LLAMA_CUT_CALL.chunks).encode()
    assert server_lost(cut, empty, "openai")
    assert server_lost(Outcome((("get_weather", {"city": "Paris"}),)), empty, "openai")
    assert not server_lost(Outcome((), ""), empty, "openai")  # nothing to lose
    assert not server_lost(Outcome(error="HTTP 500"), empty, "openai")  # unusable
    assert not server_lost(cut, None, "openai")  # no stream recorded
    assert not server_lost(cut, b"\xff not a stream", "openai")
    assert not server_lost(cut, _sse_chunks("e4-truncated"), "openai")  # a cut call is something
    assert not server_lost(cut, _sse_chunks("e5-error"), "openai")  # an error is something
    assert not server_lost(cut, _sse_chunks("text"), "openai")
    ollama = "".join(json.dumps(c) + "\n" for c in SCENARIOS["ollama-text"].chunks).encode()
    assert not server_lost(cut, ollama, "ollama")


def test_judge_server_loss() -> None:
    assert judge_server_loss(Outcome((), "")) == (True, SERVER_LOSS)
    assert judge_server_loss(Outcome(error="LengthFinishReasonError: cut")) == (True, SERVER_LOSS)
    assert judge_server_loss(Outcome(error="KeyError: 'x'", crash=True)) == (
        False,
        "crash: KeyError: 'x'",
    )
    assert judge_server_loss(Outcome((("f", {}),)))[0] is False
    assert judge_server_loss(Outcome((), "invented"))[0] is False
