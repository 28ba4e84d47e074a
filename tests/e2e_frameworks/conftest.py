"""End-to-end tests of the frameworks over real HTTP: the replay server
(``streamfix_server``, from the streamfix pytest plugin) on 127.0.0.1 with a free port,
each framework's own client code against it, stock and patched.

Every test starts and ends with every shim uninstalled.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Iterator
from importlib.metadata import version

import pytest

API_KEY = "sk-streamfix-test"
QUESTION = "What is the weather in Paris, and the time there?"
#: The calls of the two-tool scenarios, as the tools receive them.
WEATHER_AND_TIME = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"})]


def version_of(distribution: str) -> tuple[int, ...]:
    """``major.minor`` of an installed distribution, as integers."""
    return tuple(int(part) for part in version(distribution).split(".")[:2])


@pytest.fixture(autouse=True)
def _stock() -> Iterator[None]:
    """Every test starts (and leaves) every framework unpatched."""
    _uninstall_all()
    yield
    _uninstall_all()


def _uninstall_all() -> None:
    import streamfix
    import streamfix_adk
    import streamfix_litellm
    import streamfix_sgpt
    import streamfix_smolagents

    streamfix.uninstall()  # what the registry installed, then each shim (idempotent)
    for shim in (streamfix_adk, streamfix_litellm, streamfix_sgpt, streamfix_smolagents):
        shim.uninstall()
