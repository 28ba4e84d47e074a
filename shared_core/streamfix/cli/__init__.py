"""streamfix.cli: the ``streamfix`` command (:func:`main`): ``doctor``, ``replay``,
``record``, ``run``, ``serve``.

typer, rich and uvicorn are the optional ``serve`` extra, imported when a command runs.
The Python side of each command is public too: :func:`run_doctor` (the doctor's matrix as
a :class:`Report`; the frameworks' drivers in :data:`DRIVERS`, found through the
``streamfix.patches`` entry points), :func:`replay_capture` (a capture assembled, a
:class:`Replay`), :class:`RecordServer` (the recording proxy), :func:`run` and
:func:`command_env` (``streamfix run``).
"""

from __future__ import annotations

from ._doctor import DRIVERS, Cell, Drivers, Report, run_doctor, stock_and_patched
from ._main import doctor, main, replay, serve
from ._record import RecordApp, RecordServer
from ._replay import Replay, replay_capture
from ._run import SITE_DIR, command_env, run

__all__ = [
    "DRIVERS",
    "SITE_DIR",
    "Cell",
    "Drivers",
    "RecordApp",
    "RecordServer",
    "Replay",
    "Report",
    "command_env",
    "doctor",
    "main",
    "replay",
    "replay_capture",
    "run",
    "run_doctor",
    "serve",
    "stock_and_patched",
]
