"""Real clients nobody here wrote, against the replay server directly and through the
proxy in front of it: the openai SDK's stream helper, litellm (``openai/`` and
``ollama_chat/``, built with ``stream_chunk_builder``) and ``curl -N``, every scenario.
Directly, each fails where ``gaps.DIRECT_WRONG`` says; through the proxy, each gets every
scenario right (``gaps.CORE_GAPS``: what the core's repaired stream still lacks)."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest
from clients import Outcome, curl, python_litellm, python_openai
from gaps import CORE_GAPS, DIRECT_WRONG
from proxy_fixtures import proxy_fixture, stock_clients_fixture  # noqa: F401 (fixtures)
from proxy_helpers import OLLAMA, OPENAI

from streamfix.proxy import ProxyServer
from streamfix.testing import ReplayServer

CLIENTS: dict[str, tuple[Callable[[str, str], Outcome], list[str]]] = {
    "python_openai": (python_openai, OPENAI),
    "python_litellm": (python_litellm, OPENAI + OLLAMA),
    "curl": (curl, OPENAI + OLLAMA),
}


def _skip_without(client: str) -> None:
    if client == "curl" and shutil.which("curl") is None:
        pytest.skip("curl is not installed")


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_direct_fails_where_the_corpus_says(client: str, streamfix_server: ReplayServer) -> None:
    _skip_without(client)
    run, names = CLIENTS[client]
    wrong = {name for name in names if not run(streamfix_server.openai_base_url, name).right(name)}
    assert wrong == DIRECT_WRONG[client]


def _cases() -> list[object]:
    cases: list[object] = []
    for client, (_, names) in sorted(CLIENTS.items()):
        for name in names:
            cases.append(pytest.param(client, name, id=f"{client}-{name}"))
    return cases


@pytest.mark.parametrize(("client", "name"), _cases())
def test_through_the_proxy_every_scenario_is_right(
    client: str, name: str, proxy: ProxyServer
) -> None:
    _skip_without(client)
    run, _ = CLIENTS[client]
    outcome = run(proxy.openai_base_url, name)
    if (client, name) in CORE_GAPS:  # a known gap, pinned: it fails the day it is fixed
        assert not outcome.right(name), CORE_GAPS[client, name]
        return
    assert outcome.right(name), outcome
