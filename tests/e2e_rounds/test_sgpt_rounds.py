"""The ``sgpt`` command line with ``--functions`` against ``rounds-commands``: four rounds
of three ``execute_shell_command`` calls, each call at its own index, then the final text.
shell_gpt runs a multi-round tool loop in one process, non-interactively: after running a
round's functions it sends their results back and streams the next answer (its handler
recurses), until an answer has no call. ``--chat`` keeps that history in its chat cache.

The process and its recording function are ``tests/e2e_frameworks/test_sgpt_cli.py``'s
``sgpt()`` (loaded from that file, not written twice)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from conftest import ROUNDS, expected_ran

from streamfix.testing import ReplayServer

SCRIPT = "rounds-commands"
COMMANDS = [arguments["shell_command"] for _, arguments in expected_ran(SCRIPT)]


def _sgpt_cli() -> ModuleType:
    path = Path(__file__).parents[1] / "e2e_frameworks" / "test_sgpt_cli.py"
    spec = importlib.util.spec_from_file_location("streamfix_e2e_sgpt_cli", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


sgpt = _sgpt_cli().sgpt


def test_stock_sgpt_crashes_in_round_1(streamfix_server: ReplayServer, tmp_path: Path) -> None:
    """Stock shell_gpt 1.5 appends every fragment of a turn to one arguments string: round
    1's three calls become ``{...}{...}{...}`` and ``json.loads`` raises; no function runs
    and round 2 is never asked for."""
    before = len(streamfix_server.requests)
    run = sgpt(streamfix_server, tmp_path / "home", SCRIPT, "--functions", patched=False)
    assert run.code != 0
    assert "JSONDecodeError" in run.stderr and "Extra data" in run.stderr
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
