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
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

THREE = [
    c["arguments"]["shell_command"]
    for c in streamfix.testing.scenarios()["b1-three-commands"].calls
]
PATCHED_MAIN = "import streamfix; streamfix.install('sgpt'); from sgpt import cli; cli()"
TIMEOUT = 60

FUNCTION = textwrap.dedent(
    '''
    import os

    from pydantic import BaseModel, Field


    class Function(BaseModel):
        """Records the shell command it would run (runs nothing)."""

        shell_command: str = Field(..., description="Shell command to execute.")

        @classmethod
        def execute(cls, shell_command: str) -> str:
            with open(os.environ["STREAMFIX_RECORD"], "a", encoding="utf-8") as out:
                out.write(shell_command + "\\n")
            return f"ran: {shell_command}"

        @classmethod
        def openai_schema(cls):
            schema = cls.model_json_schema()
            return {
                "type": "function",
                "function": {
                    "name": "execute_shell_command",
                    "description": "Executes a shell command.",
                    "parameters": {
                        "type": "object",
                        "properties": schema["properties"],
                        "required": schema["required"],
                    },
                },
            }
    '''
)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    ran: list[str]


def sgpt(server: ReplayServer, home: Path, scenario: str, *args: str, patched: bool) -> Run:
    """One ``sgpt`` process against the replay server."""
    home.mkdir()
    functions = home / "functions"
    functions.mkdir()
    (functions / "execute_shell_command.py").write_text(FUNCTION, encoding="utf-8")
    record = home / "ran.txt"
    env = {
        **os.environ,
        "HOME": str(home),
        "API_BASE_URL": server.openai_base_url,
        "DEFAULT_MODEL": scenario,
        "OPENAI_FUNCTIONS_PATH": str(functions),
        "CACHE_PATH": str(home / "cache"),
        "CHAT_CACHE_PATH": str(home / "chat_cache"),
        "SHOW_FUNCTIONS_OUTPUT": "true",
        "PRETTIFY_MARKDOWN": "false",
        "STREAMFIX_RECORD": str(record),
    }
    main = ["-c", PATCHED_MAIN] if patched else ["-m", "sgpt"]
    done = subprocess.run(
        [sys.executable, *main, "--no-cache", *args, "What is here?"],
        env=env,
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    ran = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return Run(done.returncode, done.stdout, done.stderr, ran)


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
    assert "JSONDecodeError" in run.stderr and "Extra data" in run.stderr
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
