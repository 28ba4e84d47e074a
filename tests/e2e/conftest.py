"""End-to-end tests over real HTTP: the replay server (``streamfix_server``, from the
streamfix pytest plugin) on 127.0.0.1 with a free port, real SDK clients against it."""

from __future__ import annotations

from typing import Any

import pytest
from support import deselect_in_direct_mode, shim_fixture

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


_litellm_stock = shim_fixture("litellm", autouse=True, name="_litellm_stock")
litellm_patched = shim_fixture("litellm", install=True, name="litellm_patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)
