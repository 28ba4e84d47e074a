"""What every command's output goes through: the console, a table or its plain lines,
whole characters, and a reader that goes away.

- :func:`console`: rich's console (the optional ``serve`` extra);
- :func:`print_matrix`: a table on a terminal wide enough for it, else plain lines that
  fit any width (a pipe, a file, CI, a narrow terminal): never a cell cut to ``o…``;
- :func:`whole_characters`: text with the surrogate pairs a stream split between chunks
  joined into the characters they encode;
- :func:`pipe_safe`: a command that ends quietly, with status 0, when the reader of its
  output goes away (``streamfix doctor --json | head``).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, ParamSpec

__all__ = ["console", "pipe_safe", "print_matrix", "whole_characters"]

P = ParamSpec("P")


def console() -> Any:
    """A rich console on stdout; a closed pipe raises :class:`BrokenPipeError` for
    :func:`pipe_safe` (rich's own handling exits with status 1)."""
    from rich.console import Console  # noqa: PLC0415 (optional extra)

    out: Any = Console(highlight=False, soft_wrap=True)
    out.on_broken_pipe = _raise_broken_pipe
    return out


def _raise_broken_pipe() -> None:
    raise BrokenPipeError


def print_matrix(out: Any, table: Any, lines: list[str]) -> None:
    """``table`` where it fits the terminal, else ``lines`` (rich markup), one by one."""
    from rich.measure import Measurement  # noqa: PLC0415 (optional extra)

    unbounded = out.options.update_width(1_000_000)
    if out.is_terminal and Measurement.get(out, unbounded, table).maximum <= out.width:
        out.print(table)
        return
    for line in lines:
        out.print(line)


def whole_characters(value: Any) -> Any:
    """``value`` (a string, or lists and dicts of them) with each surrogate pair joined into
    its character and a lone surrogate, which no encoding can print, shown as U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, list):
        return [whole_characters(item) for item in value]
    if isinstance(value, dict):
        return {whole_characters(key): whole_characters(item) for key, item in value.items()}
    return value


def pipe_safe(command: Callable[P, None]) -> Callable[P, None]:
    """``command``, ending with status 0 and no message when its reader goes away."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            try:
                command(*args, **kwargs)
            finally:  # what is still buffered is written now, inside the guard
                sys.stdout.flush()
        except BrokenPipeError:
            _discard_stdout()
            raise SystemExit(0) from None

    return run


def _discard_stdout() -> None:
    """Point stdout at the null device, so the flush at exit does not fail again (the
    recipe of Python's ``signal`` documentation, "Note on SIGPIPE")."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file: nothing flushes it at exit
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, descriptor)
    os.close(null)
