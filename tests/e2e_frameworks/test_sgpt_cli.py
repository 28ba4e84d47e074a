"""The ``sgpt`` command line over real HTTP, stock and patched.

Each run is a fresh process (``python -m sgpt``, or for the patched run a one-line
wrapper that calls ``streamfix.install("sgpt")`` before sgpt's console-script entry point
``sgpt:cli``), with its own ``HOME``, caches and one recording function
(``execute_shell_command``, which appends its argument to a file and runs nothing).
``DEFAULT_MODEL`` picks the replay scenario; ``API_BASE_URL`` points sgpt's ``openai``
client at the replay server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import report_stock_loss
from support.sgpt_cli import sgpt

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

THREE = [
    c["arguments"]["shell_command"]
    for c in streamfix.testing.scenarios()["b1-three-commands"].calls
]


def test_stock_sgpt_glues_three_calls_and_crashes(
    streamfix_server: ReplayServer, tmp_path: Path
) -> None:
    """Stock shell_gpt 1.5 appends every fragment to one arguments string, whatever its
    index: three calls become ``{...}{...}{...}`` and ``json.loads`` raises."""
    run = sgpt(
        streamfix_server, tmp_path / "home", "b1-three-commands", "--functions", patched=False
    )
    assert run.code != 0
    assert "Traceback" in run.stderr
    crash = run.stderr.strip().splitlines()[-1]  # the traceback's last line: the exception
    report_stock_loss("sgpt cli b1-three-commands", crash, "JSONDecodeError: Extra data")
    assert run.ran == []


def test_patched_sgpt_runs_the_three_calls(streamfix_server: ReplayServer, tmp_path: Path) -> None:
    before = len(streamfix_server.requests)
    run = sgpt(
        streamfix_server, tmp_path / "home", "b1-three-commands", "--functions", patched=True
    )
    assert run.code == 0, run.stderr
    assert run.ran == THREE  # each call ran once, in order, with its own arguments
    assert run.stdout.count("@FunctionCall") == 3
    for command in THREE:
        assert f"ran: {command}" in run.stdout
    assert run.stdout.rstrip().endswith("done")  # the follow-up answer
    # The follow-up request carried the whole turn: one assistant message with the three
    # calls, then one tool message per call, addressed by the calls' own ids.
    requests = streamfix_server.requests[before:]
    assert len(requests) == 2
    follow_up = requests[1]["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "tool", "tool", "tool"]
    calls = follow_up[2]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"shell_command": c} for c in THREE
    ]
    assert [m["tool_call_id"] for m in follow_up[3:]] == ["call_0", "call_1", "call_2"]


@pytest.mark.parametrize("patched", [False, True], ids=["stock", "patched"])
def test_text_streams_the_same_without_functions(
    streamfix_server: ReplayServer, tmp_path: Path, patched: bool
) -> None:
    run = sgpt(streamfix_server, tmp_path / "home", "text", "--no-functions", patched=patched)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "Hello from streamfix."
    assert run.ran == []
    assert "tools" not in streamfix_server.requests[-1]
