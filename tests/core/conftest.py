"""Fixtures of the core tests: the same stream as dicts, openai objects or litellm objects."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from chunks import KINDS, Kind


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    """The chunk type under test; restrict with ``parametrize("kind", [...], indirect=True)``."""
    return Kind(request.param)
