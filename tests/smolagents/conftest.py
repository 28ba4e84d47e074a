"""Fixtures of the smolagents shim tests."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def stock() -> Callable[..., Any]:
    """smolagents' own ``agglomerate_stream_deltas`` (the patch is not active)."""
    import smolagents.models

    import streamfix_smolagents

    assert not streamfix_smolagents.installed()
    return smolagents.models.agglomerate_stream_deltas


@pytest.fixture
def patched() -> Iterator[None]:
    """The patch active for one test, removed after it."""
    import streamfix_smolagents

    streamfix_smolagents.install()
    try:
        yield
    finally:
        streamfix_smolagents.uninstall()
