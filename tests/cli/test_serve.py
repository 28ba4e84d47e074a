"""``streamfix serve`` and ``streamfix record`` on a port they cannot have: one line, no
traceback, a non-zero exit status."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from support.cli import cli

SERVERS = [
    ["serve"],
    ["record", "--upstream", "http://127.0.0.1:9"],
    ["proxy", "--upstream", "http://127.0.0.1:9"],
]


@pytest.fixture
def port_in_use() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield int(taken.getsockname()[1])


@pytest.mark.parametrize("argv", SERVERS, ids=lambda argv: argv[0])
def test_a_port_out_of_range(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *argv, "--port", "99999")
    assert (code, out) == (2, "")
    assert err == f"streamfix {argv[0]}: --port 99999: not a port (0 to 65535)\n"


@pytest.mark.parametrize("argv", SERVERS, ids=lambda argv: argv[0])
def test_a_port_in_use(
    argv: list[str], port_in_use: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, *argv, "--port", str(port_in_use))
    assert (code, out) == (1, "")
    why = f"cannot listen on 127.0.0.1:{port_in_use}: Address already in use"
    assert err == f"streamfix {argv[0]}: {why}\n"
