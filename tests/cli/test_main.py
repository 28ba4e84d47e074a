"""What every command shares: ``--version``, clean ``--help``, and a reader that goes away
(``streamfix doctor --json | head``)."""

from __future__ import annotations

import errno
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import cli

import streamfix
import streamfix.testing

COMMANDS = ["doctor", "replay", "run", "record", "proxy", "serve"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--version")
    assert (code, out) == (0, f"streamfix {streamfix.__version__}\n")


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_no_type_after_a_flag(
    command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(capsys, *([command] if command else []), "--help")
    assert code == 0
    assert "--help" in out
    assert "<bool>" not in out


def test_help_lists_each_command_with_a_whole_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--help")
    listed = out.split("Commands:\n")[1].splitlines()
    assert code == 0
    assert [line.split()[0] for line in listed] == COMMANDS
    assert all(line.endswith(".") and not line.endswith("...") for line in listed)


def capture(tmp_path: Path, name: str = "b2-same-index") -> Path:
    path = tmp_path / f"{name}.jsonl"
    chunks = streamfix.testing.scenarios()[name].chunks
    path.write_text("".join(json.dumps(c) + "\n" for c in chunks))
    return path


class ClosedPipe(io.TextIOBase):
    """stdout whose reader went away: every write fails, as on a closed pipe."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "CAPTURE"],
        ["replay", "CAPTURE", "--json"],
        ["doctor", "--framework", "litellm"],
        ["doctor", "--framework", "litellm", "--json"],
    ],
)
def test_a_reader_that_goes_away_ends_quietly(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = [str(capture(tmp_path)) if a == "CAPTURE" else a for a in argv]
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code, _, err = cli(capsys, *argv)
    assert (code, err) == (0, "")


def test_replay_json_into_a_pipe_closed_early(tmp_path: Path) -> None:
    """``streamfix replay big.jsonl --json | head -1``, over a real pipe: the output is
    larger than the pipe holds, so the command writes after the reader has gone."""
    path = tmp_path / "big.jsonl"
    piece = {"choices": [{"index": 0, "delta": {"content": "x" * 1000}}]}
    path.write_text((json.dumps(piece) + "\n") * 300)
    script = Path(sys.executable).with_name("streamfix")
    process = subprocess.Popen(
        [str(script), "replay", str(path), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    assert process.wait(60) == 0
    assert process.stderr.read() == b""
