"""The ``sgpt`` command line as the end-to-end tests run it: one fresh process per run
(``python -m sgpt``, or for the patched run a one-line wrapper that calls
``streamfix.install("sgpt")`` before sgpt's console-script entry point ``sgpt:cli``), with
its own ``HOME``, caches and one recording function (``execute_shell_command``, which
appends its argument to a file and runs nothing). ``DEFAULT_MODEL`` picks the replay
scenario; ``API_BASE_URL`` points sgpt's ``openai`` client at the replay server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from streamfix.testing import ReplayServer

__all__ = ["FUNCTION", "Run", "sgpt"]

PATCHED_MAIN = "import streamfix; streamfix.install('sgpt'); from sgpt import cli; cli()"
TIMEOUT = 60

FUNCTION = textwrap.dedent(
    '''
    import os

    from pydantic import BaseModel, Field


    class Function(BaseModel):
        """Records the shell command it would run (runs nothing), in $STREAMFIX_RECORD."""

        shell_command: str = Field(..., description="Shell command to execute.")

        @classmethod
        def execute(cls, shell_command: str) -> str:
            record = os.environ.get("STREAMFIX_RECORD")
            if record:
                with open(record, "a", encoding="utf-8") as out:
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
