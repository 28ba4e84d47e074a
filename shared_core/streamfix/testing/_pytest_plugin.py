"""pytest plugin (entry point ``pytest11``): the replay server and the shape corpus.

- ``streamfix_server``: the replay server on a free loopback port, for the session.
- ``streamfix_shape``: a test that takes it runs once per scenario of the public shape
  corpus (``streamfix.testing.scenarios()``), ids the scenario names. Each value is a
  :class:`streamfix.testing.Scenario`: ``chunks`` (OpenAI chunk dicts or Ollama NDJSON objects,
  ``dialect`` says which), what they must assemble to (``calls``: ``{"id", "name",
  "arguments"}`` with parsed arguments, ``text``, ``finish_reason``; ``error`` for a
  provider error, ``truncated`` for cut arguments) and ``completion()``, the same
  response non-streamed (its ``choices[0].message`` is the expected message).

Select scenarios with the marker ``@pytest.mark.streamfix_shapes(dialect="openai",
complete=True, names=[...])`` (``complete``: only scenarios that assemble to a message,
no provider error, no truncation).

Loaded in every project that installs adk-streamfix, so importing it costs nearly
nothing: the corpus is built, and the replay server (socket, threading, uvicorn: the
optional ``serve`` extra) imported, only when a test uses the fixture or the marker.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._corpus import Scenario
    from ._server import ReplayServer

__all__ = ["pytest_configure", "pytest_generate_tests", "streamfix_server", "streamfix_shape"]

_FIXTURE = "streamfix_shape"
_MARKER = "streamfix_shapes"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(dialect=None, complete=False, names=None): the corpus scenarios the"
        f" {_FIXTURE} fixture runs the test over",
    )


def _selected(marker: pytest.Mark | None) -> list[Scenario]:
    from ._corpus import SCENARIOS  # noqa: PLC0415 (only once a test asks for the corpus)

    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    unknown = set(options) - {"dialect", "complete", "names"}
    if unknown:
        raise pytest.UsageError(f"{_MARKER}: unknown option(s) {sorted(unknown)}")
    names = options.get("names")
    missing = sorted(set(names or ()) - set(SCENARIOS))
    if missing:
        raise pytest.UsageError(f"{_MARKER}: no scenario named {missing}")
    return [
        scenario
        for scenario in SCENARIOS.values()
        if (options.get("dialect") in (None, scenario.dialect))
        and not (options.get("complete") and (scenario.error or scenario.truncated))
        and (names is None or scenario.name in names)
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that takes ``streamfix_shape`` over the corpus."""
    if _FIXTURE not in metafunc.fixturenames:
        return
    chosen = _selected(metafunc.definition.get_closest_marker(_MARKER))
    metafunc.parametrize(_FIXTURE, chosen, ids=[s.name for s in chosen], indirect=True)


@pytest.fixture
def streamfix_shape(request: pytest.FixtureRequest) -> Scenario:
    """One scenario of the public shape corpus (the test runs once per scenario)."""
    scenario: Scenario = request.param
    return scenario


@pytest.fixture(scope="session")
def streamfix_server() -> Iterator[ReplayServer]:
    """The replay server on 127.0.0.1 with a free port, for the whole session.

    Yields a :class:`streamfix.testing.ReplayServer`: ``.url``, ``.openai_base_url`` (``/v1``,
    for the ``openai`` SDK and litellm's ``openai/``), ``.ollama_base_url`` (for
    ``ollama_chat/``), ``.requests`` (the request bodies received). The model name picks
    the scenario (``streamfix.testing.scenarios()``).
    """
    pytest.importorskip("uvicorn", reason="streamfix_server needs adk-streamfix[serve]")
    from ._server import ReplayServer  # noqa: PLC0415 (only once a test asks for it)

    with ReplayServer("127.0.0.1", 0) as server:
        yield server
