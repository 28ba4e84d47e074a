"""Run at interpreter start under ``streamfix run``: activate every installed patch.

This directory is first on ``PYTHONPATH``, so this module shadows any other
``sitecustomize``; that one is run first, as it would have been.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys


def _chain() -> None:
    """Run the ``sitecustomize`` this one shadows, if there is one."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_chain()

from streamfix._auto import activate  # noqa: E402 (after the chained sitecustomize)

activate()
