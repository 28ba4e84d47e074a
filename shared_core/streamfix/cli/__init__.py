"""streamfix.cli: the ``streamfix`` command (:func:`main`): ``doctor``, ``replay``,
``run``, ``record``, ``proxy``, ``serve``.

typer, rich and uvicorn are the optional ``serve`` extra, imported when a command runs.
The Python side of each command is public too: :func:`run_doctor` (the doctor's matrix as
a :class:`Report`; the frameworks' drivers in :data:`DRIVERS`, found through the
``streamfix.patches`` entry points), :func:`run_live` (``doctor --live``: a
:class:`LiveReport`), :func:`replay_capture` (a capture assembled, a
:class:`Replay`), :class:`RecordServer` (the recording proxy: :mod:`streamfix.proxy`
forwarding without repair), :func:`proxy` (``streamfix proxy``), :func:`run` and
:func:`command_env` (``streamfix run``).
"""

from __future__ import annotations

from ._doctor import DRIVERS, Cell, Drivers, Report, run_doctor, stock_and_patched
from ._live import LiveReport, run_live
from ._main import doctor, doctor_live, main, proxy, replay, serve
from ._record import RecordApp, RecordServer
from ._replay import Replay, replay_capture
from ._run import SITE_DIR, command_env, run

__all__ = [
    "DRIVERS",
    "SITE_DIR",
    "Cell",
    "Drivers",
    "LiveReport",
    "RecordApp",
    "RecordServer",
    "Replay",
    "Report",
    "command_env",
    "doctor",
    "doctor_live",
    "main",
    "proxy",
    "replay",
    "replay_capture",
    "run",
    "run_doctor",
    "run_live",
    "serve",
    "stock_and_patched",
]
