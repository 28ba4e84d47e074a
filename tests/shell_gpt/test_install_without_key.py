"""``streamfix.install()`` without ``OPENAI_API_KEY``, shell_gpt installed (this folder's
session has it): one log line, shell_gpt never imported (it would ask for a key)."""

from __future__ import annotations

import json
from pathlib import Path

from core.test_registry import _INSTALL_ALL, _fresh


def test_install_without_an_openai_key_logs_one_line_for_sgpt(tmp_path: Path) -> None:
    done = _fresh(_INSTALL_ALL, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "WARNING:streamfix:sgpt skipped: shell_gpt needs OPENAI_API_KEY (any value)"
    ]
    result = json.loads(done.stdout.splitlines()[-1])
    assert "sgpt" not in result["done"] and "sgpt" not in result["installed"]
    assert not (tmp_path / ".config").exists()  # shell_gpt was never imported
