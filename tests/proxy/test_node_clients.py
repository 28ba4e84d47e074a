"""The node clients (``node/clients.mjs``: the ``openai`` package's stream helper, the
vercel ``ai`` SDK's ``streamText`` with tools through ``@ai-sdk/openai-compatible``), one
node process per client and target for every OpenAI scenario: directly, each fails where
``gaps.DIRECT_WRONG`` says; through the proxy, each gets every scenario right
(``gaps.CORE_GAPS``: what the core's repaired stream still lacks)."""

from __future__ import annotations

from collections.abc import Iterator

import node_clients
import pytest
from clients import Outcome
from gaps import CORE_GAPS, DIRECT_WRONG
from proxy_fixtures import proxy_fixture, stock_clients_fixture  # noqa: F401 (fixtures)
from proxy_helpers import OPENAI

from streamfix.proxy import ProxyServer
from streamfix.testing import ReplayServer


@pytest.fixture(scope="module")
def through_proxy(proxy: ProxyServer) -> Iterator[dict[str, dict[str, Outcome]]]:
    yield {c: node_clients.run(c, proxy.openai_base_url, OPENAI) for c in node_clients.NODE_CLIENTS}


@pytest.mark.parametrize("client", node_clients.NODE_CLIENTS)
def test_direct_fails_where_the_corpus_says(client: str, streamfix_server: ReplayServer) -> None:
    outcomes = node_clients.run(client, streamfix_server.openai_base_url, OPENAI)
    wrong = {name for name, outcome in outcomes.items() if not outcome.right(name)}
    assert wrong == DIRECT_WRONG[client]


def _cases() -> list[object]:
    cases: list[object] = []
    for client in node_clients.NODE_CLIENTS:
        for name in OPENAI:
            cases.append(pytest.param(client, name, id=f"node-{client}-{name}"))
    return cases


@pytest.mark.parametrize(("client", "name"), _cases())
def test_through_the_proxy_every_scenario_is_right(
    client: str, name: str, through_proxy: dict[str, dict[str, Outcome]]
) -> None:
    outcome = through_proxy[client][name]
    if (client, name) in CORE_GAPS:  # a known gap, pinned: it fails the day it is fixed
        assert not outcome.right(name), CORE_GAPS[client, name]
        return
    assert outcome.right(name), outcome
