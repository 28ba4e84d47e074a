"""The litellm wire's tests: every test starts and ends with the shim uninstalled;
``patched`` installs it for the test. Helpers: ``wire_http``.

Direct mode (``STREAMFIX_DIRECT=1``: litellm patched with ``docs/upstream``) has no wire:
every module here is marked ``shim_only`` (deselected there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import deselect_in_direct_mode, shim_fixture

_stock = shim_fixture("litellm", autouse=True, name="_stock")
patched = shim_fixture("litellm", install=True, name="patched")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_in_direct_mode(config, items)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """``sync`` (``__next__``) and ``async`` (``__anext__``)."""
    yield request.param
