"""Command-line tests: ``streamfix doctor``, ``replay``, ``record``, ``run`` and the pytest
plugin's corpus fixtures. Commands run in-process through ``streamfix.cli.main`` (typer's
exit status is the ``SystemExit`` code) or, for ``run`` and ``record``, as subprocesses."""

from __future__ import annotations

import pytest

from streamfix.cli import main


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
