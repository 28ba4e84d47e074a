"""openai shim tests: every test starts and ends with the SDK's own stream helper.

Direct mode (``STREAMFIX_DIRECT=1``, the SDK patched with the
docs/upstream/openai-python-*.patch series):
``helper.PATCHED`` is the SDK's own ``ChatCompletionStreamState``, and the tests that need
stock (the ``stock`` fixture, ``stock_failure``) or the shim (``shim_only``) are deselected.
"""

from __future__ import annotations

from typing import Any

import pytest
from support import deselect_in_direct_mode, shim_fixture

_stock = shim_fixture("openai", autouse=True, name="_stock")
patched = shim_fixture("openai", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)


@pytest.fixture
def stock() -> Any:
    """The SDK's own ``ChatCompletionStreamState`` (the shim is not installed)."""
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState

    import streamfix_openai

    assert not streamfix_openai.installed()
    return ChatCompletionStreamState
