"""google-adk shim tests: every test starts and ends with stock ADK (fakes: adk_fakes.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _no_patch_left() -> Iterator[None]:
    """Every test starts and ends with stock ADK."""
    import streamfix_adk

    streamfix_adk.uninstall()
    yield
    streamfix_adk.uninstall()
