"""The ``streamfix`` command run in-process, as the command-line tests run it."""

from __future__ import annotations

import pytest

from streamfix.cli import main

__all__ = ["cli"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``streamfix *argv`` in-process: (exit status, stdout, stderr)."""
    try:
        main(list(argv))
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    else:  # pragma: no cover - typer always exits
        code = 0
    out, err = capsys.readouterr()
    return code, out, err
