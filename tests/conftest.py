"""Shared test set-up: environment for litellm and shell_gpt, markers from folder names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# litellm fetches its cost map from the network on import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-streamfix-test")

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is in the test group
    pass
else:
    settings.register_profile(
        "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
    )
    settings.register_profile("dev", deadline=None, max_examples=50)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

_TESTS = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test is marked with its area: tests/<area>/... gets the marker <area>."""
    for item in items:
        try:
            area = Path(item.fspath).relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        item.add_marker(getattr(pytest.mark, area))
