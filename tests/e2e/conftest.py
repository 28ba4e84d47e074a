"""End-to-end tests over real HTTP: the replay server (``streamfix_server``, from the
streamfix pytest plugin) on 127.0.0.1 with a free port, real SDK clients against it."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Iterator
from typing import Any

import pytest

USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]


def expected_calls(scenario: Any) -> list[tuple[Any, ...]]:
    """(id, name, parsed arguments, signature) of each call the scenario must assemble to."""
    signatures = scenario.signatures or (None,) * len(scenario.calls)
    return [
        (call["id"], call["name"], call["arguments"], signature)
        for call, signature in zip(scenario.calls, signatures, strict=True)
    ]


def assembled_calls(message: Any) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.parsed, c.thought_signature) for c in message.tool_calls]


@pytest.fixture
def litellm_patched() -> Iterator[None]:
    """The litellm shim installed for one test, uninstalled after."""
    import streamfix_litellm

    streamfix_litellm.install()
    try:
        yield
    finally:
        streamfix_litellm.uninstall()


@pytest.fixture(autouse=True)
def _litellm_stock() -> Iterator[None]:
    """Every test starts (and leaves) litellm unpatched."""
    import streamfix_litellm

    streamfix_litellm.uninstall()
    yield
    streamfix_litellm.uninstall()
