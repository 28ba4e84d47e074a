"""Command-line tests: ``streamfix doctor``, ``replay``, ``record``, ``run`` and the pytest
plugin's corpus fixtures. Commands run in-process through ``streamfix.cli.main`` (typer's
exit status is the ``SystemExit`` code) or, for ``run`` and ``record``, as subprocesses."""

from __future__ import annotations
