"""shell_gpt reads its configuration and loads its functions when first imported: give it
a private home, cache folders and one recording function before anything imports sgpt
(its API key is the tests' own, set in ``tests/conftest.py``). Every test starts and ends
with stock shell_gpt."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from support import deselect_in_direct_mode, shim_fixture
from support.sgpt_cli import FUNCTION

_HOME = Path(tempfile.mkdtemp(prefix="streamfix-sgpt-"))
for _name, _value in {
    "HOME": str(_HOME),
    "OPENAI_FUNCTIONS_PATH": str(_HOME / "functions"),
    "CACHE_PATH": str(_HOME / "cache"),
    "CHAT_CACHE_PATH": str(_HOME / "chat_cache"),
    "SHOW_FUNCTIONS_OUTPUT": "true",
}.items():
    os.environ[_name] = _value

(_HOME / "functions").mkdir()
(_HOME / "functions" / "execute_shell_command.py").write_text(FUNCTION, encoding="utf-8")

_stock = shim_fixture("sgpt", autouse=True, name="_stock")
patched = shim_fixture("sgpt", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)
