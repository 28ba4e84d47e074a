"""End-to-end tests of the frameworks over real HTTP: the replay server
(``streamfix_server``, from the streamfix pytest plugin) on 127.0.0.1 with a free port,
each framework's own client code against it, stock and patched.

Every test starts and ends with every shim uninstalled.
"""

from __future__ import annotations

from importlib.metadata import version

from support import shim_fixture

API_KEY = "sk-streamfix-test"
QUESTION = "What is the weather in Paris, and the time there?"
#: The calls of the two-tool scenarios, as the tools receive them.
WEATHER_AND_TIME = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"})]


def version_of(distribution: str) -> tuple[int, ...]:
    """``major.minor`` of an installed distribution, as integers."""
    return tuple(int(part) for part in version(distribution).split(".")[:2])


_stock = shim_fixture("adk", "litellm", "sgpt", "smolagents", autouse=True, name="_stock")
