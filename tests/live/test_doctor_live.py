"""``streamfix doctor --live URL``: the table, ``--json``, the exit status and usage
errors, against the replay server."""

from __future__ import annotations

import dataclasses
import json
import socket

import pytest
from conftest import CASES, SCENARIOS
from support.cli import cli

from streamfix.testing import DRIVERS, Outcome, ReplayServer


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "220")  # rich's table at full width


def test_table_and_exit_status_zero(
    streamfix_server: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = streamfix_server.openai_base_url
    argv = ["doctor", "--live", url, "--model", "b3-same-index", "-f", "openai"]
    code, out, _ = cli(capsys, *argv, "-f", "smolagents")
    assert code == 0, out
    assert f"streamfix doctor --live {url} (openai, b3-same-index)" in out
    assert out.count("LOST\u2192ok") == 2 * len(CASES)  # every case, both columns
    for case in CASES:
        assert case in out
    assert "get_weather, get_time" in out  # the reference column
    assert "openai one-call: stock 1 of 2 calls (get_weatherget_time)" in out
    assert "8 cells (8 with a usable reference): 8 lost stock, 8 recovered" in out
    assert "0 failing patched" in out


def test_json(streamfix_server: ReplayServer, capsys: pytest.CaptureFixture[str]) -> None:
    url = streamfix_server.openai_base_url
    code, out, _ = cli(
        capsys,
        "doctor",
        "--live",
        url,
        "--model",
        "text",
        "-f",
        "litellm",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert data["ok"] is True
    assert data["target"] == {"url": url, "model": "text", "api": "openai", "seed": 0}
    assert data["frameworks"]["litellm"]["status"] == "checked"
    assert set(data["references"]) == set(CASES)
    assert data["references"]["text-only"]["outcome"]["text"] == "Hello from streamfix."
    assert [r["case"] for r in data["results"]] == list(CASES)
    assert all(r["stock_ok"] and r["patched_ok"] and r["usable"] for r in data["results"])


def test_the_first_listed_model_by_default(
    streamfix_server: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(
        capsys, "doctor", "--live", streamfix_server.openai_base_url, "-f", "openai", "--json"
    )
    assert code == 0
    assert json.loads(out)["target"]["model"] == min(SCENARIOS)


def test_ollama(streamfix_server: ReplayServer, capsys: pytest.CaptureFixture[str]) -> None:
    """An Ollama root: probed, and only the litellm-based clients apply."""
    argv = ["doctor", "--live", streamfix_server.ollama_base_url, "--model", "ollama-call-per-line"]
    code, out, _ = cli(capsys, *argv, "-f", "litellm", "-f", "openai", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["target"]["api"] == "ollama"
    assert data["frameworks"]["openai"]["status"] == "n/a for ollama servers"
    assert {r["framework"] for r in data["results"]} == {"litellm"}
    assert not any(r["stock_ok"] for r in data["results"])
    assert all(r["patched_ok"] for r in data["results"])
    code, out, _ = cli(capsys, *argv, "--api", "ollama", "-f", "litellm", "-f", "openai")
    assert code == 0
    assert "n/a" in out and "LOST\u2192ok" in out


def test_a_failing_patched_cell_gives_exit_status_one(
    streamfix_server: ReplayServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A live driver that loses every call, stock and patched: non-zero exit."""
    broken = dataclasses.replace(DRIVERS["openai"], live=lambda _t, _c, _s: Outcome(text=""))
    monkeypatch.setitem(DRIVERS, "openai", broken)
    argv = ["doctor", "--live", streamfix_server.openai_base_url, "--model", "a1-one-chunk"]
    code, out, _ = cli(capsys, *argv, "-f", "openai", "--json")
    assert code == 1
    assert json.loads(out)["ok"] is False
    code, out, _ = cli(capsys, *argv, "-f", "openai")
    assert code == 1
    assert "patched 0 of 2 calls (none)" in out
    assert "4 failing patched" in out  # the server answers every case with the two calls


def test_an_unusable_reference_is_shown_not_failed(
    streamfix_server: ReplayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["doctor", "--live", streamfix_server.openai_base_url, "--model", "e5-error"]
    code, out, _ = cli(capsys, *argv, "-f", "openai")
    assert code == 0
    assert "unusable" in out
    assert "one-call: reference unusable: HTTP 500: upstream overloaded" in out
    assert "(0 with a usable reference)" in out
    code, out, _ = cli(capsys, *argv, "-f", "openai", "--json")
    assert code == 0
    assert not any(r["usable"] for r in json.loads(out)["results"])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["doctor", "--model", "m"], "--model and --api go with --live URL"),
        (["doctor", "--live", "URL", "--api", "nope"], "'nope': openai or ollama"),
        (["doctor", "--live", "URL", "-f", "litellm-openai"], "unknown framework litellm-openai"),
        (["doctor", "--live", "DEAD"], "no OpenAI-compatible or Ollama API"),
    ],
)
def test_usage_errors(
    streamfix_server: ReplayServer,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    url = {"URL": streamfix_server.openai_base_url, "DEAD": f"http://127.0.0.1:{_free_port()}"}
    code, _, err = cli(capsys, *[url.get(a, a) for a in argv])
    assert code == 2
    assert message in " ".join(err.replace("\u2502", " ").split())  # out of typer's box
