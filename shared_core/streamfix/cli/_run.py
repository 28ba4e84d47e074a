"""``streamfix run -- python app.py ...``: run a program with every installed patch active.

As ``opentelemetry-instrument`` does it: the directory of
:mod:`streamfix.cli._run_site` (a ``sitecustomize`` calling
:func:`streamfix.install_on_import`) is put first on ``PYTHONPATH``, then the command
replaces this process. Every Python interpreter the command starts
(and the ones those start) patches the installed frameworks at start-up, with no change
to the program's code. A ``sitecustomize`` the program already had still runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["SITE_DIR", "command_env", "run"]

SITE_DIR = str(Path(__file__).with_name("_run_site"))
"""The directory put first on ``PYTHONPATH``."""


def command_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the command: ``PYTHONPATH`` with :data:`SITE_DIR` first."""
    env = dict(os.environ if environ is None else environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != SITE_DIR]
    env["PYTHONPATH"] = os.pathsep.join([SITE_DIR, *parts])
    return env


def run(argv: list[str]) -> int:
    """Run ``argv`` with the patches active; its exit status (on POSIX the command
    replaces this process, so this returns only when it cannot be started)."""
    if not argv:
        print("streamfix run: nothing to run (streamfix run -- python app.py ...)", file=sys.stderr)
        return 2
    executable = shutil.which(argv[0])
    if executable is None:
        print(f"streamfix run: command not found: {argv[0]}", file=sys.stderr)
        return 127
    env = command_env()
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(executable, argv, env)
    return subprocess.call([executable, *argv[1:]], env=env)  # pragma: no cover - Windows
