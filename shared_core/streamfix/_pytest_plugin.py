"""pytest plugin (entry point ``pytest11``): the ``streamfix_server`` fixture.

Loaded by pytest in every project that installs adk-streamfix, so it imports nothing
beyond pytest and the standard library until the fixture is used (uvicorn is the
optional ``serve`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._server import ReplayServer

__all__ = ["streamfix_server"]


@pytest.fixture(scope="session")
def streamfix_server() -> Iterator[ReplayServer]:
    """The replay server on 127.0.0.1 with a free port, for the whole session.

    Yields a :class:`streamfix.ReplayServer`: ``.url``, ``.openai_base_url`` (``/v1``,
    for the ``openai`` SDK and litellm's ``openai/``), ``.ollama_base_url`` (for
    ``ollama_chat/``), ``.requests`` (the request bodies received). The model name picks
    the scenario (``streamfix.scenarios()``).
    """
    pytest.importorskip("uvicorn", reason="streamfix_server needs adk-streamfix[serve]")
    with ReplayServer("127.0.0.1", 0) as server:
        yield server
