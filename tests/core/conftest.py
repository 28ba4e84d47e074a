"""Fixtures of the core tests: the same stream as dicts, openai objects or litellm objects."""

from __future__ import annotations

import pytest
from support import KINDS, Kind


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    """The chunk type under test; restrict with ``parametrize("kind", [...], indirect=True)``."""
    return Kind(request.param)
