"""The proxy's fixtures, imported by the test modules that use them (no ``conftest.py``
here: ``tests/e2e`` imports names from its own ``conftest``, and the ``e2e`` session runs
both folders in one pytest run, where two ``conftest`` modules would collide).

``proxy_fixture`` is the fixture ``proxy``: the proxy in front of the replay server
(``streamfix_server``, from the streamfix pytest plugin), on 127.0.0.1 with free ports.
``stock_clients_fixture`` is the autouse fixture ``stock_clients``: no streamfix shim
installed around a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import shim_fixture

from streamfix.proxy import ProxyServer
from streamfix.testing import ReplayServer


@pytest.fixture(scope="session", name="proxy")
def proxy_fixture(streamfix_server: ReplayServer) -> Iterator[ProxyServer]:
    """The proxy in front of the replay server, for the session."""
    with ProxyServer(streamfix_server.url) as server:
        yield server


#: No streamfix shim installed around a test: every client stock.
stock_clients_fixture = shim_fixture("openai", "litellm", autouse=True, name="stock_clients")
