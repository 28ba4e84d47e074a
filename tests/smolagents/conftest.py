"""Fixtures of the smolagents shim tests: every test starts and ends with stock smolagents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support import shim_fixture

_stock = shim_fixture("smolagents", autouse=True, name="_stock")
patched = shim_fixture("smolagents", install=True, name="patched")


@pytest.fixture
def stock() -> Callable[..., Any]:
    """smolagents' own ``agglomerate_stream_deltas`` (the patch is not active)."""
    import smolagents.models

    import streamfix_smolagents

    assert not streamfix_smolagents.installed()
    return smolagents.models.agglomerate_stream_deltas
