"""Fetch the sdist of the installed smolagents at test time and make its tests runnable.

Run by the nox session ``smolagents_upstream`` inside its virtualenv::

    python tests/smolagents_upstream/prepare_sdist.py DEST

Downloads ``smolagents==<installed version>`` as a source distribution from the package
index (``pip download --no-deps --no-binary :all:``), extracts it under DEST and prints the
extracted directory. Nothing of smolagents is committed to this repository.

The sdist ships ``tests/test_*.py`` but not the helpers they import (``tests/utils/
markers.py``, a package ``__init__``); this writes the minimal stand-ins: ``tests`` and
``tests.utils`` as packages, ``require_run_all``, which (as upstream's) skips tests that
call real APIs unless ``RUN_ALL`` is set, and an empty ``pytest.ini`` (the sdist's
pytest options are in its ``pyproject.toml``, which is not extracted: only ``tests/`` is).
Nor does it ship upstream's fixtures (``test_tool``, ``example_tool``, ``get_agent_dict``):
``sdist_conftest.py``, written from what the tests expect of them, becomes its
``tests/conftest.py``, so that the 26 tests using them run instead of erroring in every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "upstream_patch"))
from sdist import download  # the one sdist download (tests/upstream_patch/sdist.py)

MARKERS = '''"""Stand-in for smolagents' tests/utils/markers.py (not shipped in the sdist)."""

import os

import pytest

require_run_all = pytest.mark.skipif(
    not os.getenv("RUN_ALL"), reason="requires RUN_ALL: calls real model APIs"
)
'''


def main(dest: str) -> Path:
    root = download(dest, "smolagents", tests_only=True)
    tests = root / "tests"
    (tests / "__init__.py").touch()
    (tests / "utils").mkdir(exist_ok=True)
    (tests / "utils" / "__init__.py").touch()
    (tests / "utils" / "markers.py").write_text(MARKERS)
    (tests / "conftest.py").write_text((Path(__file__).parent / "sdist_conftest.py").read_text())
    # Its own (empty) config, so that pytest never picks up an enclosing project's.
    (tests.parent / "pytest.ini").write_text("[pytest]\n")
    return tests.parent


if __name__ == "__main__":
    print(main(sys.argv[1]))
