"""litellm shim tests: every test starts and ends with stock litellm."""

from __future__ import annotations

import pytest
from support import deselect_in_direct_mode, shim_fixture

_stock = shim_fixture("litellm", autouse=True, name="_stock")
patched = shim_fixture("litellm", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)
