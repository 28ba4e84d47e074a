"""google-adk shim tests: every test starts and ends with stock ADK (fakes: adk_fakes.py).

In direct mode (``STREAMFIX_DIRECT=1``: ``nox -s upstream_patch-adk``, google-adk patched
with ``docs/upstream/google-adk-*.patch``) the class under test is ADK's own ``LiteLlm``
(``adk_fakes.FIXED``), and the tests of stock's failures and of the shim's API are
deselected."""

from __future__ import annotations

import pytest
from support import deselect_in_direct_mode, shim_fixture

_no_patch_left = shim_fixture("adk", autouse=True, name="_no_patch_left")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)
