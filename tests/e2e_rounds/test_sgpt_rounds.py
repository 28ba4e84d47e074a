"""The ``sgpt`` command line with ``--functions`` against ``rounds-commands``: four rounds
of three ``execute_shell_command`` calls, each call at its own index, then the final text.
shell_gpt runs a multi-round tool loop in one process, non-interactively: after running a
round's functions it sends their results back and streams the next answer (its handler
recurses), until an answer has no call. ``--chat`` keeps that history in its chat cache.

The process and its recording function are ``support.sgpt_cli.sgpt()``, as in
``tests/e2e_frameworks/test_sgpt_cli.py``."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROUNDS, expected_ran
from support import report_stock_loss
from support.sgpt_cli import sgpt

from streamfix.testing import ReplayServer

SCRIPT = "rounds-commands"
COMMANDS = [arguments["shell_command"] for _, arguments in expected_ran(SCRIPT)]


def test_stock_sgpt_crashes_in_round_1(streamfix_server: ReplayServer, tmp_path: Path) -> None:
    """Stock shell_gpt 1.5 appends every fragment of a turn to one arguments string: round
    1's three calls become ``{...}{...}{...}`` and ``json.loads`` raises; no function runs
    and round 2 is never asked for."""
    before = len(streamfix_server.requests)
    run = sgpt(streamfix_server, tmp_path / "home", SCRIPT, "--functions", patched=False)
    assert run.code != 0
    crash = run.stderr.strip().splitlines()[-1]  # the traceback's last line: the exception
    report_stock_loss("sgpt rounds-commands round 1", crash, "JSONDecodeError: Extra data")
    assert run.ran == []
    assert len(streamfix_server.requests) - before == 1


def test_patched_sgpt_chat_runs_five_rounds(streamfix_server: ReplayServer, tmp_path: Path) -> None:
    before = len(streamfix_server.requests)
    home = tmp_path / "home"
    run = sgpt(streamfix_server, home, SCRIPT, "--functions", "--chat", "rounds", patched=True)
    assert run.code == 0, run.stderr
    assert run.ran == COMMANDS  # the twelve calls, round by round, each once, in order
    assert run.stdout.count("@FunctionCall") == 12
    assert run.stdout.rstrip().endswith(ROUNDS[SCRIPT].final)
    requests = streamfix_server.requests[before:]
    assert len(requests) == 5  # rounds 2 to 5 each validated the rounds before
    last = requests[-1]["messages"]
    assert [m["role"] for m in last].count("tool") == 12
    # --chat kept the whole loop: the cached chat holds the five rounds' messages
    (cached,) = (home / "chat_cache").iterdir()
    history = json.loads(cached.read_text(encoding="utf-8"))
    assert [m["role"] for m in history].count("assistant") == 5
