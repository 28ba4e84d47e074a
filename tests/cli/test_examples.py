"""The README's ``streamfix replay`` example: each command of its ``console`` block, run on
the sample captures of ``examples/captures/``, prints exactly the output shown under it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from support.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[tuple[str, str]]:
    """(command, output) of every ``$ streamfix replay`` line of the README's console blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, output = part.partition("\n")
            if command.startswith("streamfix replay "):
                found.append((command, output))
    return found


def test_the_readme_shows_every_sample_capture() -> None:
    shown = {shlex.split(command)[2] for command, _ in readme_commands()}
    samples = {str(p.relative_to(ROOT)) for p in (ROOT / "examples/captures").glob("*.jsonl")}
    assert shown == samples
    assert len(samples) >= 2


@pytest.mark.parametrize(("command", "output"), readme_commands(), ids=lambda x: x[:60])
def test_the_readme_shows_what_the_command_prints(
    command: str, output: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = cli(capsys, *shlex.split(command)[1:])
    assert (code, err) == (0, "")
    assert out == output
