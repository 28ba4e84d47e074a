"""Fixtures of the smolagents shim tests: every test starts and ends with stock smolagents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support import deselect_in_direct_mode, redirect, shim_fixture

_stock = shim_fixture("smolagents", autouse=True, name="_stock")
patched = shim_fixture("smolagents", install=True, name="patched")

#: Direct mode (``STREAMFIX_DIRECT=1``, smolagents patched with the
#: docs/upstream/smolagents-*.patch series): the shim's drop-in a test calls is smolagents' own.
DROP_INS = {
    "streamfix_smolagents:agglomerate_stream_deltas": "smolagents.models:agglomerate_stream_deltas"
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)


@pytest.fixture(autouse=True)
def _direct_drop_ins() -> Iterator[None]:
    with redirect(DROP_INS):
        yield


@pytest.fixture
def stock() -> Callable[..., Any]:
    """smolagents' own ``agglomerate_stream_deltas`` (the patch is not active)."""
    import smolagents.models

    import streamfix_smolagents

    assert not streamfix_smolagents.installed()
    return smolagents.models.agglomerate_stream_deltas
