"""The repairing proxy (``streamfix.proxy``) over real HTTP: in front of the replay server
(``streamfix_server``, from the streamfix pytest plugin), on 127.0.0.1 with free ports.
Helpers in ``proxy_helpers``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import shim_fixture

from streamfix.proxy import ProxyServer
from streamfix.testing import ReplayServer


@pytest.fixture(scope="session")
def proxy(streamfix_server: ReplayServer) -> Iterator[ProxyServer]:
    """The proxy in front of the replay server, for the session."""
    with ProxyServer(streamfix_server.url) as server:
        yield server


# Every client is stock: no streamfix shim installed around the proxy's tests.
_openai_stock = shim_fixture("openai", autouse=True, name="_openai_stock")
_litellm_stock = shim_fixture("litellm", autouse=True, name="_litellm_stock")
