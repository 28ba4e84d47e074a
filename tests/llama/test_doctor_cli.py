"""``streamfix doctor --live`` (the command line, a process of its own) against
llama-server: the same verdicts as the matrix of ``test_frameworks.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from streamfix.testing import LiveTarget


def test_doctor_live_json(llama_target: LiveTarget) -> None:
    streamfix = Path(sys.executable).with_name("streamfix")
    argv = [str(streamfix), "doctor", "--live", llama_target.url, "--model", llama_target.model]
    done = subprocess.run(
        [*argv, "-f", "litellm", "-f", "openai", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["ok"] is True
    assert data["target"]["api"] == "openai"
    cells = {(r["framework"], r["case"]): r for r in data["results"]}
    assert len(cells) == 8
    assert all(r["usable"] and r["patched_ok"] for r in cells.values())
    assert [key for key, r in cells.items() if not r["stock_ok"]] == [("litellm", "truncated-call")]
